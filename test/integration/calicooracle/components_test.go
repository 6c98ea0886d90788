package calicooracle

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/calico-pilot/calico-pilot/internal/calicooracle"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// renderWithComponents renders the default scenario at release r in the tigera operator's layout with
// every optional component on (rendertest.WithComponents). The APIService is left out: nothing serves
// projectcalico.org/v3 in the test cluster, and an unavailable aggregated group only disturbs the
// clients' discovery; it grants nothing.
func renderWithComponents(t *testing.T, r calicoversion.Release) []*unstructured.Unstructured {
	t.Helper()
	sc := rendertest.Scenarios()[0].At(r)
	o, err := sc.Options()
	if err != nil {
		t.Fatal(err)
	}
	o = rendertest.WithComponents(o, layout.TigeraOperator())
	return toUnstructured(t, &o)
}

func toUnstructured(t *testing.T, o *values.Options) []*unstructured.Unstructured {
	t.Helper()
	objs, err := rendertest.Shoot(o)
	if err != nil {
		t.Fatal(err)
	}
	var out []*unstructured.Unstructured
	for _, obj := range objs {
		if obj.GetObjectKind().GroupVersionKind().Kind == "APIService" {
			continue
		}
		raw, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{}
		if err := json.Unmarshal(raw, &u.Object); err != nil {
			t.Fatal(err)
		}
		out = append(out, u)
	}
	return out
}

// replayOperator applies objs (operator layout), replays the table and returns the results.
func replayOperator(t *testing.T, cl *cluster, p *calicooracle.Replayer, table *calicooracle.Table, objs []*unstructured.Unstructured) ([]calicooracle.Result, *calicooracle.Deployment) {
	t.Helper()
	d, err := calicooracle.InspectLayout(table, objs, layout.TigeraOperator())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := p.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	cl.apply(t, objs)
	results, err := p.Replay(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	return results, d
}

// TestReplayOptionalComponents replays, for every release of the catalogue on the CRDs of its line,
// the oracle table with every optional component rendered in the operator's layout: calico-apiserver,
// goldmane and whisker run as their calico-system ServiceAccounts, no request of any component is
// refused, and every row of calico-apiserver is replayed.
func TestReplayOptionalComponents(t *testing.T) {
	t.Cleanup(func() {
		if err := controlPlane.InstallCalicoCRDs(context.Background(), rendertest.Base()); err != nil {
			t.Errorf("putting the base release's CRDs back: %v", err)
		}
	})
	cl := newCluster(t)
	ensureNamespace(t, cl, "calico-system")
	t.Cleanup(func() { cl.apply(t, nil) })
	for _, line := range calicoversion.Default().Lines() {
		useCRDs(t, line.Newest())
		for _, r := range line.Releases() {
			t.Run(r.Name(), func(t *testing.T) {
				table, p := replayerFor(t, r)
				results, d := replayOperator(t, cl, p, table, renderWithComponents(t, r))
				for name, sa := range map[string]string{"calico-apiserver": "calico-apiserver", "goldmane": "goldmane", "whisker": "whisker"} {
					if run, ok := d.Components[name]; !ok || run.ServiceAccount != sa {
						t.Errorf("component %s runs as %+v, want calico-system/%s", name, run, sa)
					}
				}
				replayed := map[string]int{}
				for _, res := range results {
					replayed[res.Row]++
					if res.Problem != "" {
						t.Errorf("%s", res)
					}
				}
				for _, row := range table.Requests {
					if row.Optional() && replayed[row.ID] == 0 {
						t.Errorf("row %s was not replayed", row.ID)
					}
				}
			})
		}
	}
}

// TestOracleCatchesMissingApiserverRules takes each rule of calico-apiserver's roles, and each of its
// bindings, out of the render in turn: some request of calico-apiserver must then be refused, so the
// render grants nothing Calico does not ask for. The ClusterRole and binding of the tiered-policy
// passthrough are for every authenticated user (what calico-apiserver then checks per tier), not for
// calico-apiserver: they are not taken out.
func TestOracleCatchesMissingApiserverRules(t *testing.T) {
	t.Cleanup(func() {
		if err := controlPlane.InstallCalicoCRDs(context.Background(), rendertest.Base()); err != nil {
			t.Errorf("putting the base release's CRDs back: %v", err)
		}
	})
	cl := newCluster(t)
	ensureNamespace(t, cl, "calico-system")
	t.Cleanup(func() { cl.apply(t, nil) })
	n := layout.TigeraOperator().ComponentsOf().APIServer
	roles := []string{n.CRDsRole, n.AuthAccessRole, n.WebhookReaderRole}
	bindings := []string{n.CRDsBinding, n.AuthAccessRole, n.WebhookReaderBinding, n.DelegateAuthBinding, n.AuthReaderBinding}
	for _, line := range calicoversion.Default().Lines() {
		r := line.Newest()
		useCRDs(t, r)
		t.Run(r.Name(), func(t *testing.T) {
			table, p := replayerFor(t, r)
			objs := renderWithComponents(t, r)
			var cuts []cut
			for i, u := range objs {
				if u.GetKind() == "ClusterRole" && slices.Contains(roles, u.GetName()) {
					rules, _, _ := unstructured.NestedSlice(u.Object, "rules")
					for j := range rules {
						cuts = append(cuts, cut{what: fmt.Sprintf("ClusterRole %s rule %d", u.GetName(), j), obj: i, rule: j})
					}
				}
				if (u.GetKind() == "ClusterRoleBinding" || u.GetKind() == "RoleBinding") && slices.Contains(bindings, u.GetName()) {
					cuts = append(cuts, cut{what: u.GetKind() + " " + u.GetName(), obj: i, rule: -1})
				}
			}
			if len(cuts) < len(roles)+len(bindings) {
				t.Fatalf("found %d rules and bindings of calico-apiserver, want at least %d", len(cuts), len(roles)+len(bindings))
			}
			for _, c := range cuts {
				results, _ := replayOperator(t, cl, p, table, c.apply(objs))
				var refused []string
				for _, res := range results {
					if res.Problem != "" {
						if res.Component != "calico-apiserver" {
							t.Errorf("without %s: %s", c.what, res)
						}
						refused = append(refused, res.Row)
					}
				}
				if len(refused) == 0 {
					t.Errorf("without %s no request of calico-apiserver is refused: the render grants what Calico does not ask", c.what)
				} else {
					t.Logf("without %s: %v refused", c.what, slices.Compact(refused))
				}
			}
		})
	}
}

// cut is one rule (rule >= 0) or binding (rule -1) taken out of object obj of a render.
type cut struct {
	what      string
	obj, rule int
}

// apply returns a copy of objs without the cut.
func (c cut) apply(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for i, u := range objs {
		switch {
		case i != c.obj:
			out = append(out, u)
		case c.rule >= 0:
			u = u.DeepCopy()
			rules, _, _ := unstructured.NestedSlice(u.Object, "rules")
			_ = unstructured.SetNestedSlice(u.Object, slices.Delete(rules, c.rule, c.rule+1), "rules")
			out = append(out, u)
		}
	}
	return out
}

// TestEveryMoveStepGrantsBothReleasesToComponents replays, for every step of every move the catalogue
// allows, both releases' oracle tables as every ServiceAccount of the step's render with every optional
// component on (the tigera operator's layout): calico-apiserver's roles, like the core roles, serve both
// releases of the step, so no request of either release is refused while their pods run side by side.
func TestEveryMoveStepGrantsBothReleasesToComponents(t *testing.T) {
	cat := calicoversion.Default()
	t.Cleanup(func() {
		if err := controlPlane.InstallCalicoCRDs(context.Background(), rendertest.Base()); err != nil {
			t.Errorf("putting the base release's CRDs back: %v", err)
		}
	})
	cl := newCluster(t)
	ensureNamespace(t, cl, "calico-system")
	t.Cleanup(func() { cl.apply(t, nil) })
	for _, s := range allowedMoveSteps(t, cat) {
		d := s.move.Deployment(s.phase, calicoversion.Release{})
		t.Run(s.name, func(t *testing.T) {
			useCRDs(t, d.CRDs)
			sc := rendertest.Scenarios()[0]
			sc.Calico = d
			o, err := sc.Options()
			if err != nil {
				t.Fatal(err)
			}
			o = rendertest.WithComponents(o, layout.TigeraOperator())
			objs := toUnstructured(t, &o)
			for _, rel := range []calicoversion.Release{s.move.From, s.move.To} {
				table, p := replayerFor(t, rel)
				results, dep := replayOperator(t, cl, p, table, objs)
				if _, ok := dep.Components["calico-apiserver"]; !ok {
					t.Fatalf("the step's render runs no calico-apiserver: %v", dep.Components)
				}
				apiserver := 0
				for _, res := range results {
					if res.Component == "calico-apiserver" {
						apiserver++
					}
					if res.Answer == "forbidden" {
						t.Errorf("%s (%s): Calico %s's request %s as %s refused", s.name, d, rel, res.Row, res.Component)
					}
				}
				if apiserver == 0 {
					t.Errorf("Calico %s's table made no request as calico-apiserver", rel)
				}
			}
		})
	}
}
