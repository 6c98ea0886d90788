package calicooracle

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
)

func load(t *testing.T) *Table {
	t.Helper()
	tb, err := Load("v3.31.6")
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func TestLoad(t *testing.T) {
	tb := load(t)
	if tb.CalicoVersion != "v3.31.6" {
		t.Errorf("calicoVersion %q", tb.CalicoVersion)
	}
	if len(tb.Requests) < 60 {
		t.Errorf("%d rows, want the ~70 of the table", len(tb.Requests))
	}
	if got := Versions(); len(got) != 2 || got[0] != "v3.31.6" || got[1] != "v3.32.1" {
		t.Errorf("Versions() = %v, want one table per supported release", got)
	}
	for _, line := range calicoversion.Supported() {
		tl, err := Load(line.Release)
		if err != nil || tl.CalicoVersion != line.Release {
			t.Errorf("Load(%s): %v, %v", line.Release, tl, err)
		}
	}
	if _, err := Load("v9.9.9"); err == nil || !strings.Contains(err.Error(), "no oracle table for Calico v9.9.9 (have v3.31.6, v3.32.1)") {
		t.Errorf("Load(v9.9.9) error %v", err)
	}
}

// TestParseRejects: a row the replay could not carry out as written is an error naming the row.
func TestParseRejects(t *testing.T) {
	head := "calicoVersion: vX\ncomponents:\n- {name: node, workload: DaemonSet/calico-node}\nrequests:\n"
	row := "- {id: r, components: [node], step: s, need: n, verbs: [%s], resource: %s, answers: [ok]%s}\n"
	tests := []struct {
		name, table, want string
	}{
		{"unknown field", head + "- {id: r, components: [node], step: s, need: n, verbs: [get], resource: nodes, name: x, answers: [ok], typo: 1}\n", `unknown field "typo"`},
		{"unknown component", head + strings.Replace(fmt.Sprintf(row, "get", "nodes", ", name: x"), "[node]", "[felix]", 1), `request 0 (r): unknown component "felix"`},
		{"get without name", head + fmt.Sprintf(row, "get", "nodes", ""), "request 0 (r): get on nodes needs a name"},
		{"create without body", head + fmt.Sprintf(row, "create", "tiers", ", name: x"), "request 0 (r): create needs a body"},
		{"unknown verb", head + fmt.Sprintf(row, "escalate", "nodes", ""), `request 0 (r): unknown verb "escalate"`},
		{"unknown answer", head + strings.Replace(fmt.Sprintf(row, "list", "nodes", ""), "[ok]", "[forbidden]", 1), `request 0 (r): unknown answer "forbidden"`},
		{"unknown condition", head + fmt.Sprintf(row, "list", "nodes", ", when: [ebpf]"), `request 0 (r): unknown condition "ebpf"`},
		{"patch without type", head + fmt.Sprintf(row, "patch", "nodes", ", name: x, body: {a: 1}"), "request 0 (r): patchType must be strategic or merge"},
		{"no why", head + "- {id: r, components: [node], verbs: [list], resource: nodes, answers: [ok]}\n", "request 0 (r): step and need are required"},
		{"duplicate id", head + fmt.Sprintf(row, "list", "nodes", "") + fmt.Sprintf(row, "list", "pods", ""), "request 1 (r): id is empty or used twice"},
		{"component without workload", "calicoVersion: vX\ncomponents:\n- {name: node}\nrequests: []\n", "component node: exactly one of workload and serviceAccount is needed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse([]byte(tt.table))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func readScenario(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	objs, err := ReadRender(dir)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

func checkStartup(t *testing.T, tb *Table, d *Deployment) []string {
	t.Helper()
	f, err := CheckStartup(tb, d)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestEveryScenarioStartsUp checks every render scenario's calico-node pod against the start-up
// facts of calico-node's line: NetworkUnavailable is cleared by a flag that clears it, no pool
// variable terminates start-up, and every FELIX_ variable is one Felix reads. Every scenario of the
// default line is rendered at v3.32 as well (only a few keep whole golden files).
func TestEveryScenarioStartsUp(t *testing.T) {
	scenarios := rendertest.Scenarios()
	if len(scenarios) < 40 {
		t.Fatalf("found %d render scenarios, want the ~45", len(scenarios))
	}
	for _, sc := range scenarios {
		variants := []rendertest.Scenario{sc}
		if sc.Calico.IsZero() {
			at32 := sc
			at32.Calico = calicoversion.Steady(calicoversion.V3_32)
			variants = append(variants, at32)
		}
		for _, v := range variants {
			line := v.Calico.OrDefault().Node
			t.Run(sc.Name+"@"+line.Minor, func(t *testing.T) {
				tb, err := Load(line.Release)
				if err != nil {
					t.Fatal(err)
				}
				objs, err := v.Unstructured()
				if err != nil {
					t.Fatal(err)
				}
				d, err := Inspect(tb, objs)
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range checkStartup(t, tb, d) {
					t.Error(f)
				}
			})
		}
	}
}

// TestCheckStartupFindings: each fact CheckStartup holds finds the defect it is there for.
func TestCheckStartupFindings(t *testing.T) {
	tb := load(t)
	base := func(t *testing.T) *Deployment {
		d, err := Inspect(tb, readScenario(t, filepath.Join("..", "render", "testdata", "shoot", "default")))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	tests := []struct {
		name   string
		change func(d *Deployment)
		want   string
	}{
		{"ensurer runs -startup (the reference's and calico-pilot's defect before issue 19)", func(d *Deployment) {
			for i := range d.Pod.Containers {
				if d.Pod.Containers[i].Name == "network-unavailable-condition-ensurer" {
					d.Pod.Containers[i].Command = []string{"/bin/sh", "-c", "sleep 30\ncalico-node -startup || true\n"}
				}
			}
		}, "container network-unavailable-condition-ensurer runs calico-node -startup, which does not clear NetworkUnavailable in Calico v3.31.6 (-complete-startup does)"},
		{"nothing clears it", func(d *Deployment) {
			var kept = d.Pod.Containers[:0]
			for _, c := range d.Pod.Containers {
				if c.Name == "calico-node" {
					c.Command = []string{"calico-node", "-felix"}
				}
				if c.Name != "network-unavailable-condition-ensurer" {
					kept = append(kept, c)
				}
			}
			d.Pod.Containers = kept
		}, "no container of calico-node clears NetworkUnavailable"},
		{"misspelt Felix variable", func(d *Deployment) { d.Env["FELIX_BPFKUBEPROXYHEALTZPORT"] = "10257" },
			"calico-node: FELIX_BPFKUBEPROXYHEALTZPORT is not a Felix parameter (no FelixConfiguration field bpfkubeproxyhealtzport); Felix ignores it"},
		{"bad encapsulation", func(d *Deployment) { d.Env["CALICO_IPV4POOL_IPIP"] = "Sometimes" },
			`calico-node: CALICO_IPV4POOL_IPIP="Sometimes" terminates start-up`},
		{"no default pools with a CIDR", func(d *Deployment) { d.Env["NO_DEFAULT_POOLS"] = "true" },
			"calico-node: NO_DEFAULT_POOLS=true together with CALICO_IPV4POOL_CIDR terminates start-up"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := base(t)
			if f := checkStartup(t, tb, d); len(f) != 0 {
				t.Fatalf("default scenario has findings before the change: %v", f)
			}
			tt.change(d)
			f := checkStartup(t, tb, d)
			if len(f) != 1 || !strings.HasPrefix(f[0], tt.want) {
				t.Errorf("findings %q, want one starting with %q", f, tt.want)
			}
		})
	}
}
