package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRenderCalicoLine: which line render renders, and that it says so on stderr. Until render differs
// between lines by more than images (the render components own that), the images' tags are what
// tells the lines apart here.
func TestRenderCalicoLine(t *testing.T) {
	dir := t.TempDir()
	shoot, err := os.ReadFile(renderInputs + "shoot-seed-004.yaml")
	if err != nil {
		t.Fatal(err)
	}
	withK8s := func(s, v string) string { return strings.Replace(s, "version: 1.32.0", "version: "+v, 1) }
	pinned := strings.Replace(withK8s(string(shoot), "1.34.2"), "kind: NetworkConfig\n", "kind: NetworkConfig\n      calicoVersion: v3.32\n", 1)
	if !strings.Contains(pinned, "calicoVersion: v3.32") || !strings.Contains(pinned, "version: 1.34.2") {
		t.Fatal("test input was not changed as intended")
	}
	pinnedPath := filepath.Join(dir, "pinned.yaml")
	writeFile(t, pinnedPath, pinned)
	plainPath := filepath.Join(dir, "plain.yaml")
	writeFile(t, plainPath, withK8s(string(shoot), "1.34.2"))
	ctrlPath := filepath.Join(dir, "config.yaml")
	writeFile(t, ctrlPath, "apiVersion: calico.networking.extensions.config.gardener.cloud/v1alpha1\nkind: ControllerConfiguration\ncalico:\n  defaultVersion: v3.32\n")
	base := []string{"--kube-apiserver-address", "192.0.2.34", "--crds=false"}
	for _, tt := range []struct {
		name, note, tag string
		args            []string
	}{
		{name: "default", args: []string{"--shoot", plainPath}, tag: "v3.31.6",
			note: "note: rendered Calico v3.31 (v3.31.6): calico-pilot's default (no pin, no recorded line, no operator default)\n"},
		{name: "pin", args: []string{"--shoot", pinnedPath}, tag: "v3.32.1",
			note: "note: rendered Calico v3.32 (v3.32.1): the shoot's pin (providerConfig calicoVersion)\n"},
		{name: "operator default", args: []string{"--shoot", plainPath, "--controller-config", ctrlPath}, tag: "v3.32.1",
			note: "note: rendered Calico v3.32 (v3.32.1): the operator's default (ControllerConfiguration calico.defaultVersion)\n"},
		{name: "flag over the pin", args: []string{"--shoot", pinnedPath, "--calico-version", "3.31"}, tag: "v3.31.6",
			note: "note: rendered Calico v3.31 (v3.31.6): asked for\n"},
		{name: "a line outside the shoot's Kubernetes range is rendered with a warning", args: []string{"--shoot", renderInputs + "shoot-seed-004.yaml", "--calico-version", "v3.32"}, tag: "v3.32.1",
			note: "warning: Calico v3.32 supports Kubernetes 1.34 to 1.36, the shoot runs 1.32.0\nnote: rendered Calico v3.32 (v3.32.1): asked for\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runRender(t, append(base, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if errOut != tt.note {
				t.Errorf("stderr %q, want %q", errOut, tt.note)
			}
			for _, img := range []string{"quay.io/calico/node:", "quay.io/calico/cni:", "quay.io/calico/kube-controllers:"} {
				if !strings.Contains(out, img+tt.tag) {
					t.Errorf("no %s%s in the output", img, tt.tag)
				}
			}
			other := "v3.32.1"
			if tt.tag == other {
				other = "v3.31.6"
			}
			if strings.Contains(out, ":"+other) {
				t.Errorf("the output carries images of %s too", other)
			}
		})
	}
	_, errOut, code := runRender(t, append(base, "--shoot", plainPath, "--calico-version", "v3.31.7")...)
	if code != 2 || errOut != "error: --calico-version: Calico \"v3.31.7\" is not supported: calico-pilot deploys v3.31.6 of the v3.31 line (name the line, \"v3.31\")\n" {
		t.Errorf("bad line: exit %d, %q", code, errOut)
	}
}

// TestRenderCalicoLineOfNetwork: a Network renders the line its status records (a shoot keeps its
// line until something moves it), over the operator's default; a move in progress renders each
// component at its step's line.
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
	clusterPath := filepath.Join(dir, "cluster.yaml")
	writeFile(t, clusterPath, strings.Replace(string(cluster), "version: 1.33.0", "version: 1.34.0", 1))
	ctrlPath := filepath.Join(dir, "config.yaml")
	writeFile(t, ctrlPath, "apiVersion: calico.networking.extensions.config.gardener.cloud/v1alpha1\nkind: ControllerConfiguration\ncalico:\n  defaultVersion: v3.31\n")
	for _, tt := range []struct {
		name, status, note string
		images             []string
	}{
		{name: "recorded line", status: "  providerStatus:\n    apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\n    kind: NetworkStatus\n    calicoVersion: v3.32.1\n",
			note:   "note: rendered Calico v3.32 (v3.32.1): the line the Network runs (status.providerStatus.calicoVersion)\n",
			images: []string{"quay.io/calico/node:v3.32.1", "quay.io/calico/typha:v3.32.1"}},
		{name: "move in progress", status: "  providerStatus:\n    apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\n    kind: NetworkStatus\n    calicoVersion: v3.31.6\n    calicoCRDVersion: v3.32.1\n" +
			"    calicoMove: {from: v3.31.6, to: v3.32.1, phase: First, started: \"2026-12-03T10:00:00Z\"}\n",
			note:   "note: rendered Calico calico-node v3.32, typha v3.31, kube-controllers v3.31, CRDs v3.32: the Network's move in progress (status.providerStatus.calicoMove)\n",
			images: []string{"quay.io/calico/node:v3.32.1", "quay.io/calico/typha:v3.31.6"}},
		{name: "nothing recorded", status: "",
			note:   "note: rendered Calico v3.31 (v3.31.6): the operator's default (ControllerConfiguration calico.defaultVersion)\n",
			images: []string{"quay.io/calico/node:v3.31.6", "quay.io/calico/typha:v3.31.6"}},
	} {
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
