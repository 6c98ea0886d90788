package cmd

import (
	"context"
	"encoding/json"
	"maps"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/controller/network"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/mrdata"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/values"

	"github.com/calico-pilot/calico-pilot/internal/testcheck"
)

// TestRenderNetworkMatchesController is the regression test for the wake-up divergence: a shoot
// waking up (status.hibernated still true, spec.hibernation.enabled unset) with the
// gardener-kube-apiserver GlobalNetworkSet enabled. `calico-pilot render --network --cluster
// --kube-apiserver-address` rendered no set while the controller deployed it; both must produce
// the same objects, byte for byte, and the set must be among them. A shoot that wants hibernation
// gets no set from either.
func TestRenderNetworkMatchesController(t *testing.T) {
	tests := []struct {
		name      string
		hibernate string // spec.hibernation block of the embedded shoot
		extra     string // more providerConfig fields
		wantSet   bool
		// wantWarning is a line render prints on stderr for a field deployed other than written.
		wantWarning string
	}{
		{name: "waking up", hibernate: "", wantSet: true},
		{name: "hibernation explicitly off", hibernate: "hibernation: {enabled: false}", wantSet: true},
		{name: "hibernation wanted", hibernate: "hibernation: {enabled: true}", wantSet: false},
		// A config the reference accepted (overlay off + backend bird): the controller deploys it
		// (ratcheting, issue 10), and so does render --network, with the finding as a warning.
		{name: "reference-accepted contradiction", extra: "    backend: bird\n", wantSet: true, wantWarning: "warning: spec.providerConfig.backend:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			netData := testcheck.ReadFile(t, renderInputs+"network.yaml") + "    kubeAPIServerGlobalNetworkSet:\n      enabled: true\n" + tt.extra
			clusterData := strings.Replace(testcheck.ReadFile(t, renderInputs+"cluster.yaml"), "      hibernated: false", "      hibernated: true", 1)
			if tt.hibernate != "" {
				clusterData = strings.Replace(clusterData, "      networking:\n        type: calico", "      "+tt.hibernate+"\n      networking:\n        type: calico", 1)
			}
			if !strings.Contains(clusterData, "hibernated: true") || (tt.hibernate != "" && !strings.Contains(clusterData, tt.hibernate)) {
				t.Fatal("test input was not changed as intended")
			}
			netPath, clusterPath := filepath.Join(dir, "network.yaml"), filepath.Join(dir, "cluster.yaml")
			writeFile(t, netPath, netData)
			writeFile(t, clusterPath, clusterData)
			addresses := []string{"192.0.2.34", "2001:db8::34"}

			var args []string
			for _, a := range addresses {
				args = append(args, "--kube-apiserver-address", a)
			}
			args = append(args, "--network", netPath, "--cluster", clusterPath, "-o", "json")
			out, errOut, code := runRender(t, args...)
			if code != 0 {
				t.Fatalf("render exit %d: %s", code, errOut)
			}
			if tt.wantWarning != "" && !strings.Contains(errOut, tt.wantWarning) {
				t.Errorf("render's stderr lacks %q:\n%s", tt.wantWarning, errOut)
			}
			if tt.wantWarning == "" && strings.TrimPrefix(errOut, "note: rendered Calico v3.31 (v3.31.7): calico-pilot's default (no pin, no recorded release, no operator default)\n") != "" {
				t.Errorf("render printed on stderr: %s", errOut)
			}
			var list struct {
				Items []json.RawMessage `json:"items"`
			}
			if err := json.Unmarshal([]byte(out), &list); err != nil {
				t.Fatalf("render output is not a JSON List: %v", err)
			}
			cli := make([]string, 0, len(list.Items))
			for _, item := range list.Items {
				cli = append(cli, compactJSON(t, item))
			}

			ctrl := controllerRender(t, netData, clusterData, addresses)
			sorted := slices.Sorted(slices.Values(cli)) // the same objects, whichever key holds them
			if d := cmp.Diff(ctrl, sorted); d != "" {
				t.Errorf("render --network --cluster differs from the controller's manifest (-controller +render):\n%.3000s", d)
			}
			hasSet := false
			for _, doc := range cli {
				var id struct {
					Kind     string `json:"kind"`
					Metadata struct {
						Name string `json:"name"`
					} `json:"metadata"`
				}
				if err := json.Unmarshal([]byte(doc), &id); err != nil {
					t.Fatal(err)
				}
				hasSet = hasSet || (id.Kind == "GlobalNetworkSet" && id.Metadata.Name == "gardener-kube-apiserver")
			}
			if hasSet != tt.wantSet {
				t.Errorf("GlobalNetworkSet rendered = %v, want %v", hasSet, tt.wantSet)
			}
		})
	}
}

// controllerRender runs the controller's production Renderer on the same Network and Cluster, with
// the addresses the actuator gathers when the shoot does not want hibernation, and returns the
// stored manifest's documents.
func controllerRender(t *testing.T, netData, clusterData string, addresses []string) []string {
	t.Helper()
	n := &extensionsv1alpha1.Network{}
	if err := yaml.Unmarshal([]byte(netData), n); err != nil {
		t.Fatal(err)
	}
	c := &extensionsv1alpha1.Cluster{}
	if err := yaml.Unmarshal([]byte(clusterData), c); err != nil {
		t.Fatal(err)
	}
	shoot := &gardencorev1beta1.Shoot{}
	if err := json.Unmarshal(c.Spec.Shoot.Raw, shoot); err != nil {
		t.Fatal(err)
	}
	cfg, errs := pipeline.ExistingNetworkConfig(n)
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	var addrs []netip.Addr
	if !values.HibernationWanted(shoot) {
		for _, a := range addresses {
			addrs = append(addrs, netip.MustParseAddr(a))
		}
	}
	images, err := imagevector.VectorFromEnv(os.LookupEnv, os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	r, err := network.NewRenderer(images)
	if err != nil {
		t.Fatal(err)
	}
	// The Network records no release and pins none: the controller decides the catalogue's default
	// for it (calicoversion.Decide), as render does.
	decision, err := calicoversion.Default().Decide(calicoversion.Facts{Kubernetes: shoot.Spec.Kubernetes.Version})
	if err != nil {
		t.Fatal(err)
	}
	rendered, err := r.Render(context.Background(), network.Inputs{Network: n, Shoot: shoot, Config: cfg,
		Settings: values.Settings{KubeAPIServerAddresses: addrs, Calico: decision.Deployment()}})
	if err != nil {
		t.Fatal(err)
	}
	// The secret's keys as the resource manager reads them: the plain stream and the compressed CRDs.
	plain, err := mrdata.Plain(rendered.Data)
	if err != nil {
		t.Fatal(err)
	}
	if len(plain) != 2 || plain[network.ManagedResourceDataKey] == nil || plain[mrdata.CRDsKey] == nil {
		t.Fatalf("content secret keys = %v, want %s and %s", slices.Collect(maps.Keys(plain)), network.ManagedResourceDataKey, mrdata.CRDsKey)
	}
	var docs []string
	for _, stream := range plain {
		for _, line := range strings.Split(strings.TrimSpace(string(stream)), "\n") {
			docs = append(docs, compactJSON(t, []byte(line)))
		}
	}
	slices.Sort(docs)
	return docs
}

func compactJSON(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
