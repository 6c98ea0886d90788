package rollout

import (
	"encoding/json"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ConfigMapName is the ConfigMap in the controller's namespace that holds the State; StateKey is its
// data key.
const (
	ConfigMapName = "calico-pilot-rollout"
	StateKey      = "state.json"
)

// MemberState is where one shoot of an open wave stands.
type MemberState string

// Member states.
const (
	// MemberPending: moving, or waiting for its move to start.
	MemberPending MemberState = "Pending"
	// MemberSucceeded: on the target line, no move, last operation succeeded, calico-node, Typha and
	// kube-controllers rolled out (Typha and kube-controllers when present).
	MemberSucceeded MemberState = "Succeeded"
	// MemberFailed: not succeeded within the wave's deadline, or its Network's reconcile failed.
	MemberFailed MemberState = "Failed"
	// MemberGone: the Network disappeared (the shoot was deleted); it counts neither way.
	MemberGone MemberState = "Gone"
)

// State is the recorded progress of one rollout; the Controller is its only writer, besides
// `calico-pilot rollout resume` (Resume).
type State struct {
	// Rollout and Target are the rollout's name and target line; a State of another name or target
	// is replaced by a fresh one.
	Rollout string `json:"rollout"`
	Target  string `json:"target"`
	// Halted is set when a wave exceeded its failure budget: no shoot starts a move until resumed.
	Halted *Halt `json:"halted,omitempty"`
	// Completed is when the last wave's soak ended.
	Completed *metav1.Time `json:"completed,omitempty"`
	// Waves, in the spec's order.
	Waves []WaveState `json:"waves"`
}

// DeepCopy returns a State that shares nothing with s.
func (s State) DeepCopy() State {
	out := s
	if s.Halted != nil {
		h := *s.Halted
		out.Halted = &h
	}
	if s.Completed != nil {
		c := *s.Completed
		out.Completed = &c
	}
	out.Waves = make([]WaveState, len(s.Waves))
	for i, w := range s.Waves {
		for _, t := range []**metav1.Time{&w.Opened, &w.Settled, &w.Done} {
			if *t != nil {
				v := **t
				*t = &v
			}
		}
		w.Members = append([]Member(nil), w.Members...)
		w.Skipped = append([]Skip(nil), w.Skipped...)
		out.Waves[i] = w
	}
	return out
}

// Halt says why the rollout stopped.
type Halt struct {
	Wave   string      `json:"wave"`
	At     metav1.Time `json:"at"`
	Reason string      `json:"reason"`
}

// WaveState is one wave's progress. Its members are frozen when it opens.
type WaveState struct {
	Name string `json:"name"`
	// Opened is when the members were chosen and allowed to move; nil while the wave waits.
	Opened *metav1.Time `json:"opened,omitempty"`
	// Settled is when no member was pending any more (the soak starts).
	Settled *metav1.Time `json:"settled,omitempty"`
	// Done is when the soak ended: the next wave may open.
	Done    *metav1.Time `json:"done,omitempty"`
	Members []Member     `json:"members,omitempty"`
	// Skipped are the shoots the wave selected but does not move, with the reason.
	Skipped []Skip `json:"skipped,omitempty"`
}

// Member is one shoot of a wave.
type Member struct {
	// Shoot is the shoot's control-plane namespace.
	Shoot string      `json:"shoot"`
	State MemberState `json:"state"`
	// Since starts the deadline clock when the move has not started yet: the wave's opening or the
	// last resume.
	Since  metav1.Time `json:"since"`
	Reason string      `json:"reason,omitempty"`
}

// Skip is a shoot a wave selected and does not move.
type Skip struct {
	Shoot  string `json:"shoot"`
	Reason string `json:"reason"`
}

// Decode reads a State from the ConfigMap's data (an empty State when there is none).
func Decode(data map[string]string) (State, error) {
	var s State
	raw, ok := data[StateKey]
	if !ok || raw == "" {
		return s, nil
	}
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return State{}, fmt.Errorf("decoding the rollout state (ConfigMap %s key %s): %w", ConfigMapName, StateKey, err)
	}
	return s, nil
}

// Encode writes a State as the ConfigMap's data.
func (s State) Encode() (map[string]string, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encoding the rollout state: %w", err)
	}
	return map[string]string{StateKey: string(raw)}, nil
}

// Resume clears a halt. The failed members of the halted wave are pending again with a fresh
// deadline from now: one that recovered succeeds, one still broken fails again after the deadline
// and halts the rollout again (so a shoot that cannot move must be pinned, or the wave's
// maxFailures raised, to go past it). It reports whether there was a halt to clear.
func Resume(s *State, now time.Time) bool {
	if s.Halted == nil {
		return false
	}
	for i := range s.Waves {
		w := &s.Waves[i]
		if w.Name != s.Halted.Wave {
			continue
		}
		for j := range w.Members {
			if w.Members[j].State == MemberFailed {
				w.Members[j] = Member{Shoot: w.Members[j].Shoot, State: MemberPending, Since: metav1.NewTime(now)}
			}
		}
		w.Settled = nil
	}
	s.Halted = nil
	return true
}

// Assignments are the shoots allowed to move and where to: the members of every opened wave, as
// long as the rollout is not halted. Halting takes every shoot out (no new move starts; moves in
// progress finish, nothing goes back).
func (s State) Assignments() map[string]Assignment {
	out := map[string]Assignment{}
	if s.Halted != nil || s.Rollout == "" {
		return out
	}
	for _, w := range s.Waves {
		if w.Opened == nil {
			continue
		}
		for _, m := range w.Members {
			if m.State != MemberGone {
				out[m.Shoot] = Assignment{Rollout: s.Rollout, Target: s.Target}
			}
		}
	}
	return out
}

// Assignment is what an open wave asks of one shoot.
type Assignment struct {
	// Rollout names the rollout; Target is the line ("v3.32").
	Rollout, Target string
}
