package calicooracle

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/calico-pilot/calico-pilot/internal/calicooracle"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
)

// useCRDs puts the CRDs of line v on the control plane for the rest of the test (as an upgrade does:
// updated in place, none deleted) and v3.31's back afterwards, which the suite's other tests use.
func useCRDs(t *testing.T, v calicoversion.Version) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := controlPlane.InstallCalicoCRDs(ctx, v); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := controlPlane.InstallCalicoCRDs(context.Background(), calicoversion.V3_31); err != nil {
			t.Errorf("putting the v3.31 CRDs back: %v", err)
		}
	})
}

// renderAt renders a scenario with every component at line v.
func renderAt(t *testing.T, name string, calico calicoversion.Deployment) []*unstructured.Unstructured {
	t.Helper()
	for _, sc := range rendertest.Scenarios() {
		if sc.Name == name {
			sc.Calico = calico
			objs, err := sc.Unstructured()
			if err != nil {
				t.Fatal(err)
			}
			return objs
		}
	}
	t.Fatalf("no scenario %s", name)
	return nil
}

func replayerFor(t *testing.T, v calicoversion.Version) (*calicooracle.Table, *calicooracle.Replayer) {
	t.Helper()
	table, err := calicooracle.Load(v.Release)
	if err != nil {
		t.Fatal(err)
	}
	r, err := calicooracle.NewReplayer(controlPlane.Config, table)
	if err != nil {
		t.Fatal(err)
	}
	return table, r
}

// only is d with just the named components.
func only(d *calicooracle.Deployment, components ...string) *calicooracle.Deployment {
	cp := *d
	cp.Components = maps.Clone(d.Components)
	maps.DeleteFunc(cp.Components, func(name string, _ calicooracle.Running) bool { return !slices.Contains(components, name) })
	return &cp
}

// TestCalicoV3_32AcceptsRender replays Calico v3.32.1's table for every scenario family rendered with
// every component at v3.32, on the v3.32 CRDs: no request Calico needs answered is refused, every write
// is stored as written, and calico-node's start-up facts hold.
func TestCalicoV3_32AcceptsRender(t *testing.T) {
	useCRDs(t, calicoversion.V3_32)
	table, r := replayerFor(t, calicoversion.V3_32)
	replayFamilies(t, newCluster(t), r, table, " at v3.32", func(t *testing.T, scenario string) []*unstructured.Unstructured {
		return renderAt(t, scenario, calicoversion.Steady(calicoversion.V3_32))
	})
}

// TestCalicoMixedPhaseAcceptsRender replays the first step of an upgrade (calico-node at v3.32, typha
// and kube-controllers at v3.31, the v3.32 CRDs: calicoversion.Move) with each component's own line:
// calico-node and the CNI plugin make v3.32.1's requests, typha and kube-controllers v3.31.6's, all
// under the roles rendered for that step. The one problem the facts predict is kube-controllers
// v3.31 writing its status with the object while the v3.32 CRD has the status subresource: the
// status is not stored, and kube-controllers still runs (delta §6 "KubeControllersConfiguration").
func TestCalicoMixedPhaseAcceptsRender(t *testing.T) {
	useCRDs(t, calicoversion.V3_32)
	t32, r32 := replayerFor(t, calicoversion.V3_32)
	t31, r31 := replayerFor(t, calicoversion.V3_31)
	move := calicoversion.Move(calicoversion.V3_31, calicoversion.V3_32, calicoversion.Version{}, calicoversion.PhaseFirst)
	for _, name := range []string{"default", "calico-ipam", "typha-disabled"} {
		t.Run(name, func(t *testing.T) {
			objs := renderAt(t, name, move)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			d, err := calicooracle.Inspect(t32, objs)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range []*calicooracle.Replayer{r32, r31} {
				if err := r.Reset(ctx); err != nil {
					t.Fatal(err)
				}
			}
			newCluster(t).apply(t, objs)
			// Calico's order: calico-node first (delta §5 "order").
			node, err := r32.Replay(ctx, only(d, "calico-node", "cni-plugin"))
			if err != nil {
				t.Fatal(err)
			}
			rest, err := r31.Replay(ctx, only(d, "typha", "kube-controllers"))
			if err != nil {
				t.Fatal(err)
			}
			for _, tb := range []*calicooracle.Table{t32, t31} {
				findings, err := calicooracle.CheckStartup(tb, d)
				if err != nil {
					t.Fatal(err)
				}
				if tb == t32 {
					for _, f := range findings {
						t.Errorf("start-up (calico-node v3.32): %s", f)
					}
				}
			}
			var problems []string
			for _, res := range append(node, rest...) {
				if res.Problem != "" {
					problems = append(problems, res.Row+" "+res.Component)
					if res.Row != "kc-config-status" || !strings.Contains(res.Problem, "status") {
						t.Errorf("%s", res)
					}
				}
			}
			_, kc := d.Components["kube-controllers"]
			want := []string(nil)
			if kc {
				want = []string{"kc-config-status kube-controllers"}
			}
			if !slices.Equal(problems, want) {
				t.Errorf("problems %v, want %v (the stale status of delta §6)", problems, want)
			}
			t.Logf("%d requests replayed (calico-node and the CNI plugin at v3.32, typha and kube-controllers at v3.31)", len(node)+len(rest))
		})
	}
}

// TestOracleV3_32CatchesV3_31Roles is the negative control: the roles rendered for v3.31 replayed
// with Calico v3.32.1's table must be refused exactly what v3.32 adds (kube-controllers' /status
// write, the policy-name migrator, the CRD watch, KubeVirt; Felix's and typha's ClusterNetworkPolicy
// and VMIM watches).
func TestOracleV3_32CatchesV3_31Roles(t *testing.T) {
	useCRDs(t, calicoversion.V3_32)
	table, r := replayerFor(t, calicoversion.V3_32)
	v31 := renderAt(t, "calico-ipam", calicoversion.Steady(calicoversion.V3_31))
	v32 := renderAt(t, "calico-ipam", calicoversion.Steady(calicoversion.V3_32))
	// The v3.32 render with v3.31's roles.
	roles := map[string]*unstructured.Unstructured{}
	for _, u := range v31 {
		if u.GetKind() == "ClusterRole" {
			roles[u.GetName()] = u
		}
	}
	objs := make([]*unstructured.Unstructured, 0, len(v32))
	for _, u := range v32 {
		if old, ok := roles[u.GetName()]; ok && u.GetKind() == "ClusterRole" {
			u = old
		}
		objs = append(objs, u)
	}
	results, _ := replay(t, newCluster(t), r, table, objs)
	failed := map[string]bool{}
	for _, res := range results {
		if res.Problem != "" {
			failed[res.Row+" "+res.Component] = true
		}
	}
	got := slices.Sorted(maps.Keys(failed))
	want := []string{
		"cni-kubevirt-owner cni-plugin",
		"kc-config-status kube-controllers",
		"kc-config-status-get kube-controllers",
		"kc-datastore-migration-crd-watch kube-controllers",
		"kc-kubevirt-ipam-gc kube-controllers",
		"kc-migrator-calico-node-rollout kube-controllers",
		"kc-migrator-create kube-controllers",
		"kc-migrator-delete kube-controllers",
		"kc-migrator-policies kube-controllers",
		"syncer-felix-cluster-network-policy calico-node",
		"syncer-felix-cluster-network-policy typha",
		"syncer-live-migration calico-node",
		"syncer-live-migration typha",
	}
	if !slices.Equal(got, want) {
		t.Errorf("failing rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
