package rollout_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/rollout"
)

func spec(t *testing.T, waves ...configv1alpha1.Wave) *rollout.Spec {
	t.Helper()
	s, errs := rollout.ParseSpec(&configv1alpha1.Rollout{Name: "to-32", TargetVersion: "v3.32", Waves: waves})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return s
}

func percentWave(name string, p int32) configv1alpha1.Wave {
	return configv1alpha1.Wave{Name: name, Percent: ptr.To(p), MinSoak: &metav1.Duration{Duration: time.Minute},
		RolloutDeadline: &metav1.Duration{Duration: 10 * time.Minute}}
}

func v316() calicoversion.Release { r, _ := calicoversion.Default().Release("v3.31.6"); return r }
func v321() calicoversion.Release { r, _ := calicoversion.Default().Release("v3.32.1"); return r }

func fleet(n int) map[string]rollout.Shoot {
	out := map[string]rollout.Shoot{}
	for i := range n {
		ns := fmt.Sprintf("shoot--p--s%02d", i)
		out[ns] = rollout.Shoot{Namespace: ns, KubernetesVersion: "1.34.1", Release: v316(), Reconciled: true}
	}
	return out
}

var complete = rollout.Components{
	Node:  rollout.Component{Name: "calico-node", Found: true, Desired: 3, Updated: 3, Available: 3},
	Typha: rollout.Component{Name: "calico-typha-deploy", Found: true, Desired: 2, Updated: 2, Available: 2},
}

func allComplete(string) (rollout.Components, error) { return complete, nil }

// move plays the actuator: every member of an opened wave reaches the target.
// openAll opens one wave of every shoot ("all", 100%) at 2026-12-03 12:00 UTC: the spec, the
// time and the State.
func openAll(t *testing.T, shoots map[string]rollout.Shoot) (*rollout.Spec, time.Time, rollout.State) {
	t.Helper()
	sp := spec(t, percentWave("all", 100))
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	st, _ := rollout.Evaluate(sp, rollout.State{}, shoots, allComplete, now)
	return sp, now, st
}

func move(shoots map[string]rollout.Shoot, st rollout.State) {
	for ns := range st.Assignments() {
		s := shoots[ns]
		s.Release = v321()
		shoots[ns] = s
	}
}

func TestWavesOpenCumulativelyAfterSoak(t *testing.T) {
	sp := spec(t, percentWave("canary", 10), percentWave("half", 50), percentWave("all", 100))
	shoots := fleet(20)
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	st, res := rollout.Evaluate(sp, rollout.State{}, shoots, allComplete, now)
	if len(res.Opened) != 2 || len(st.Assignments()) != 2 {
		t.Fatalf("canary opened %v, want 2 of 20 shoots", res.Opened)
	}
	canary := st.Assignments()
	// Nothing moved yet: the wave waits, the next does not open.
	st, res = rollout.Evaluate(sp, st, shoots, allComplete, now.Add(time.Minute))
	if len(res.Opened) != 0 || st.Waves[0].Settled != nil {
		t.Fatalf("wave settled before its members moved: %+v", st.Waves[0])
	}
	move(shoots, st)
	st, _ = rollout.Evaluate(sp, st, shoots, allComplete, now.Add(2*time.Minute))
	if st.Waves[0].Settled == nil || st.Waves[1].Opened != nil {
		t.Fatalf("want canary settled and soaking, got %+v", st.Waves)
	}
	st, res = rollout.Evaluate(sp, st, shoots, allComplete, now.Add(3*time.Minute+time.Second))
	if len(res.Opened) != 8 {
		t.Fatalf("half opened %d, want 8 (50 %% of 20 minus the canary's 2)", len(res.Opened))
	}
	for _, ns := range res.Opened {
		if _, ok := canary[ns]; ok {
			t.Errorf("%s is in two waves", ns)
		}
	}
	move(shoots, st)
	st, _ = rollout.Evaluate(sp, st, shoots, allComplete, now.Add(4*time.Minute))
	st, res = rollout.Evaluate(sp, st, shoots, allComplete, now.Add(5*time.Minute+time.Second))
	if len(res.Opened) != 10 {
		t.Fatalf("all opened %d, want 10", len(res.Opened))
	}
	move(shoots, st)
	st, _ = rollout.Evaluate(sp, st, shoots, allComplete, now.Add(6*time.Minute))
	st, _ = rollout.Evaluate(sp, st, shoots, allComplete, now.Add(8*time.Minute))
	if st.Completed == nil || len(st.Assignments()) != 20 {
		t.Fatalf("want completed with 20 members, got %+v", st)
	}
}

func TestHaltsOnFailureBudgetAndResumes(t *testing.T) {
	shoots := fleet(4)
	sp, now, st := openAll(t, shoots)
	move(shoots, st)
	broken := rollout.Order(shoots)[1]
	observe := func(ns string) (rollout.Components, error) {
		if ns == broken {
			c := complete
			c.Node.Updated, c.Node.Available, c.Node.Unavailable = 2, 2, 1
			return c, nil
		}
		return complete, nil
	}
	st, res := rollout.Evaluate(sp, st, shoots, observe, now.Add(5*time.Minute))
	if res.Halted || st.Halted != nil {
		t.Fatalf("halted before the deadline: %+v", st.Halted)
	}
	st, res = rollout.Evaluate(sp, st, shoots, observe, now.Add(11*time.Minute))
	if !res.Halted || st.Halted == nil {
		t.Fatal("not halted after the deadline")
	}
	want := broken + ": calico-node 2/3 updated, 2/3 available, 1 unavailable after 11m0s"
	if !strings.Contains(st.Halted.Reason, want) || !strings.Contains(st.Halted.Reason, "1 of 4 shoots failed, budget 0") {
		t.Errorf("halt reason %q, want it to contain %q", st.Halted.Reason, want)
	}
	if len(st.Assignments()) != 0 {
		t.Error("a halted rollout still assigns shoots")
	}
	// Halted: nothing changes, however long.
	again, _ := rollout.Evaluate(sp, st, shoots, allComplete, now.Add(time.Hour))
	if again.Halted == nil {
		t.Error("a halt cleared itself")
	}
	if !rollout.Resume(&st, now.Add(20*time.Minute)) || st.Halted != nil {
		t.Fatal("resume did not clear the halt")
	}
	st, _ = rollout.Evaluate(sp, st, shoots, allComplete, now.Add(21*time.Minute))
	st, _ = rollout.Evaluate(sp, st, shoots, allComplete, now.Add(23*time.Minute))
	if st.Completed == nil {
		t.Fatalf("the repaired shoot did not let the rollout complete: %+v", st.Waves)
	}
}

func TestSkipsAndSelectors(t *testing.T) {
	sp := spec(t, configv1alpha1.Wave{Name: "dev", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"stage": "dev"}}}, percentWave("rest", 100))
	shoots := fleet(5)
	order := rollout.Order(shoots)
	set := func(i int, f func(*rollout.Shoot)) { s := shoots[order[i]]; f(&s); shoots[order[i]] = s }
	set(0, func(s *rollout.Shoot) { s.Labels = map[string]string{"stage": "dev"} })
	set(1, func(s *rollout.Shoot) { s.Labels = map[string]string{"stage": "dev"}; s.KubernetesVersion = "1.33.2" })
	set(2, func(s *rollout.Shoot) { s.Pin = "v3.31" })
	set(3, func(s *rollout.Shoot) { s.Hibernated = true })
	st, res := rollout.Evaluate(sp, rollout.State{}, shoots, allComplete, time.Now())
	if len(res.Opened) != 1 || res.Opened[0] != order[0] {
		t.Fatalf("dev opened %v, want [%s]", res.Opened, order[0])
	}
	if len(st.Waves[0].Skipped) != 1 || !strings.Contains(st.Waves[0].Skipped[0].Reason, "Kubernetes 1.33.2 is not supported by Calico v3.32.1 (supports 1.34-1.36)") {
		t.Errorf("skipped %+v", st.Waves[0].Skipped)
	}
	sp.Waves[0].MinSoak = 0
	move(shoots, st)
	st, res = rollout.Evaluate(sp, st, shoots, allComplete, time.Now())
	if len(res.Opened) != 1 || res.Opened[0] != order[4] || len(st.Waves[1].Skipped) != 2 {
		t.Fatalf("rest opened %v skipped %+v; want [%s] and the pinned and hibernated shoots skipped", res.Opened, st.Waves[1].Skipped, order[4])
	}
}

func TestParseSpecErrors(t *testing.T) {
	_, errs := rollout.ParseSpec(&configv1alpha1.Rollout{TargetVersion: "v3.30", Waves: []configv1alpha1.Wave{
		{Name: "a", Percent: ptr.To[int32](50)}, {Name: "a", Percent: ptr.To[int32](20)}, {Name: "c"},
	}})
	var got []string
	for _, e := range errs {
		got = append(got, e.Field+": "+e.Detail)
	}
	for _, want := range []string{
		"calico.rollout.name: a rollout needs a name",
		"calico.rollout.targetVersion: Calico \"v3.30\" is not supported; accepted: a line (v3.31, v3.32: its newest release) or a release (v3.31.6, v3.31.7, v3.32.1)",
		"calico.rollout.waves[1].name: ",
		"calico.rollout.waves[1].percent: percentages are cumulative and must not decrease (the wave before has 50)",
		"calico.rollout.waves[2]: exactly one of percent and selector must be set",
	} {
		if !strings.Contains(strings.Join(got, "\n"), want) {
			t.Errorf("errors %q lack %q", got, want)
		}
	}
}

// Evaluate leaves the State it was given alone: the controller writes only when the two differ.
func TestEvaluateDoesNotChangeItsInput(t *testing.T) {
	shoots := fleet(3)
	sp, now, st := openAll(t, shoots)
	before, err := st.Encode()
	if err != nil {
		t.Fatal(err)
	}
	next, _ := rollout.Evaluate(sp, st, shoots, allComplete, now.Add(time.Hour))
	after, _ := st.Encode()
	if before[rollout.StateKey] != after[rollout.StateKey] {
		t.Errorf("Evaluate changed its input:\n%s\n%s", before[rollout.StateKey], after[rollout.StateKey])
	}
	if next.Waves[0].Members[0].State != rollout.MemberFailed {
		t.Errorf("a member still on v3.31 after the deadline is %s, want Failed", next.Waves[0].Members[0].State)
	}
}

// knownIssueAction is what the catalogue says to do about v3.32.1's known issue.
func knownIssueAction(t *testing.T) string {
	t.Helper()
	issues := v321().KnownIssues()
	if len(issues) != 1 {
		t.Fatalf("v3.32.1 known issues %v", issues)
	}
	return issues[0].Action
}

func TestWriteTable(t *testing.T) {
	sp := spec(t, percentWave("canary", 50), percentWave("all", 100))
	shoots := fleet(2)
	order := rollout.Order(shoots)
	pinned := shoots[order[1]]
	pinned.Pin = "v3.31"
	shoots[order[1]] = pinned
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	st, _ := rollout.Evaluate(sp, rollout.State{}, shoots, allComplete, now)
	st, _ = rollout.Evaluate(sp, st, shoots, allComplete, now.Add(11*time.Minute))
	var b strings.Builder
	if err := rollout.WriteTable(&b, st, true); err != nil {
		t.Fatal(err)
	}
	want := "Rollout to-32 to Calico v3.32 (v3.32.1): HALTED in wave canary at 2026-12-03T12:11:00Z: wave canary: 1 of 1 shoots failed, budget 0: " + order[0] + ": still on v3.31.6 after 11m0s\n" +
		"\n" +
		// The target's known issue, with what to do, where it matters.
		"known issue of Calico v3.32.1: calico-kube-controllers: kube-controllers does nothing while any calico-node pod is unavailable (known issue kube-controllers-stalls-while-calico-node-unavailable)\n" +
		"  what to do: " + knownIssueAction(t) + "\n" +
		"\n" +
		"WAVE    STATE    MOVED  SUCCEEDED  FAILED  PENDING  SKIPPED  OPENED\n" +
		"canary  Halted   1      0          1       0        0        2026-12-03T12:00:00Z\n" +
		"all     Waiting  0      0          0       0        0        -\n" +
		"\n" +
		"Shoots that failed, are gone or were skipped:\n" +
		"  canary  " + order[0] + "  Failed: still on v3.31.6 after 11m0s\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := rollout.WriteTable(&b, rollout.State{}, false); err != nil || !strings.Contains(b.String(), "No rollout state") {
		t.Errorf("no state: %q, %v", b.String(), err)
	}
}

// TestReconcileErrorsAgainstTheBudget: a retried Error (Gardener reconciles again) does not fail a
// member while the deadline holds, and fails it with its message after; a Failed operation since the
// member joined fails it at once; a shoot that Failed before its wave opened gets its deadline.
func TestReconcileErrorsAgainstTheBudget(t *testing.T) {
	sp := spec(t, percentWave("all", 100))
	shoots := fleet(3)
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	names := rollout.Order(shoots)
	broken := shoots[names[2]]
	broken.ReconcileError, broken.ReconcileFailed, broken.ReconcileErrorAt = "old trouble", true, now.Add(-time.Hour)
	shoots[names[2]] = broken
	st, _ := rollout.Evaluate(sp, rollout.State{}, shoots, allComplete, now)
	if len(st.Assignments()) != 3 {
		t.Fatalf("members %v, want all 3", st.Assignments())
	}
	transient := shoots[names[0]]
	transient.ReconcileError, transient.ReconcileErrorAt = "conflict storing the ManagedResource", now.Add(time.Minute)
	shoots[names[0]] = transient
	failed := shoots[names[1]]
	failed.ReconcileError, failed.ReconcileFailed, failed.ReconcileErrorAt = "invalid configuration for this shoot", true, now.Add(time.Minute)
	shoots[names[1]] = failed

	st, _ = rollout.Evaluate(sp, st, shoots, allComplete, now.Add(2*time.Minute))
	states := map[string]string{}
	for _, m := range st.Waves[0].Members {
		states[m.Shoot] = string(m.State) + " " + m.Reason
	}
	if got := states[names[0]]; !strings.HasPrefix(got, string(rollout.MemberPending)) {
		t.Errorf("a retried Error within the deadline: %q, want pending", got)
	}
	if got := states[names[1]]; got != string(rollout.MemberFailed)+" reconcile failed: invalid configuration for this shoot" {
		t.Errorf("a Failed operation since the wave opened: %q, want failed at once", got)
	}
	if got := states[names[2]]; !strings.HasPrefix(got, string(rollout.MemberPending)) {
		t.Errorf("Failed before the wave opened: %q, want pending until the deadline", got)
	}
	if st.Halted == nil {
		t.Error("one failure over a budget of 0: want the rollout halted")
	}

	// Past the deadline the lasting Error fails its member, with the error as the reason.
	only := map[string]rollout.Shoot{names[0]: transient}
	st2, _ := rollout.Evaluate(sp, rollout.State{}, only, allComplete, now)
	st2, _ = rollout.Evaluate(sp, st2, only, allComplete, now.Add(11*time.Minute))
	if len(st2.Waves[0].Members) != 1 || st2.Halted == nil {
		t.Errorf("a lasting Error past the deadline: members %+v, halted %v; want its one member failed and the rollout halted", st2.Waves[0].Members, st2.Halted)
	}
	for _, m := range st2.Waves[0].Members {
		if m.Shoot == names[0] && (m.State != rollout.MemberFailed || !strings.Contains(m.Reason, "its last reconcile ended in an error: conflict storing the ManagedResource after 11m")) {
			t.Errorf("a lasting Error past the deadline: %s %q", m.State, m.Reason)
		}
	}
}

// TestKubeControllersHoldsAWaveMember: a member whose calico-node and Typha rolled out but whose
// kube-controllers cannot start does not succeed; past the deadline it fails, naming kube-controllers.
func TestKubeControllersHoldsAWaveMember(t *testing.T) {
	shoots := fleet(1)
	sp, now, st := openAll(t, shoots)
	move(shoots, st)
	observe := func(string) (rollout.Components, error) {
		c := complete
		c.KubeControllers = rollout.Component{Name: "calico-kube-controllers", Found: true, Desired: 1, Updated: 1, Unavailable: 1}
		return c, nil
	}
	st, _ = rollout.Evaluate(sp, st, shoots, observe, now.Add(time.Minute))
	if m := st.Waves[0].Members[0]; m.State != rollout.MemberPending {
		t.Fatalf("member with kube-controllers 0/1 available: %s %q, want Pending", m.State, m.Reason)
	}
	st, _ = rollout.Evaluate(sp, st, shoots, observe, now.Add(11*time.Minute))
	m := st.Waves[0].Members[0]
	if want := "calico-kube-controllers 1/1 updated, 0/1 available, 1 unavailable after 11m0s"; m.State != rollout.MemberFailed || m.Reason != want {
		t.Errorf("member: %s %q, want Failed %q", m.State, m.Reason, want)
	}
	if st.Halted == nil {
		t.Error("want the rollout halted")
	}
}

// TestTargetReleaseIsFixed: the release a rollout moves to is fixed when it starts and recorded; a
// State written before releases (the line only) keeps its progress and halt under the same target,
// whether the spec names the line or the release; a recorded target release the catalogue no longer
// carries goes to the newest of its line.
func TestTargetReleaseIsFixed(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	halt := &rollout.Halt{Wave: "canary", At: metav1.NewTime(now), Reason: "r"}
	for _, tt := range []struct {
		name, written string
		old           rollout.State
		wantRelease   string
	}{
		{"state of the previous version, target as a line", "v3.32", rollout.State{Rollout: "to-32", Target: "v3.32", Halted: halt}, "v3.32.1"},
		{"state of the previous version, spec names the release", "v3.32.1", rollout.State{Rollout: "to-32", Target: "v3.32", Halted: halt}, "v3.32.1"},
		{"recorded release retired", "v3.32", rollout.State{Rollout: "to-32", Target: "v3.32", TargetRelease: "v3.32.0", Halted: halt}, "v3.32.1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sp, errs := rollout.ParseSpec(&configv1alpha1.Rollout{Name: "to-32", TargetVersion: tt.written, Waves: []configv1alpha1.Wave{percentWave("canary", 100)}})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			tt.old.Waves = []rollout.WaveState{{Name: "canary", Opened: &metav1.Time{Time: now}}}
			st, _ := rollout.Evaluate(sp, tt.old, fleet(2), allComplete, now.Add(time.Minute))
			if st.Halted == nil || st.TargetRelease != tt.wantRelease {
				t.Errorf("halted %v, target release %q; want the halt kept and %s", st.Halted, st.TargetRelease, tt.wantRelease)
			}
		})
	}
	sp, _ := rollout.ParseSpec(&configv1alpha1.Rollout{Name: "to-31", TargetVersion: "v3.31", Waves: []configv1alpha1.Wave{percentWave("canary", 100)}})
	st, _ := rollout.Evaluate(sp, rollout.State{}, fleet(2), allComplete, now)
	if st.Target != "v3.31" || st.TargetRelease != "v3.31.7" {
		t.Errorf("a new rollout to a line records %q / %q, want v3.31 / v3.31.7 (its newest release when it starts)", st.Target, st.TargetRelease)
	}
	for ns, a := range st.Assignments() {
		if a.Target != "v3.31.7" {
			t.Errorf("%s is assigned %q, want the release v3.31.7", ns, a.Target)
		}
	}
}
