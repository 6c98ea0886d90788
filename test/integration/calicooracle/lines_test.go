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
	"github.com/calico-pilot/calico-pilot/internal/calicoversion/calicoversiontest"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
)

// useCRDs puts the CRDs of release r's line on the control plane for the rest of the test (as an
// upgrade does: updated in place, none deleted) and the base release's back afterwards, which the
// suite's other tests use.
func useCRDs(t *testing.T, r calicoversion.Release) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := controlPlane.InstallCalicoCRDs(ctx, r); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := controlPlane.InstallCalicoCRDs(context.Background(), rendertest.Base()); err != nil {
			t.Errorf("putting the base release's CRDs back: %v", err)
		}
	})
}

// renderAt renders a scenario with each component at the release calico says.
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

// only is d with just the named components.
func only(d *calicooracle.Deployment, components ...string) *calicooracle.Deployment {
	cp := *d
	cp.Components = maps.Clone(d.Components)
	maps.DeleteFunc(cp.Components, func(name string, _ calicooracle.Running) bool { return !slices.Contains(components, name) })
	return &cp
}

// componentRelease is the release a component of the oracle's tables runs in deployment d (the CNI
// plugin runs with calico-node).
func componentRelease(d calicoversion.Deployment, component string) calicoversion.Release {
	switch component {
	case "typha":
		return d.Typha
	case "kube-controllers":
		return d.KubeControllers
	}
	return d.Node
}

// TestCalicoMoveStepsAcceptRender replays every move step that runs components at different
// releases, or components on a newer line's CRDs (rendertest.MoveScenarios: a line move's first step,
// a move down's last), on its CRDs, for the families default, calico-ipam and typha-disabled: each
// component makes the requests of the table of the release it runs (calicooracle.LoadFor), in
// Calico's order, under the roles rendered for that step. The one problem the facts predict is a
// kube-controllers without the status subresource (v3.31) on CRDs that have it (v3.32): its status
// written with the object is not stored, and kube-controllers still runs (v3.32 docs/calico-v3.32.md §6
// "KubeControllersConfiguration").
func TestCalicoMoveStepsAcceptRender(t *testing.T) {
	moves := rendertest.MoveScenarios()
	if len(moves) == 0 {
		t.Fatal("the catalogue has no move step that mixes releases or CRDs")
	}
	for _, mv := range moves {
		d := mv.Deployment()
		t.Run(mv.Name, func(t *testing.T) {
			useCRDs(t, d.CRDs)
			tables := map[calicoversion.Release]*calicooracle.Table{}
			replayers := map[calicoversion.Release]*calicooracle.Replayer{}
			for _, r := range d.Releases() {
				tables[r], replayers[r] = replayerFor(t, r)
			}
			for _, name := range []string{"default", "calico-ipam", "typha-disabled"} {
				t.Run(name, func(t *testing.T) {
					objs := renderAt(t, name, d)
					ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
					defer cancel()
					dep, err := calicooracle.Inspect(tables[d.Node], objs)
					if err != nil {
						t.Fatal(err)
					}
					for _, r := range replayers {
						if err := r.Reset(ctx); err != nil {
							t.Fatal(err)
						}
					}
					newCluster(t).apply(t, objs)
					// Calico's order: the move's steps, each component with its own release's table.
					var results []calicooracle.Result
					for _, step := range [][]string{{"calico-node", "cni-plugin"}, {"typha", "kube-controllers"}} {
						for _, r := range d.Releases() {
							var components []string
							for _, c := range step {
								if componentRelease(d, c) == r {
									components = append(components, c)
								}
							}
							if len(components) == 0 {
								continue
							}
							res, err := replayers[r].Replay(ctx, only(dep, components...))
							if err != nil {
								t.Fatal(err)
							}
							results = append(results, res...)
						}
					}
					findings, err := calicooracle.CheckStartup(tables[d.Node], dep)
					if err != nil {
						t.Fatal(err)
					}
					for _, f := range findings {
						t.Errorf("start-up (calico-node %s): %s", d.Node, f)
					}
					var problems []string
					for _, res := range results {
						if res.Problem != "" {
							problems = append(problems, res.Row+" "+res.Component)
							if res.Row != "kc-config-status" || !strings.Contains(res.Problem, "status") {
								t.Errorf("%s", res)
							}
						}
					}
					_, kc := dep.Components["kube-controllers"]
					want := []string(nil)
					if kc && !d.KubeControllers.Has(calicoversion.KubeControllersStatusSubresource) && d.CRDs.Has(calicoversion.KubeControllersStatusSubresource) {
						want = []string{"kc-config-status kube-controllers"}
					}
					if !slices.Equal(problems, want) {
						t.Errorf("problems %v, want %v (the stale status of docs/calico-v3.32.md §6)", problems, want)
					}
					t.Logf("%d requests replayed (%s)", len(results), d)
				})
			}
		})
	}
}

// TestOracleV3_32CatchesV3_31Roles is the negative control: the roles rendered for v3.31 replayed
// with Calico v3.32.1's table must be refused exactly what v3.32 adds (kube-controllers' /status
// write, the policy-name migrator, the CRD watch, KubeVirt; Felix's and typha's ClusterNetworkPolicy
// and VMIM watches).
func TestOracleV3_32CatchesV3_31Roles(t *testing.T) {
	old, cur := calicoversiontest.Newest(t, "v3.31"), calicoversiontest.Newest(t, "v3.32")
	useCRDs(t, cur)
	table, r := replayerFor(t, cur)
	v31 := renderAt(t, "calico-ipam", calicoversion.Steady(old))
	v32 := renderAt(t, "calico-ipam", calicoversion.Steady(cur))
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
