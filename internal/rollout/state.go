package rollout

import (
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ConfigMapName is the ConfigMap in the controller's namespace that holds the State; StateKey is its
// data key.
const (
	ConfigMapName = "calico-pilot-rollout"
	StateKey      = "state.json"
)

// Bounds of the State: it lives in one ConfigMap (at most 1 MiB), so no text a shoot or an error
// brings in is copied without a cap. With them, one wave of 5,000 shoots that all failed with long
// errors, resumed and failed again, takes about 440 KB (TestStateOf5000FailedShootsFitsAConfigMap).
const (
	// MaxReasonLength caps the reason of a member and of a skipped shoot, in bytes.
	MaxReasonLength = 256
	// MaxErrorExcerpt caps the part of a Network's lastError a reason quotes, in bytes (the whole
	// text stays in the Network's status).
	MaxErrorExcerpt = 160
	// MaxReasonsPerWave is how many failed members of one wave keep their reason; members that
	// fail after those record only that they failed (their Network's status says why).
	MaxReasonsPerWave = 250
	// MaxHaltNamed is how many failed shoots a halt reason names; it counts the others.
	MaxHaltNamed = 5
)

// capText returns s cut to at most limit bytes at a rune boundary, ending in "…" when cut.
func capText(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	const ellipsis = "…"
	cut := max(limit-len(ellipsis), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}

// MemberState is where one shoot of an open wave stands.
type MemberState string

// Member states.
const (
	// MemberPending: moving, or waiting for its move to start.
	MemberPending MemberState = "Pending"
	// MemberSucceeded: on the target release, no move, last operation succeeded, calico-node, Typha and
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
	// Rollout and Target are the rollout's name and target as written (a release or a line); a State
	// of another name or target is replaced by a fresh one.
	Rollout string `json:"rollout"`
	Target  string `json:"target"`
	// TargetRelease is the release the rollout moves its shoots to, fixed when it starts (a target line
	// resolved to its newest release then); empty in a State of a calico-pilot before releases.
	TargetRelease string `json:"targetRelease,omitempty"`
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

// WaveState is one wave's progress. Its members are frozen when it opens. It is stored compactly
// (MarshalJSON); the field tags are the form of the previous version, still read.
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
	Since metav1.Time `json:"since"`
	// Reason says why it failed or is gone, at most MaxReasonLength bytes; "" for a failed member
	// beyond the wave's MaxReasonsPerWave.
	Reason string `json:"reason,omitempty"`
}

// Skip is a shoot a wave selected and does not move.
type Skip struct {
	Shoot  string `json:"shoot"`
	Reason string `json:"reason"`
}

// waveJSON is a WaveState as stored: members with one-letter keys and without the deadline start
// when it is the wave's opening, skipped shoots grouped by reason. Members and Skipped are the form
// the previous calico-pilot version wrote; they are read, never written.
type waveJSON struct {
	Name    string       `json:"name"`
	Opened  *metav1.Time `json:"opened,omitempty"`
	Settled *metav1.Time `json:"settled,omitempty"`
	Done    *metav1.Time `json:"done,omitempty"`
	M       []memberJSON `json:"m,omitempty"`
	Skips   []skipGroup  `json:"skips,omitempty"`
	Members []oldMember  `json:"members,omitempty"`
	Skipped []Skip       `json:"skipped,omitempty"`
}

// memberJSON is a Member as stored.
type memberJSON struct {
	// N is the shoot (control-plane namespace).
	N string `json:"n"`
	// S is the state's code (memberCodes).
	S string `json:"s"`
	// T is when the deadline clock started, in Unix seconds; absent when the wave opened then.
	T int64 `json:"t,omitempty"`
	// R is the reason.
	R string `json:"r,omitempty"`
}

// oldMember is a Member as the previous version stored it.
type oldMember struct {
	Shoot  string      `json:"shoot"`
	State  MemberState `json:"state"`
	Since  metav1.Time `json:"since"`
	Reason string      `json:"reason,omitempty"`
}

// skipGroup are the shoots a wave skipped for one reason.
type skipGroup struct {
	R string   `json:"r"`
	N []string `json:"n"`
}

// memberCodes are the stored codes of the member states.
var memberCodes = map[MemberState]string{MemberPending: "P", MemberSucceeded: "S", MemberFailed: "F", MemberGone: "G"}

// MarshalJSON stores the wave compactly (waveJSON).
func (w WaveState) MarshalJSON() ([]byte, error) {
	out := waveJSON{Name: w.Name, Opened: w.Opened, Settled: w.Settled, Done: w.Done}
	for _, m := range w.Members {
		code, ok := memberCodes[m.State]
		if !ok {
			return nil, fmt.Errorf("member %s of wave %s has an unknown state %q", m.Shoot, w.Name, m.State)
		}
		mj := memberJSON{N: m.Shoot, S: code, R: m.Reason}
		if w.Opened == nil || m.Since.Unix() != w.Opened.Unix() {
			mj.T = m.Since.Unix()
		}
		out.M = append(out.M, mj)
	}
	group := map[string]int{}
	for _, sk := range w.Skipped {
		i, ok := group[sk.Reason]
		if !ok {
			i = len(out.Skips)
			group[sk.Reason] = i
			out.Skips = append(out.Skips, skipGroup{R: sk.Reason})
		}
		out.Skips[i].N = append(out.Skips[i].N, sk.Shoot)
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads a wave stored by this version or the previous one.
func (w *WaveState) UnmarshalJSON(raw []byte) error {
	var in waveJSON
	if err := json.Unmarshal(raw, &in); err != nil {
		return err
	}
	*w = WaveState{Name: in.Name, Opened: in.Opened, Settled: in.Settled, Done: in.Done}
	for _, m := range in.Members {
		w.Members = append(w.Members, Member(m))
	}
	for _, m := range in.M {
		var state MemberState
		for st, code := range memberCodes {
			if code == m.S {
				state = st
			}
		}
		if state == "" {
			return fmt.Errorf("member %s of wave %s has an unknown state %q", m.N, in.Name, m.S)
		}
		member := Member{Shoot: m.N, State: state, Reason: m.R}
		switch {
		case m.T != 0:
			member.Since = metav1.NewTime(time.Unix(m.T, 0))
		case in.Opened != nil:
			member.Since = *in.Opened
		}
		w.Members = append(w.Members, member)
	}
	w.Skipped = append(w.Skipped, in.Skipped...)
	for _, g := range in.Skips {
		for _, ns := range g.N {
			w.Skipped = append(w.Skipped, Skip{Shoot: ns, Reason: g.R})
		}
	}
	return nil
}

// Decode reads a State from the ConfigMap's data (an empty State when there is none). It reads the
// State as this version writes it and as the previous one did.
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
				out[m.Shoot] = Assignment{Rollout: s.Rollout, Target: s.release()}
			}
		}
	}
	return out
}

// Assignment is what an open wave asks of one shoot.
type Assignment struct {
	// Rollout names the rollout; Target is the release it moves to ("v3.32.1").
	Rollout, Target string
}

// release is the release the rollout moves to: TargetRelease, or Target in a State that has none.
func (s State) release() string {
	if s.TargetRelease != "" {
		return s.TargetRelease
	}
	return s.Target
}

// sameTarget says whether the State belongs to the spec's target: the same target as written, or,
// for a State of a calico-pilot before releases (which recorded the target's line and no release),
// the same line.
func (s State) sameTarget(spec *Spec) bool {
	if s.Target == spec.TargetName {
		return true
	}
	return s.TargetRelease == "" && s.Target == spec.Target.Line().Name()
}
