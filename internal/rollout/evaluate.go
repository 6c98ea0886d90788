package rollout

import (
	"cmp"
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// Shoot is what the rollout sees of one shoot: its Network and Cluster.
type Shoot struct {
	// Namespace is the control-plane namespace (the shoot's identity in the State).
	Namespace string
	// Labels are the Shoot's metadata.labels (selector waves).
	Labels map[string]string
	// KubernetesVersion is the shoot's Kubernetes version.
	KubernetesVersion string
	// Hibernated is true when hibernation is wanted.
	Hibernated bool
	// Pin is the owner's providerConfig calicoVersion ("" when unset).
	Pin string
	// Release is the release the Network's providerStatus records, as the catalogue carries it (a
	// retired one is the newest of its line; unrecorded: the catalogue's unrecorded release).
	Release calicoversion.Release
	// MoveStarted is when the recorded move started; zero when the shoot is not moving.
	MoveStarted time.Time
	// MovePhase is the recorded move's phase.
	MovePhase string
	// Reconciled is true when the Network's last operation succeeded for its current generation.
	Reconciled bool
	// ReconcileError is the Network's lastError description when its last operation ended in Error
	// (Gardener retries it) or Failed (it is not retried).
	ReconcileError string
	// ReconcileFailed is true when the last operation Failed: the extension gave up and only a
	// change of the shoot can help.
	ReconcileFailed bool
	// ReconcileErrorAt is when the last operation got its error state (lastOperation.lastUpdateTime).
	ReconcileErrorAt time.Time
}

// Observe reads a shoot's calico-node, Typha and kube-controllers (through the shoot client); the
// controller passes one that reads the shoot (ReadComponents), tests pass their own.
type Observe func(namespace string) (Components, error)

// Result is what Evaluate changed that the caller acts on.
type Result struct {
	// Opened are the members of the waves opened by this evaluation (their Networks are reconciled
	// at once).
	Opened []string
	// Halted is true when this evaluation halted the rollout.
	Halted bool
}

// Evaluate advances state one step at now: it replaces a State of another rollout name or target,
// aligns the recorded waves with the spec's (alignWaves), then (unless halted) judges the pending members
// of the open wave, halts the rollout when the wave's failure budget is exceeded, closes the wave
// after its soak and opens the next one, choosing its members. An edit of the waves never lifts a
// halt: only Resume or a new name or target does. observe is called only for members whose Network
// says they reached the target without a move.
func Evaluate(spec *Spec, state State, shoots map[string]Shoot, observe Observe, now time.Time) (State, Result) {
	var res Result
	if spec == nil {
		return state, res
	}
	// The caller's State is left as it was (it compares the two to tell whether to write).
	state = state.DeepCopy()
	if state.Rollout != spec.Name || !state.sameTarget(spec) {
		state = State{Rollout: spec.Name, Target: spec.TargetName, TargetRelease: spec.Target.Name()}
	}
	e := evaluation{spec: spec, target: fixTarget(spec, &state), shoots: shoots, observe: observe, now: now}
	state.Waves = alignWaves(spec, state.Waves)
	if state.Halted != nil {
		return state, res
	}
	if state.Completed != nil && !slices.ContainsFunc(state.Waves, func(w WaveState) bool { return w.Done == nil }) {
		return state, res
	}
	// A wave added to a completed rollout opens like any other.
	state.Completed = nil
	for i := range state.Waves {
		if state.Waves[i].Done != nil {
			continue
		}
		if !e.advance(&state, i, &res) {
			return state, res
		}
	}
	state.Completed = ptrTime(now)
	return state, res
}

// fixTarget returns the release the rollout moves to, recording it in state: it is fixed when the
// rollout starts, so a calico-pilot that adds a release to a target line does not move the
// rollout's shoots again (a State of the previous version, which recorded only the line, gets the
// release it moved to).
func fixTarget(spec *Spec, state *State) calicoversion.Release {
	if state.TargetRelease == "" {
		state.TargetRelease = spec.Target.Name()
	}
	target := spec.Target
	if r, err := calicoversion.Default().Recorded(state.TargetRelease); err == nil && !r.Release.IsZero() {
		// A target release this calico-pilot no longer carries goes to the newest of its line.
		target = r.Release
		state.TargetRelease = target.Name()
	}
	return target
}

// evaluation is what one Evaluate advances the open wave with: the spec, the target release, the
// shoots, how to observe one, and the time.
type evaluation struct {
	spec    *Spec
	target  calicoversion.Release
	shoots  map[string]Shoot
	observe Observe
	now     time.Time
}

// advance takes wave i (not done) one step: it halts on a wave no longer in the spec, opens the
// wave, judges its members, halts when its failure budget is exceeded, and marks it settled and,
// after its soak, done. It reports whether the wave is done, so that the next one opens.
func (e evaluation) advance(state *State, i int, res *Result) bool {
	w := &state.Waves[i]
	ws, ok := e.spec.wave(w.Name)
	if !ok {
		// Only an opened wave is kept without its spec (alignWaves): its members would go on moving
		// under no deadline and no budget.
		state.Halted = &Halt{Wave: w.Name, At: metav1.NewTime(e.now), Reason: fmt.Sprintf(
			"wave %s opened and is no longer in calico.rollout.waves: put it back (its members keep their place) or start a rollout of a new name", w.Name)}
		res.Halted = true
		return false
	}
	if w.Opened == nil {
		open(e.target, ws, state, i, e.shoots, e.now)
		for _, m := range w.Members {
			res.Opened = append(res.Opened, m.Shoot)
		}
	}
	judge(e.target, ws, w, e.shoots, e.observe, e.now)
	if failed := failures(w); len(failed) > ws.MaxFailures {
		state.Halted = &Halt{Wave: w.Name, At: metav1.NewTime(e.now), Reason: haltReason(w, failed, ws.MaxFailures)}
		res.Halted = true
		return false
	}
	if pending(w) {
		return false
	}
	if w.Settled == nil {
		w.Settled = ptrTime(e.now)
	}
	if e.now.Sub(w.Settled.Time) < ws.MinSoak {
		return false
	}
	w.Done = ptrTime(e.now)
	return true
}

// alignWaves returns the waves of the State for spec: every wave that opened, as recorded and in the
// order it opened (its members are frozen; a wave the spec no longer names is kept, and Evaluate
// halts on it unless it is done), then the spec's waves that have not opened, in the spec's order.
// So adding, removing, renaming or reordering waves changes only what has not happened yet.
func alignWaves(spec *Spec, recorded []WaveState) []WaveState {
	var out []WaveState
	opened := map[string]bool{}
	for _, w := range recorded {
		if w.Opened != nil {
			out = append(out, w)
			opened[w.Name] = true
		}
	}
	for _, ws := range spec.Waves {
		if !opened[ws.Name] {
			out = append(out, WaveState{Name: ws.Name})
		}
	}
	return out
}

// open chooses the members of wave i (spec ws) among the shoots no earlier wave took.
func open(target calicoversion.Release, ws WaveSpec, state *State, i int, shoots map[string]Shoot, now time.Time) {
	taken := map[string]bool{}
	for _, w := range state.Waves[:i] {
		for _, m := range w.Members {
			taken[m.Shoot] = true
		}
		for _, s := range w.Skipped {
			taken[s.Shoot] = true
		}
	}
	w := &state.Waves[i]
	w.Opened = ptrTime(now)
	for _, ns := range selectShoots(ws, shoots) {
		if taken[ns] {
			continue
		}
		if reason := skipReason(target, shoots[ns]); reason != "" {
			w.Skipped = append(w.Skipped, Skip{Shoot: ns, Reason: reason})
			continue
		}
		w.Members = append(w.Members, Member{Shoot: ns, State: MemberPending, Since: metav1.NewTime(now)})
	}
}

// selectShoots returns the shoots a wave selects: by label selector, or the first Percent % of all
// shoots (rounded up) in the stable order (Order).
func selectShoots(ws WaveSpec, shoots map[string]Shoot) []string {
	order := Order(shoots)
	if ws.Selector != nil {
		var out []string
		for _, ns := range order {
			if ws.Selector.Matches(labels.Set(shoots[ns].Labels)) {
				out = append(out, ns)
			}
		}
		return out
	}
	n := (len(order)*ws.Percent + 99) / 100
	return order[:n]
}

// Order is the stable order of percent waves: by the SHA-256 of the control-plane namespace, so
// that neither the names' alphabet nor the creation time decides who goes first, and a shoot keeps
// its place while others come and go.
func Order(shoots map[string]Shoot) []string {
	out := make([]string, 0, len(shoots))
	for ns := range shoots {
		out = append(out, ns)
	}
	key := func(ns string) string { h := sha256.Sum256([]byte(ns)); return string(h[:]) }
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(key(a), key(b)) })
	return out
}

// skipReason says why a selected shoot is not moved ("" when it is).
func skipReason(target calicoversion.Release, s Shoot) string {
	switch {
	case s.Pin != "":
		return capText(fmt.Sprintf("pinned by its owner to calicoVersion %q (a pin wins over every rollout)", capText(s.Pin, 64)), MaxReasonLength)
	case s.Hibernated:
		return "hibernated (no shoot is moved while hibernated; start another rollout after wake-up)"
	case !target.SupportsKubernetes(s.KubernetesVersion):
		return capText(fmt.Sprintf("Kubernetes %s is not supported by Calico %s (supports %s)", capText(s.KubernetesVersion, 64), target, target.Line().KubernetesRange()), MaxReasonLength)
	}
	if !s.Release.IsZero() {
		if _, err := calicoversion.Default().Plan(s.Release, target); err != nil {
			return capText(err.Error(), MaxReasonLength)
		}
	}
	return ""
}

// judge decides the pending members of an open wave. Reasons are capped (MaxReasonLength,
// MaxErrorExcerpt of a lastError), and only MaxReasonsPerWave failed members keep theirs.
func judge(target calicoversion.Release, ws WaveSpec, w *WaveState, shoots map[string]Shoot, observe Observe, now time.Time) {
	j := &waveJudge{target: target, deadline: ws.Deadline, observe: observe, now: now}
	for _, m := range w.Members {
		if m.State == MemberFailed && m.Reason != "" {
			j.kept++
		}
	}
	for i := range w.Members {
		m := &w.Members[i]
		if m.State != MemberPending {
			continue
		}
		s, ok := shoots[m.Shoot]
		if !ok {
			m.State, m.Reason = MemberGone, "the shoot's Network is gone"
			continue
		}
		j.member(m, s)
	}
}

// waveJudge holds what judge needs for each member: the target, the wave's deadline, how to
// observe a shoot's components, the time, and how many failed members keep their reason.
type waveJudge struct {
	target   calicoversion.Release
	deadline time.Duration
	observe  Observe
	now      time.Time
	kept     int
}

// fail fails a member, with its reason if fewer than MaxReasonsPerWave failed members keep theirs.
func (j *waveJudge) fail(m *Member, reason string) {
	m.State, m.Reason = MemberFailed, ""
	if j.kept < MaxReasonsPerWave {
		m.Reason = capText(reason, MaxReasonLength)
		j.kept++
	}
}

// member decides a pending member whose shoot s still exists: failed at once by a reconcile that
// Failed since it joined its wave, succeeded when its shoot is done, failed when what it still
// waits for outlasts the wave's deadline, else still pending.
func (j *waveJudge) member(m *Member, s Shoot) {
	// A reconcile that Failed (not retried) since the member joined its wave fails it at once. An
	// Error is retried by Gardener: a transient one (a conflict, an unreachable shoot for a moment)
	// must not halt a rollout, so it only fails the member if it lasts past the deadline. A shoot
	// that was already broken before its wave opened is judged by the deadline too.
	if s.ReconcileError != "" && s.ReconcileFailed && !s.ReconcileErrorAt.Before(m.Since.Time) {
		j.fail(m, "reconcile failed: "+capText(s.ReconcileError, MaxErrorExcerpt))
		return
	}
	start := m.Since.Time
	if s.MoveStarted.After(start) {
		start = s.MoveStarted
	}
	why, done := j.waitingFor(m, s)
	if done {
		m.State, m.Reason = MemberSucceeded, ""
		return
	}
	if elapsed := j.now.Sub(start); elapsed > j.deadline {
		if !s.MoveStarted.IsZero() {
			// Say which component holds the move up (read once, when it fails).
			if c, err := j.observe(m.Shoot); err == nil && c.String() != "" {
				why = c.String() + "; " + why
			}
		}
		// The elapsed time ends the reason: cut the cause, never it.
		suffix := " after " + since(elapsed)
		j.fail(m, capText(why, MaxReasonLength-len(suffix))+suffix)
	}
}

// waitingFor says what a member's shoot still waits for: a reconcile error, the target release,
// the end of its move, a successful reconcile, or (observed) its components. done is true when it
// waits for nothing.
func (j *waveJudge) waitingFor(m *Member, s Shoot) (why string, done bool) {
	switch {
	case s.ReconcileError != "":
		return "its last reconcile ended in an error: " + capText(s.ReconcileError, MaxErrorExcerpt), false
	case s.Release != j.target && !s.MoveStarted.IsZero():
		return fmt.Sprintf("still moving from %s to %s (phase %s)", s.Release, j.target, s.MovePhase), false
	case s.Release != j.target:
		return fmt.Sprintf("still on %s", s.Release), false
	case !s.MoveStarted.IsZero():
		return fmt.Sprintf("still moving to %s (phase %s)", j.target, s.MovePhase), false
	case !s.Reconciled:
		return "its last reconcile has not succeeded", false
	}
	c, err := j.observe(m.Shoot)
	switch {
	case err != nil:
		return capText(err.Error(), MaxErrorExcerpt), false
	case c.Complete():
		return "", true
	default:
		return c.String(), false
	}
}

// haltReason says why a wave halts the rollout: the counts and the first MaxHaltNamed failed
// members with their reasons (failed: "shoot: reason" of each failed member), then how many more.
func haltReason(w *WaveState, failed []string, budget int) string {
	named := failed[:min(len(failed), MaxHaltNamed)]
	s := fmt.Sprintf("wave %s: %d of %d shoots failed, budget %d: %s", w.Name, len(failed), len(w.Members), budget, strings.Join(named, "; "))
	if more := len(failed) - len(named); more > 0 {
		s += fmt.Sprintf("; and %d more (calico-pilot rollout status lists them)", more)
	}
	return s
}

func failures(w *WaveState) []string {
	var out []string
	for _, m := range w.Members {
		if m.State == MemberFailed {
			out = append(out, m.Shoot+": "+cmp.Or(m.Reason, ReasonNotKept))
		}
	}
	return out
}

func pending(w *WaveState) bool {
	return slices.ContainsFunc(w.Members, func(m Member) bool { return m.State == MemberPending })
}

func ptrTime(t time.Time) *metav1.Time { v := metav1.NewTime(t); return &v }
