package deploy_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
)

// selectorRow is one row of docs/compatibility.md's selector table.
type selectorRow struct {
	workload, ours, reference string
}

// selectorTable reads the table between the selectors:begin and selectors:end markers; <release> is
// replaced by the release name.
func selectorTable(t *testing.T, release string) map[string]selectorRow {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "docs", "compatibility.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "<!-- selectors:begin")
	table, _, ok2 := strings.Cut(rest, "<!-- selectors:end -->")
	if !ok || !ok2 {
		t.Fatal("docs/compatibility.md has no selectors:begin/end table")
	}
	rows := map[string]selectorRow{}
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 6 || !strings.Contains(cells[1], "`") {
			continue
		}
		clean := func(s string) string {
			return strings.ReplaceAll(strings.Trim(strings.TrimSpace(s), "`"), "<release>", release)
		}
		// "DaemonSet `calico-node`" and "Deployment `<release>` (seed chart...)" -> "DaemonSet calico-node".
		kind, rest, _ := strings.Cut(strings.TrimSpace(cells[1]), " ")
		name := clean(strings.SplitN(rest, "`", 3)[1])
		rows[kind+" "+name] = selectorRow{workload: kind + " " + name, ours: clean(cells[2]), reference: clean(cells[3])}
	}
	return rows
}

// selectorString writes a matchLabels selector as the table does: sorted as written in the table is
// not required, so both sides are normalized by sorting.
func selectorString(s *metav1.LabelSelector) string {
	if s == nil {
		return ""
	}
	var parts []string
	for k, v := range s.MatchLabels {
		parts = append(parts, k+"="+v)
	}
	for _, e := range s.MatchExpressions {
		parts = append(parts, e.String())
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func normalizeSelector(s string) string {
	parts := strings.Split(s, ",")
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// TestWorkloadSelectors (issue 30 item 1): every Deployment and DaemonSet of the seed chart, the
// admission chart and the shoot manifest (every scenario, both compatibility modes) selects as
// docs/compatibility.md's table says, and every workload a swap takes over selects as the
// reference's: a selector cannot change in place, so any difference stops the swap at that object.
func TestWorkloadSelectors(t *testing.T) {
	const releaseName = "networking-calico"
	rows := selectorTable(t, releaseName)
	got := map[string]map[string]bool{} // workload -> selectors seen

	see := func(kind, name string, sel *metav1.LabelSelector) {
		key := kind + " " + name
		if got[key] == nil {
			got[key] = map[string]bool{}
		}
		got[key][selectorString(sel)] = true
	}
	seeRendered := func(objs []rendered) {
		for _, r := range objs {
			switch r.obj.GetKind() {
			case "Deployment":
				d := &appsv1.Deployment{}
				into(t, r.obj, d)
				see("Deployment", d.Name, d.Spec.Selector)
			case "DaemonSet":
				d := &appsv1.DaemonSet{}
				into(t, r.obj, d)
				see("DaemonSet", d.Name, d.Spec.Selector)
			}
		}
	}

	// The admission chart as gardener-operator deploys it, and the seed chart as gardenlet does (with
	// its in-cluster admission on, to cover that Deployment too).
	admission, err := renderAdmissionChart(t, operatorRuntimeValues, release{name: releaseName, namespace: "garden"})
	if err != nil {
		t.Fatal(err)
	}
	seeRendered(admission)
	seed, err := renderChart(withAdmission(), release{name: releaseName, namespace: "extension-networking-calico-7xk2p"})
	if err != nil {
		t.Fatal(err)
	}
	seeRendered(seed)

	// Every shoot scenario, in both modes.
	for _, sc := range rendertest.Scenarios() {
		for _, mode := range []calicov1alpha1.CompatibilityMode{calicov1alpha1.CompatibilityNative, calicov1alpha1.CompatibilityReference} {
			r, err := rendertest.RenderCompat(sc, nil, mode)
			if err != nil {
				continue // a scenario that does not render in this mode has no workloads to check
			}
			for _, obj := range r.Objects {
				switch w := obj.(type) {
				case *appsv1.Deployment:
					see("Deployment", w.Name, w.Spec.Selector)
				case *appsv1.DaemonSet:
					see("DaemonSet", w.Name, w.Spec.Selector)
				}
			}
		}
	}

	for workload, selectors := range got {
		row, ok := rows[workload]
		if !ok {
			t.Errorf("%s is not in docs/compatibility.md's selector table: add it with the reference's selector (or \"not replaced\")", workload)
			continue
		}
		for sel := range selectors {
			if sel != normalizeSelector(row.ours) {
				t.Errorf("%s selects %s; docs/compatibility.md says %s", workload, sel, row.ours)
			}
		}
		if row.reference != "not replaced" && normalizeSelector(row.reference) != normalizeSelector(row.ours) {
			t.Errorf("%s: calico-pilot selects %s, the reference %s: the swap's update of it would be refused (spec.selector is immutable)", workload, row.ours, row.reference)
		}
	}
	for workload := range rows {
		if got[workload] == nil {
			t.Errorf("docs/compatibility.md's selector table lists %s, which no chart or scenario renders", workload)
		}
	}
}
