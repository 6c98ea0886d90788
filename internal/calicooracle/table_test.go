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
	// One table per line at least, each named after a release of a line of the catalogue.
	lines := map[string]bool{}
	for _, v := range Versions() {
		tv, err := Load(v)
		if err != nil || tv.CalicoVersion != v {
			t.Errorf("Load(%s): %v, %v", v, tv, err)
			continue
		}
		l, ok := calicoversion.Default().Line(v)
		if !ok {
			t.Errorf("table %s: not of a line of the catalogue (%v)", v, calicoversion.Default().LineNames())
		}
		lines[l.Name()] = true
	}
	for _, l := range calicoversion.Default().Lines() {
		if !lines[l.Name()] {
			t.Errorf("line %s has no oracle table", l)
		}
	}
	if _, err := Load("v9.9.9"); err == nil || !strings.Contains(err.Error(), "no oracle table for Calico v9.9.9 (have "+strings.Join(Versions(), ", ")+")") {
		t.Errorf("Load(v9.9.9) error %v", err)
	}
}

// TestLoadFor: every release of the catalogue has a table, the newest of its line not newer than
// it; and the choice among tables is by line and release, checked on a catalogue with releases
// around the tables' (v3.31.5 is older than every v3.31 table, v3.33.0's line has none).
func TestLoadFor(t *testing.T) {
	for _, r := range calicoversion.Default().Releases() {
		tb, err := LoadFor(r)
		if err != nil {
			t.Errorf("LoadFor(%s): %v", r, err)
			continue
		}
		n, err := calicoversion.ParseName(tb.CalicoVersion)
		if err != nil || n.Line() != r.Version().Line() || n.Compare(r.Version()) > 0 {
			t.Errorf("LoadFor(%s) = the table of %s, want one of its line not newer than it", r, tb.CalicoVersion)
		}
		for _, v := range Versions() {
			if o, _ := calicoversion.ParseName(v); o.Line() == n.Line() && o.Compare(n) > 0 && o.Compare(r.Version()) <= 0 {
				t.Errorf("LoadFor(%s) = %s, but %s is newer and not newer than the release", r, tb.CalicoVersion, v)
			}
		}
	}
	d := calicoversion.Default().Data()
	d.Releases = append(d.Releases,
		calicoversion.ReleaseData{Name: "v3.31.5", Line: "v3.31", Images: images("v3.31.5")},
		calicoversion.ReleaseData{Name: "v3.31.9", Line: "v3.31", Follows: "v3.31.7", Images: images("v3.31.9")},
		calicoversion.ReleaseData{Name: "v3.33.0", Line: "v3.33", Follows: "v3.32.1", Images: images("v3.33.0")},
	)
	last := d.Lines[len(d.Lines)-1]
	last.Name, last.CRDs = "v3.33", "v3.33"
	d.Lines = append(d.Lines, last)
	cat, err := calicoversion.New(d)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ release, table, err string }{
		{release: "v3.31.9", table: "v3.31.6"},
		{release: "v3.31.6", table: "v3.31.6"},
		{release: "v3.32.1", table: "v3.32.1"},
		{release: "v3.31.5", err: "no oracle table for Calico v3.31.5: none of line v3.31 at or before it (have v3.31.6, v3.32.1)"},
		{release: "v3.33.0", err: "no oracle table for Calico v3.33.0: none of line v3.33 at or before it (have v3.31.6, v3.32.1)"},
	}
	for _, tt := range tests {
		r, ok := cat.Release(tt.release)
		if !ok {
			t.Fatalf("no release %s in the test catalogue", tt.release)
		}
		tb, err := LoadFor(r)
		switch {
		case tt.err != "":
			if err == nil || err.Error() != tt.err {
				t.Errorf("LoadFor(%s): error %v, want %q", tt.release, err, tt.err)
			}
		case err != nil || tb.CalicoVersion != tt.table:
			t.Errorf("LoadFor(%s) = %v, %v; want the table of %s", tt.release, tb, err, tt.table)
		}
	}
}

// images are the four images of a release.
func images(release string) map[string]string {
	out := map[string]string{}
	for _, name := range calicoversion.AllImageNames() {
		out[name] = "quay.io/calico/" + strings.TrimPrefix(name, "calico-") + ":" + release
	}
	return out
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
		{"own namespace elsewhere", head + fmt.Sprintf(row, "list", "pods", ", namespace: default, ownNamespace: true"), "request 0 (r): ownNamespace needs namespace kube-system (the default layout's), not \"default\""},
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

// TestEveryScenarioStartsUp checks every render scenario's calico-node pod, at every release of the
// catalogue, against the start-up facts of the table of calico-node's release (LoadFor):
// NetworkUnavailable is cleared by a flag that clears it, no pool variable terminates start-up, and
// every FELIX_ variable is one Felix reads.
func TestEveryScenarioStartsUp(t *testing.T) {
	scenarios := rendertest.AtEveryRelease()
	if want := 40 * len(calicoversion.Default().Releases()); len(scenarios) < want {
		t.Fatalf("found %d render scenarios over every release, want at least %d", len(scenarios), want)
	}
	for _, sc := range scenarios {
		t.Run(sc.Name, func(t *testing.T) {
			tb, err := LoadFor(sc.Deployment().Node)
			if err != nil {
				t.Fatal(err)
			}
			objs, err := sc.Unstructured()
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
