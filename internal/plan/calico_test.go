package plan

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calico-pilot/calico-pilot/internal/calicofacts"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion/calicoversiontest"
	"github.com/calico-pilot/calico-pilot/internal/manifestdiff"
)

// workloads is a manifest with calico-node, Typha and kube-controllers at the given releases ("" =
// not deployed).
func workloads(node, typha, kc string) string {
	w := func(kind, name, image string) string {
		return fmt.Sprintf(`apiVersion: apps/v1
kind: %s
metadata: {name: %s, namespace: kube-system}
spec:
  selector: {matchLabels: {k8s-app: %s}}
  template:
    metadata: {labels: {k8s-app: %s}}
    spec:
      containers:
      - {name: %s, image: "%s"}
---
`, kind, name, name, name, name, image)
	}
	out := w("DaemonSet", "calico-node", "quay.io/calico/node:"+node)
	if typha != "" {
		out += w("Deployment", "calico-typha-deploy", "quay.io/calico/typha:"+typha)
	}
	if kc != "" {
		out += w("Deployment", "calico-kube-controllers", "quay.io/calico/kube-controllers:"+kc)
	}
	return out
}

func set(t *testing.T, manifest string) *manifestdiff.Set {
	t.Helper()
	return stream(t, "test", manifest)
}

// adjacentLines calls f with the newest releases of each pair of adjacent lines of the catalogue,
// older first.
func adjacentLines(f func(lo, hi calicoversion.Release)) {
	lines := calicoversion.Default().Lines()
	for i := 0; i+1 < len(lines); i++ {
		f(lines[i].Newest(), lines[i+1].Newest())
	}
}

func TestLines(t *testing.T) {
	type tc struct {
		name     string
		manifest string
		want     calicoversion.Deployment
	}
	var tests []tc
	for _, r := range calicoversion.Default().Releases() {
		n := r.Name()
		tests = append(tests,
			tc{"steady " + n, workloads(n, n, n), calicoversion.Steady(r)},
			tc{"no typha " + n, workloads(n, "", n), calicoversion.Steady(r)})
	}
	adjacentLines(func(lo, hi calicoversion.Release) {
		tests = append(tests, tc{"first step up to " + hi.Name(), workloads(hi.Name(), lo.Name(), lo.Name()),
			calicoversion.Deployment{Node: hi, Typha: lo, KubeControllers: lo, CRDs: hi}})
	})
	for _, l := range calicoversion.Default().Lines() {
		// A patch release the catalogue does not carry (retired, or not yet known) counts as the newest
		// release of its line, as a recorded one does (Catalogue.Recorded).
		v := l.Newest().Version()
		v.Patch += 100
		tests = append(tests, tc{"a release " + v.String() + " not carried counts as its line's newest", workloads(v.String(), "", ""), calicoversion.Steady(l.Newest())})
	}
	tests = append(tests,
		tc{"a release of no line of the catalogue", workloads("v3.29.0", "", ""), calicoversion.Deployment{}},
		tc{"no calico-node", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: ns}\n", calicoversion.Deployment{}})
	for _, tt := range tests {
		if got := Lines(set(t, tt.manifest)); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func restartSteps(t *testing.T, rs []Restart) []string {
	t.Helper()
	var out []string
	for _, r := range rs {
		if len(r.Reasons) == 0 {
			t.Errorf("%s restarts without a reason", r.Workload)
		}
		out = append(out, fmt.Sprintf("%d %s", r.Step, r.Workload))
	}
	return out
}

func classified(t *testing.T, from, to calicoversion.Release) *manifestdiff.Diff {
	t.Helper()
	d := manifestdiff.Compare(set(t, workloads(from.Name(), from.Name(), from.Name())), set(t, workloads(to.Name(), to.Name(), to.Name())))
	manifestdiff.DefaultClassifier().Classify(d)
	return d
}

// TestRestartsInCalicosOrder: going up calico-node rolls first, going down Typha and kube-controllers;
// a patch move and a change without a move restart everything in one step.
func TestRestartsInCalicosOrder(t *testing.T) {
	adjacentLines(func(lo, hi calicoversion.Release) {
		if diff := cmp.Diff([]string{"1 DaemonSet kube-system/calico-node", "2 Deployment kube-system/calico-kube-controllers", "2 Deployment kube-system/calico-typha-deploy"},
			restartSteps(t, restartsIn(calicoversion.Default(), classified(t, lo, hi), lo, hi))); diff != "" {
			t.Errorf("up %s -> %s (-want +got):\n%s", lo, hi, diff)
		}
		if diff := cmp.Diff([]string{"1 Deployment kube-system/calico-kube-controllers", "1 Deployment kube-system/calico-typha-deploy", "2 DaemonSet kube-system/calico-node"},
			restartSteps(t, restartsIn(calicoversion.Default(), classified(t, hi, lo), hi, lo))); diff != "" {
			t.Errorf("down %s -> %s (-want +got):\n%s", hi, lo, diff)
		}
		// Without a move (a config change), every restart is the first step.
		if diff := cmp.Diff([]string{"1 DaemonSet kube-system/calico-node", "1 Deployment kube-system/calico-kube-controllers", "1 Deployment kube-system/calico-typha-deploy"},
			restartSteps(t, restartsIn(calicoversion.Default(), classified(t, lo, hi), hi, hi))); diff != "" {
			t.Errorf("no move (-want +got):\n%s", diff)
		}
	})
	patches := 0
	for _, l := range calicoversion.Default().Lines() {
		rs := l.Releases()
		for i := 0; i+1 < len(rs); i++ {
			patches++
			for _, m := range [][2]calicoversion.Release{{rs[i], rs[i+1]}, {rs[i+1], rs[i]}} {
				if diff := cmp.Diff([]string{"1 DaemonSet kube-system/calico-node", "1 Deployment kube-system/calico-kube-controllers", "1 Deployment kube-system/calico-typha-deploy"},
					restartSteps(t, restartsIn(calicoversion.Default(), classified(t, m[0], m[1]), m[0], m[1]))); diff != "" {
					t.Errorf("patch move %s -> %s: every component in one step (-want +got):\n%s", m[0], m[1], diff)
				}
			}
		}
	}
	if patches == 0 {
		t.Error("the catalogue has no line with two releases: the patch move is not tested")
	}
}

func TestMoveBlockers(t *testing.T) {
	cat := calicoversion.Default()
	v31, _ := cat.Line("v3.31")
	v32, _ := cat.Line("v3.32")
	from, to := v32.Newest(), v31.Newest()
	d := manifestdiff.Compare(set(t, workloads(from.Name(), "", "")), set(t, workloads(to.Name(), "", "")))
	manifestdiff.DefaultClassifier().Classify(d)
	cnp := calicofacts.Kind{APIVersion: "policy.networking.k8s.io/v1alpha2", Kind: "ClusterNetworkPolicy"}
	objects := calicofacts.Objects{cnp: {{"metadata": map[string]any{"name": "deny-egress"}}}}
	move, err := cat.Plan(from, to)
	if err != nil {
		t.Fatal(err)
	}
	m := NewMove(calicoversion.Steady(from), move.Deployment(calicoversion.PhaseComplete, from), d, "1.36.0", objects)
	if want := fmt.Sprintf("v3.31 (%s), CRDs v3.32", to); m.Direction != "down" || m.Current != "v3.32 ("+from.Name()+")" || m.Target != want {
		t.Errorf("move %s: %s -> %s, want down to %s", m.Direction, m.Current, m.Target, want)
	}
	var got []string
	for _, b := range m.Blockers() {
		got = append(got, b.Object)
	}
	if diff := cmp.Diff([]string{"Calico kubernetes-range", "Calico down.cluster-network-policy"}, got); diff != "" {
		t.Errorf("blockers (-want +got):\n%s", diff)
	}
	if msg := m.Blockers()[1].Message; !strings.Contains(msg, "1 object(s): ClusterNetworkPolicy.policy.networking.k8s.io deny-egress: not enforced by v3.31; rewrite each") {
		t.Errorf("message %q", msg)
	}
	// Without the shoot's objects or a move, nothing blocks.
	if b := NewMove(calicoversion.Steady(from), calicoversion.Steady(to), d, "1.35.0", nil).Blockers(); len(b) != 0 {
		t.Errorf("blockers without live checks: %v", b)
	}
	if m := NewMove(calicoversion.Steady(to), calicoversion.Steady(to), d, "1.36.0", nil); len(m.Facts) != 0 || m.Direction != "none" {
		t.Errorf("no move: %s, %d facts", m.Direction, len(m.Facts))
	}
}

// TestPatchMove: a move within a line is "patch", has no facts of a line move and nothing blocks it.
func TestPatchMove(t *testing.T) {
	for _, l := range calicoversion.Default().Lines() {
		rs := l.Releases()
		for i := 0; i+1 < len(rs); i++ {
			for _, m := range [][2]calicoversion.Release{{rs[i], rs[i+1]}, {rs[i+1], rs[i]}} {
				mv := NewMove(calicoversion.Steady(m[0]), calicoversion.Steady(m[1]), classified(t, m[0], m[1]), "", nil)
				if mv.Direction != "patch" || len(mv.Facts) != 0 || len(mv.Blockers()) != 0 {
					t.Errorf("%s -> %s: direction %s, %d facts, %d blockers; want patch, none, none", m[0], m[1], mv.Direction, len(mv.Facts), len(mv.Blockers()))
				}
				for _, r := range mv.Restarts {
					if r.Step != 1 {
						t.Errorf("%s -> %s: %s restarts in step %d, want 1", m[0], m[1], r.Workload, r.Step)
					}
				}
			}
		}
	}
}

// TestNewKnownIssues: a plan shows the known issues of the releases it moves components to, for the
// component each is about, once, and not those the component runs already.
func TestNewKnownIssues(t *testing.T) {
	cat := calicoversion.Default()
	found := 0
	for _, to := range cat.Releases() {
		for _, k := range to.KnownIssues() {
			for _, from := range cat.Releases() {
				if _, err := cat.Plan(from, to); err != nil || from == to {
					continue
				}
				found++
				had := false
				for _, h := range from.KnownIssues() {
					had = had || h.ID == k.ID
				}
				got := NewKnownIssues(calicoversion.Steady(from), calicoversion.Steady(to))
				var ids []string
				for _, g := range got {
					ids = append(ids, g.ID)
					if g.ID == k.ID && (g.Release != to.Name() || g.Title != k.Title || g.Action != k.Action || g.Component != string(k.Component)) {
						t.Errorf("%s -> %s: %+v, want the catalogue's entry of %s", from, to, g, to)
					}
				}
				if !had != slices.Contains(ids, k.ID) {
					t.Errorf("%s -> %s: known issues %v; %s is new: %v", from, to, ids, k.ID, !had)
				}
				// Nothing new once the target runs everywhere.
				if again := NewKnownIssues(calicoversion.Steady(to), calicoversion.Steady(to)); len(again) != 0 {
					t.Errorf("%s -> %s: known issues %v", to, to, again)
				}
				move, _ := cat.Plan(from, to)
				for _, phase := range []calicoversion.Phase{move.FirstPhase(), calicoversion.PhaseComplete} {
					// A step that moves the issue's component shows it; one that does not, not yet.
					dep := move.Deployment(phase, to)
					moved := dep.Of(k.Component) == to
					ids = nil
					for _, g := range NewKnownIssues(calicoversion.Steady(from), dep) {
						ids = append(ids, g.ID)
					}
					if want := moved && !had; slices.Contains(ids, k.ID) != want {
						t.Errorf("%s -> %s phase %s (%s): known issues %v, want %s: %v", from, to, phase, dep, ids, k.ID, want)
					}
				}
			}
		}
	}
	if found == 0 {
		t.Error("no release of the catalogue has a known issue that a move reaches: the test tests nothing")
	}
	if got := NewKnownIssues(calicoversion.Deployment{}, calicoversion.Deployment{}); got == nil || len(got) != 0 {
		t.Errorf("no target: %#v, want an empty list (JSON [])", got)
	}
}

// TestMoveSkipsLine: a move across more than one line is refused, naming the line to move to first;
// it is a blocker of the plan. The catalogue has a synthetic third line, added as a real one would be.
func TestMoveSkipsLine(t *testing.T) {
	cat := calicoversiontest.WithLines(t, calicoversiontest.V3_33)
	lines := cat.Lines()
	from, mid, to := lines[len(lines)-3].Newest(), lines[len(lines)-2], lines[len(lines)-1].Newest()
	for _, m := range [][2]calicoversion.Release{{from, to}, {to, from}} {
		mv := NewMoveIn(cat, calicoversion.Steady(m[0]), calicoversion.Steady(m[1]), &manifestdiff.Diff{}, "", nil)
		want := fmt.Sprintf("Calico %s to %s skips line %s: a move goes one line at a time, in Calico's order; move to %s first", m[0], m[1], mid, mid)
		if mv.Refused != want {
			t.Errorf("%s -> %s refused %q, want %q", m[0], m[1], mv.Refused, want)
		}
		if b := mv.Blockers(); len(b) == 0 || b[0] != (Blocker{Object: "Calico move", Message: want}) {
			t.Errorf("%s -> %s: blockers %v", m[0], m[1], b)
		}
	}
	// Adjacent lines are not refused.
	if mv := NewMoveIn(cat, calicoversion.Steady(mid.Newest()), calicoversion.Steady(to), &manifestdiff.Diff{}, "", nil); mv.Refused != "" {
		t.Errorf("adjacent: refused %q", mv.Refused)
	}
}

// TestReadRetired: images of a release the catalogue no longer carries run as the newest of its line,
// and Read says which release was retired, once.
func TestReadRetired(t *testing.T) {
	for _, l := range calicoversion.Default().Lines() {
		v := l.Releases()[0].Version()
		if v.Patch == 0 {
			continue
		}
		v.Patch = 0
		run := Read(set(t, workloads(v.String(), v.String(), l.Newest().Name())))
		if run.Deployment != calicoversion.Steady(l.Newest()) {
			t.Errorf("%s: runs as %v, want %v", v, run.Deployment, l.Newest())
		}
		want := []string{fmt.Sprintf("Calico %s is not carried by this calico-pilot (retired); the shoot moves to the newest release of its line, %s.", v, l.Newest())}
		if diff := cmp.Diff(want, RetiredNotes(run.Retired...)); diff != "" {
			t.Errorf("%s: retired (-want +got):\n%s", v, diff)
		}
	}
	if run := Read(set(t, workloads(calicoversion.Default().DefaultRelease().Name(), "", ""))); len(run.Retired) != 0 {
		t.Errorf("a carried release is retired: %v", run.Retired)
	}
}
