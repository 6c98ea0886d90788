package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// checkImages fails unless the output carries calico-node's, calico-cni's and kube-controllers'
// images of release tag, and no image of another release of the catalogue.
func checkImages(t *testing.T, out, tag string) {
	t.Helper()
	for _, img := range []string{"quay.io/calico/node:", "quay.io/calico/cni:", "quay.io/calico/kube-controllers:"} {
		if !strings.Contains(out, img+tag) {
			t.Errorf("no %s%s in the output", img, tag)
		}
	}
	for _, other := range calicoversion.Default().ReleaseNames() {
		if other != tag && strings.Contains(out, ":"+other+"\n") {
			t.Errorf("the output carries images of %s too", other)
		}
	}
}

// TestRenderCalicoLine: which release render renders, and that it says so on stderr. Until render
// differs between releases by more than images (the render components own that), the images' tags
// are what tells them apart here.
func TestRenderCalicoLine(t *testing.T) {
	dir := t.TempDir()
	shoot, err := os.ReadFile(renderInputs + "shoot-seed-004.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const k8s = "1.34.2"
	withK8s := func(s, v string) string { return strings.Replace(s, "version: 1.32.0", "version: "+v, 1) }
	pinned := func(pin string) string {
		p := strings.Replace(withK8s(string(shoot), k8s), "kind: NetworkConfig\n", "kind: NetworkConfig\n      calicoVersion: "+pin+"\n", 1)
		if !strings.Contains(p, "calicoVersion: "+pin) || !strings.Contains(p, "version: "+k8s) {
			t.Fatal("test input was not changed as intended")
		}
		path := filepath.Join(dir, "pinned-"+pin+".yaml")
		writeFile(t, path, p)
		return path
	}
	plainPath := filepath.Join(dir, "plain.yaml")
	writeFile(t, plainPath, withK8s(string(shoot), k8s))
	ctrlPath := filepath.Join(dir, "config.yaml")
	writeFile(t, ctrlPath, "apiVersion: calico.networking.extensions.config.gardener.cloud/v1alpha1\nkind: ControllerConfiguration\ncalico:\n  defaultVersion: v3.32\n")
	base := []string{"--kube-apiserver-address", "192.0.2.34", "--crds=false"}
	type tc struct {
		name, note, tag string
		args            []string
	}
	cases := []tc{
		{name: "default: the newest release of the default line", args: []string{"--shoot", plainPath}, tag: "v3.31.7",
			note: "note: rendered Calico v3.31 (v3.31.7): calico-pilot's default (no pin, no recorded release, no operator default)\n"},
		{name: "operator default", args: []string{"--shoot", plainPath, "--controller-config", ctrlPath}, tag: "v3.32.1",
			note: "note: rendered Calico v3.32 (v3.32.1): the operator's default (ControllerConfiguration calico.defaultVersion)\n"},
		{name: "flag over the pin", args: []string{"--shoot", pinned("v3.32"), "--calico-version", "3.31"}, tag: "v3.31.7",
			note: "note: rendered Calico v3.31 (v3.31.7): asked for\n"},
		{name: "a release outside the shoot's Kubernetes range is rendered with the rule's warning",
			args: []string{"--shoot", renderInputs + "shoot-seed-004.yaml", "--calico-version", "v3.32"}, tag: "v3.32.1",
			note: "warning: --calico-version v3.32: Calico v3.32.1 supports Kubernetes 1.34-1.36, the shoot runs 1.32.0 (spec.kubernetes.version); pin v3.31, or remove the pin\n" +
				"note: rendered Calico v3.32 (v3.32.1): asked for\n"},
	}
	// Every release and every line can be pinned; a line pin renders its newest release.
	for _, l := range calicoversion.Default().Lines() {
		if !l.SupportsKubernetes(k8s) {
			continue
		}
		for _, pin := range append(l.ReleaseNames(), l.Name()) {
			r, _ := calicoversion.Default().Resolve(pin)
			cases = append(cases, tc{name: "pin " + pin, args: []string{"--shoot", pinned(pin)}, tag: r.Name(),
				note: "note: rendered Calico " + l.Name() + " (" + r.Name() + "): the shoot's pin (providerConfig calicoVersion)\n"})
		}
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runRender(t, append(base, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if errOut != tt.note {
				t.Errorf("stderr %q, want %q", errOut, tt.note)
			}
			checkImages(t, out, tt.tag)
		})
	}
	// A release the catalogue does not carry is refused, naming what its line has.
	for _, l := range calicoversion.Default().Lines() {
		v := l.Newest().Version()
		v.Patch += 100
		_, errOut, code := runRender(t, append(base, "--shoot", plainPath, "--calico-version", v.String())...)
		if want := "error: --calico-version: Calico " + v.String() + " is not a release this calico-pilot deploys; its line " + l.Name() + " has " + strings.Join(l.ReleaseNames(), ", ") + " (name the line for its newest release)\n"; code != 2 || errOut != want {
			t.Errorf("release not carried: exit %d, %q, want 2, %q", code, errOut, want)
		}
	}
}

// TestRenderCalicoLineOfNetwork: a Network renders the release its status records (a shoot keeps its
// release until something moves it, even when its line has a newer one), over the operator's default;
// a retired recorded release renders the newest of its line and says so; a move in progress renders
// each component at its step's release.
func TestRenderCalicoLineOfNetwork(t *testing.T) {
	dir := t.TempDir()
	network, err := os.ReadFile(renderInputs + "network.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cluster, err := os.ReadFile(renderInputs + "cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const k8s = "1.34.0"
	clusterPath := filepath.Join(dir, "cluster.yaml")
	writeFile(t, clusterPath, strings.Replace(string(cluster), "version: 1.33.0", "version: "+k8s, 1))
	ctrlPath := filepath.Join(dir, "config.yaml")
	writeFile(t, ctrlPath, "apiVersion: calico.networking.extensions.config.gardener.cloud/v1alpha1\nkind: ControllerConfiguration\ncalico:\n  defaultVersion: v3.31\n")
	const status = "  providerStatus:\n    apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\n    kind: NetworkStatus\n"
	type tc struct {
		name, status, note string
		images             []string
	}
	cases := []tc{
		{name: "retired release of v3.32", status: status + "    calicoVersion: v3.32.0\n",
			note:   "note: rendered Calico v3.32 (v3.32.1): Calico v3.32.0 is not carried by this calico-pilot (retired); the shoot moves to the newest release of its line, v3.32.1.\n",
			images: []string{"quay.io/calico/node:v3.32.1", "quay.io/calico/typha:v3.32.1"}},
		{name: "retired release of v3.31", status: status + "    calicoVersion: v3.31.5\n",
			note:   "note: rendered Calico v3.31 (v3.31.7): Calico v3.31.5 is not carried by this calico-pilot (retired); the shoot moves to the newest release of its line, v3.31.7.\n",
			images: []string{"quay.io/calico/node:v3.31.7", "quay.io/calico/typha:v3.31.7"}},
		{name: "move in progress", status: status + "    calicoVersion: v3.31.6\n    calicoCRDVersion: v3.32.1\n" +
			"    calicoMove: {from: v3.31.6, to: v3.32.1, phase: First, started: \"2026-12-03T10:00:00Z\"}\n",
			note: "note: rendered Calico calico-node v3.32.1, calico-typha v3.31.6, calico-kube-controllers v3.31.6, CRDs v3.32.1: " +
				"the Network's move in progress (status.providerStatus.calicoMove): Moving from Calico v3.31.6 to v3.32.1 (phase First, started 2026-12-03T10:00:00Z).\n",
			images: []string{"quay.io/calico/node:v3.32.1", "quay.io/calico/typha:v3.31.6"}},
		{name: "nothing recorded", status: "",
			note:   "note: rendered Calico v3.31 (v3.31.7): the operator's default (ControllerConfiguration calico.defaultVersion)\n",
			images: []string{"quay.io/calico/node:v3.31.7", "quay.io/calico/typha:v3.31.7"}},
	}
	for _, r := range calicoversion.Default().Releases() {
		if !r.SupportsKubernetes(k8s) {
			continue
		}
		cases = append(cases, tc{name: "recorded " + r.Name(), status: status + "    calicoVersion: " + r.Name() + "\n",
			note:   "note: rendered Calico " + r.Line().Name() + " (" + r.Name() + "): the release the Network runs (status.providerStatus.calicoVersion)\n",
			images: []string{"quay.io/calico/node:" + r.Name(), "quay.io/calico/typha:" + r.Name()}})
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			n := string(network)
			if tt.status != "" {
				n += "status:\n" + tt.status
			}
			netPath := filepath.Join(dir, "network.yaml")
			writeFile(t, netPath, n)
			out, errOut, code := runRender(t, "--network", netPath, "--cluster", clusterPath, "--controller-config", ctrlPath, "--crds=false")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.HasSuffix(errOut, tt.note) {
				t.Errorf("stderr %q, want it to end with %q", errOut, tt.note)
			}
			for _, img := range tt.images {
				if !strings.Contains(out, img) {
					t.Errorf("no %s in the output", img)
				}
			}
		})
	}
}
