package manage

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	standalonev1alpha1 "github.com/calico-pilot/calico-pilot/api/standalone/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/plan"
	"github.com/calico-pilot/calico-pilot/internal/standalone"
)

func conditions(s standalonev1alpha1.ClusterStatus) map[string]string {
	out := map[string]string{}
	for _, c := range s.Conditions {
		out[c.Type] = string(c.Status) + " " + c.Reason
	}
	return out
}

func TestStatusOf(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	st := standalone.State{Release: "v3.31.7", CRDRelease: "v3.32.1"}
	cases := []struct {
		name  string
		res   outcome
		st    standalone.State
		notes []string
		want  map[string]string
	}{
		{"applied", outcome{reason: ReasonApplied}, st, nil,
			map[string]string{"Available": "True Applied", "Progressing": "False Stable", "Degraded": "False AsExpected"}},
		{"blocked", classify(&standalone.BlockedError{Blockers: []plan.Blocker{{Object: "IPPool p", Message: "m"}}}), st, nil,
			map[string]string{"Available": "False Blocked", "Progressing": "False Stable", "Degraded": "True Blocked"}},
		{"moving", outcome{reason: ReasonApplied}, standalone.State{Release: "v3.31.7", Move: &standalone.MoveState{From: "v3.31.7", To: "v3.32.1", Phase: "First"}}, nil,
			map[string]string{"Available": "True Applied", "Progressing": "True Moving", "Degraded": "False AsExpected"}},
		{"rollout timed out", classify(&standalone.RolloutTimeoutError{Message: "timed out after 5m0s waiting for the rollout of calico-node"}), st, nil,
			map[string]string{"Available": "False RolloutTimedOut", "Progressing": "True RolloutTimedOut", "Degraded": "True RolloutTimedOut"}},
		{"components not as asked", outcome{reason: ReasonApplied}, st, []string{"components.goldmane.enabled is true but goldmane does not run"},
			map[string]string{"Available": "True Applied", "Progressing": "False Stable", "Degraded": "True ComponentsNotAsAsked"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := statusOf(standalonev1alpha1.ClusterStatus{}, 3, tc.res, tc.st, true, nil, tc.notes, t0)
			if d := cmp.Diff(tc.want, conditions(s)); d != "" {
				t.Errorf("conditions (-want +got):\n%s", d)
			}
			if s.ObservedGeneration != 3 || s.Release != tc.st.Release {
				t.Errorf("observedGeneration %d, release %q", s.ObservedGeneration, s.Release)
			}
		})
	}
}

// TestStatusOfUnchangedIsUnchanged: a second reconcile with the same outcome yields the same status
// (transition times and lastApplied kept), so nothing is written.
func TestStatusOfUnchangedIsUnchanged(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	st := standalone.State{Release: "v3.31.7", CRDRelease: "v3.31.7"}
	first := statusOf(standalonev1alpha1.ClusterStatus{}, 1, outcome{reason: ReasonApplied}, st, true, nil, nil, t0)
	second := statusOf(first, 1, outcome{reason: ReasonApplied}, st, true, nil, nil, t0.Add(5*time.Minute))
	if d := cmp.Diff(first, second); d != "" {
		t.Errorf("an unchanged reconcile changed the status (-first +second):\n%s", d)
	}
	if first.LastApplied == nil || !first.LastApplied.Time.Equal(t0) {
		t.Errorf("lastApplied %v, want %s", first.LastApplied, t0)
	}
	third := statusOf(second, 2, outcome{reason: ReasonApplied}, st, true, nil, nil, t0.Add(10*time.Minute))
	if !third.LastApplied.Time.Equal(t0.Add(10*time.Minute)) || third.Conditions[0].LastTransitionTime != metav1.NewTime(t0) {
		t.Errorf("a new generation: lastApplied %v, Available since %v", third.LastApplied, third.Conditions[0].LastTransitionTime)
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err    error
		reason string
	}{
		{&standalone.FieldErrors{Errs: field.ErrorList{field.Required(field.NewPath("cluster", "podCIDR"), "state it")}}, ReasonInvalidSpec},
		{&standalone.HeldError{Holder: "me"}, ReasonApplyInProgress},
		{&standalone.AdoptionError{Objects: []string{"x", "y"}}, ReasonAdoptionNeeded},
		{fmt.Errorf("deciding: %w", standalone.ErrDisruptive), ReasonDisruptive},
		{errors.New("boom"), ReasonApplyFailed},
	} {
		if got := classify(tc.err); got.reason != tc.reason || got.message == "" {
			t.Errorf("classify(%v) = %q (%q), want %q", tc.err, got.reason, got.message, tc.reason)
		}
	}
	o := classify(&standalone.BlockedError{Blockers: []plan.Blocker{{Object: "IPPool a", Message: "x"}, {Object: "CRD b", Message: "y"}}})
	if d := cmp.Diff([]string{"IPPool a: x", "CRD b: y"}, o.blockers); d != "" || o.message != `2 blocker(s) refuse the apply (status.blockers): nothing was changed; after reading them, accept them with the annotation calico-pilot.dev/accept-blockers: "IPPool a;CRD b"` {
		t.Errorf("blockers %v (%s), message %q", o.blockers, d, o.message)
	}
	if d := cmp.Diff([]string{"IPPool a", "CRD b"}, acceptedBlockers(" IPPool a;CRD b; ")); d != "" {
		t.Errorf("acceptedBlockers (-want +got):\n%s", d)
	}
}

func TestTagOf(t *testing.T) {
	for in, want := range map[string]string{
		"quay.io/calico/node:v3.31.7":                  "v3.31.7",
		"registry:5000/calico/node:v3.32.1@sha256:abc": "v3.32.1",
		"registry:5000/calico/node":                    "",
	} {
		if got := tagOf(in); got != want {
			t.Errorf("tagOf(%q) = %q, want %q", in, got, want)
		}
	}
}
