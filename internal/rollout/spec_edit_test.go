package rollout_test

import (
	"strings"
	"testing"
	"time"

	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/rollout"
)

// halted returns a rollout halted in its first wave "canary" (one of two members failed, budget 0)
// and the shoots it saw.
func halted(t *testing.T, sp *rollout.Spec, now time.Time) (rollout.State, map[string]rollout.Shoot) {
	t.Helper()
	shoots := fleet(4)
	st, _ := rollout.Evaluate(sp, rollout.State{}, shoots, allComplete, now)
	move(shoots, st)
	broken := rollout.Order(shoots)[0]
	observe := func(ns string) (rollout.Components, error) {
		if ns == broken {
			c := complete
			c.KubeControllers = rollout.Component{Name: "calico-kube-controllers", Found: true, Desired: 1, Unavailable: 1}
			return c, nil
		}
		return complete, nil
	}
	st, _ = rollout.Evaluate(sp, st, shoots, observe, now.Add(11*time.Minute))
	if st.Halted == nil || st.Halted.Wave != "canary" {
		t.Fatalf("setup: want halted in canary, got %+v", st.Halted)
	}
	return st, shoots
}

// TestWaveEditsKeepTheHalt: no edit of the waves lifts a halt or reopens a wave: adding, removing,
// renaming, reordering waves or changing their parameters keeps the halt and what the opened waves
// recorded; only `rollout resume` or a new rollout name or target clears it.
func TestWaveEditsKeepTheHalt(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	base := []configv1alpha1.Wave{percentWave("canary", 50), percentWave("all", 100)}
	for _, tc := range []struct {
		name  string
		waves []configv1alpha1.Wave
		// resumedHalt is the reason of the halt that follows a resume ("" none).
		resumedHalt string
	}{
		{name: "a wave added", waves: append(append([]configv1alpha1.Wave{}, base...), percentWave("late", 100))},
		{name: "a wave added before the halted one", waves: []configv1alpha1.Wave{percentWave("first", 10), percentWave("canary", 50), percentWave("all", 100)}},
		{name: "a waiting wave removed", waves: base[:1]},
		{name: "a waiting wave renamed", waves: []configv1alpha1.Wave{percentWave("canary", 50), percentWave("everyone", 100)}},
		// The wave that opened is gone from the spec: after the resume its members would move under
		// no wave, so the rollout halts again and says why.
		{name: "the halted wave renamed", waves: []configv1alpha1.Wave{percentWave("pilot", 50), percentWave("all", 100)},
			resumedHalt: "wave canary opened and is no longer in calico.rollout.waves: put it back (its members keep their place) or start a rollout of a new name"},
		{name: "the halted wave's budget raised", waves: func() []configv1alpha1.Wave {
			w := percentWave("canary", 50)
			w.MaxFailures = new(int32)
			*w.MaxFailures = 3
			return []configv1alpha1.Wave{w, percentWave("all", 100)}
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, shoots := halted(t, spec(t, base...), now)
			canary := st.Waves[0]
			next, res := rollout.Evaluate(spec(t, tc.waves...), st, shoots, allComplete, now.Add(time.Hour))
			if next.Halted == nil || *next.Halted != *st.Halted {
				t.Fatalf("halt after the edit: %+v, want %+v", next.Halted, st.Halted)
			}
			if len(res.Opened) != 0 || len(next.Assignments()) != 0 {
				t.Errorf("halted, yet opened %v and assigns %v", res.Opened, next.Assignments())
			}
			if got := next.Waves[0]; got.Name != "canary" || !got.Opened.Equal(canary.Opened) || len(got.Members) != len(canary.Members) || got.Members[0] != canary.Members[0] {
				t.Errorf("the halted wave's record changed: %+v, want %+v", got, canary)
			}
			// Resumed under the edited spec, the halted wave's failed member gets a fresh deadline.
			if !rollout.Resume(&next, now.Add(2*time.Hour)) {
				t.Fatal("nothing to resume")
			}
			next, _ = rollout.Evaluate(spec(t, tc.waves...), next, shoots, allComplete, now.Add(2*time.Hour+time.Minute))
			switch {
			case tc.resumedHalt == "" && next.Halted != nil:
				t.Errorf("halted again after resume with every shoot repaired: %+v", next.Halted)
			case tc.resumedHalt != "" && (next.Halted == nil || next.Halted.Reason != tc.resumedHalt):
				t.Errorf("after resume: halt %+v, want the reason %q", next.Halted, tc.resumedHalt)
			}
		})
	}
	for _, tc := range []struct {
		name string
		r    configv1alpha1.Rollout
	}{
		{"a new rollout name", configv1alpha1.Rollout{Name: "to-32-again", TargetVersion: "v3.32", Waves: base}},
		{"a new target", configv1alpha1.Rollout{Name: "to-32", TargetVersion: "v3.31", Waves: base}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, shoots := halted(t, spec(t, base...), now)
			sp, errs := rollout.ParseSpec(&tc.r)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			next, _ := rollout.Evaluate(sp, st, shoots, allComplete, now.Add(time.Hour))
			if next.Halted != nil || next.Rollout != tc.r.Name || next.Target != sp.TargetName || next.TargetRelease != sp.Target.Name() || next.Waves[0].Opened == nil || !next.Waves[0].Opened.Time.Equal(now.Add(time.Hour)) {
				t.Errorf("want a fresh rollout opened now, got %+v", next)
			}
		})
	}
}

// TestWaveEditsKeepProgress: a rollout in progress keeps its opened waves when the waves are
// edited; a wave that opened and is gone from the spec halts it (its members would otherwise keep
// moving under no wave), saying how to go on.
func TestWaveEditsKeepProgress(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	shoots := fleet(10)
	sp := spec(t, percentWave("canary", 20), percentWave("all", 100))
	st, res := rollout.Evaluate(sp, rollout.State{}, shoots, allComplete, now)
	canary := res.Opened
	// A third wave between the two: the canary stays open with its members, nothing reopens.
	edited := spec(t, percentWave("canary", 20), percentWave("half", 50), percentWave("all", 100))
	next, res := rollout.Evaluate(edited, st, shoots, allComplete, now.Add(time.Minute))
	if len(res.Opened) != 0 || len(next.Waves) != 3 || next.Waves[0].Name != "canary" || !next.Waves[0].Opened.Equal(st.Waves[0].Opened) || next.Waves[1].Name != "half" || next.Waves[2].Name != "all" {
		t.Fatalf("after adding a wave: opened %v, waves %+v", res.Opened, next.Waves)
	}
	move(shoots, next)
	next, _ = rollout.Evaluate(edited, next, shoots, allComplete, now.Add(2*time.Minute))
	next, res = rollout.Evaluate(edited, next, shoots, allComplete, now.Add(4*time.Minute))
	if len(res.Opened) != 3 {
		t.Fatalf("half opened %v, want 3 more shoots (50 %% of 10 minus the canary's %d)", res.Opened, len(canary))
	}
	// The open wave "half" removed from the spec: halted, naming it.
	dropped := spec(t, percentWave("canary", 20), percentWave("all", 100))
	next, res = rollout.Evaluate(dropped, next, shoots, allComplete, now.Add(5*time.Minute))
	if !res.Halted || next.Halted == nil || next.Halted.Wave != "half" || !strings.Contains(next.Halted.Reason, `wave half opened and is no longer in calico.rollout.waves`) {
		t.Fatalf("removing an open wave: halted %+v", next.Halted)
	}
	if len(next.Waves) != 3 || next.Waves[1].Name != "half" || len(next.Waves[1].Members) != 3 {
		t.Errorf("the removed wave's record is gone: %+v", next.Waves)
	}
}
