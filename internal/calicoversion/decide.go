package calicoversion

import (
	"fmt"
	"strings"
	"time"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
)

// Facts are what the choice of a shoot's Calico release is made from: what its Network records, what
// its owner and the operator ask, and the shoot's state. The controller, render, plan and swap-check
// all decide through Decide, so they agree.
type Facts struct {
	// Recorded is providerStatus.calicoVersion ("" when none); RecordedCRDs is calicoCRDVersion.
	Recorded, RecordedCRDs string
	// Moving is providerStatus.calicoMove (nil when none).
	Moving *MoveRecord
	// Deployed is true when the shoot already runs a Calico (a record, or a ManagedResource of the
	// reference's or of calico-pilot before releases were recorded).
	Deployed bool
	// Pin is the owner's providerConfig calicoVersion (nil: none).
	Pin *string
	// OperatorDefault is ControllerConfiguration calico.defaultVersion (nil: none).
	OperatorDefault *string
	// RolloutTarget and Rollout are the open wave's target and rollout name ("" when not in one).
	RolloutTarget, Rollout string
	// Kubernetes is the shoot's Kubernetes version ("" when unknown: not judged).
	Kubernetes string
	// Hibernated is true when hibernation is wanted: no move starts.
	Hibernated bool
	// Now stamps a move that starts.
	Now time.Time
	// Available says which releases the landscape's images can deploy for this shoot (the image
	// vector for its Kubernetes version); nil: every carried release. A new shoot starts only on an
	// available release; a move starts only to one; a shoot keeps what it runs even when its images
	// are gone, and the condition says which entry to add (ReasonImagesUnavailable).
	Available Available
}

// ReasonImagesUnavailable is the CalicoVersion condition's reason when a release asked for (or run)
// has no images in the landscape's image vector.
const ReasonImagesUnavailable = "ImagesUnavailable"

// RecordedFacts are the facts a Network's provider status records (nil: none): the release, the
// newest CRD release and the move in progress; Deployed when a release is recorded. The caller adds
// what it knows beyond the status (a deployed ManagedResource, the pin, the operator's default, ...).
func RecordedFacts(st *calicov1alpha1.NetworkStatus) Facts {
	var f Facts
	if st == nil {
		return f
	}
	f.Recorded, f.RecordedCRDs, f.Deployed = st.CalicoVersion, st.CalicoCRDVersion, st.CalicoVersion != ""
	if m := st.CalicoMove; m != nil {
		f.Moving = &MoveRecord{From: m.From, To: m.To, Phase: m.Phase, Started: m.Started.Time, Rollout: m.Rollout}
	}
	return f
}

// MoveRecord is a move as recorded in a Network's status.
type MoveRecord struct {
	From, To, Phase string
	Started         time.Time
	Rollout         string
}

// Condition says how the decision stands, for the Network's CalicoVersion condition.
type Condition string

// Condition values.
const (
	ConditionTrue        Condition = "True"
	ConditionFalse       Condition = "False"
	ConditionProgressing Condition = "Progressing"
)

// Decision is what a shoot runs after a reconcile decides.
type Decision struct {
	// Current is the release every component ran when the decision was made (the move's From while
	// moving); a retired recorded release is already the newest of its line here.
	Current Release
	// Retired is set when the recorded release is not carried (Current is its line's newest).
	Retired *Recorded
	// Move is the move in progress after this decision (zero when steady on Current); Phase its
	// applied step; Started when it began; Rollout the rollout that asked for it ("" for a pin).
	Move    Move
	Phase   Phase
	Started time.Time
	Rollout string
	// StartedNow is true when this decision starts Move.
	StartedNow bool
	// CRDs is the newest release whose line's CRDs the shoot ever had (never lowered).
	CRDs Release
	// Status, Reason and Message are the CalicoVersion condition.
	Status  Condition
	Reason  string
	Message string
	// Unsupported says what does not support the shoot's Kubernetes version when Reason is
	// KubernetesUnsupported (nil otherwise), for a caller that words it for its own users (apply
	// speaks of a cluster and --calico-version); Message keeps the condition's words.
	Unsupported *KubernetesUnsupported
}

// KubernetesUnsupported is what a decision found that does not support the Kubernetes version.
type KubernetesUnsupported struct {
	// Kubernetes is the shoot's Kubernetes version.
	Kubernetes string
	// Pinned is the release the pin asks for, when it does not support Kubernetes (zero otherwise).
	Pinned Release
	// Supported are the lines that support Kubernetes, oldest first (none: no release carried does).
	Supported []Line
}

// unsupported is the KubernetesUnsupported of Kubernetes version k8s, pinned the pin's release
// that does not support it (zero: the pin is not the cause).
func (c *Catalogue) unsupported(k8s string, pinned Release) *KubernetesUnsupported {
	u := &KubernetesUnsupported{Kubernetes: k8s, Pinned: pinned}
	for _, l := range c.Lines() {
		if l.SupportsKubernetes(k8s) {
			u.Supported = append(u.Supported, l)
		}
	}
	return u
}

// Deployment is what each component runs for the decision.
func (d Decision) Deployment() Deployment {
	if d.Move.IsZero() {
		return SteadyWithCRDs(d.Current, d.CRDs)
	}
	return d.Move.Deployment(d.Phase, d.CRDs)
}

// Moving is true while a move is in progress.
func (d Decision) Moving() bool { return !d.Move.IsZero() }

// Decide chooses the release of one shoot (docs/upgrades.md "Which release a shoot runs"):
//   - the current release is the recorded one (a retired one: the newest of its line, never another
//     line); a deployed shoot without a record runs the catalogue's unrecorded release; a new shoot
//     starts on its pin, else its open wave's target, else the operator's default, else the
//     catalogue's default, the first of these whose line supports its Kubernetes version and whose
//     images the landscape has (Facts.Available; a line names its newest such release);
//   - a move in progress always completes;
//   - otherwise the owner's pin wins (a line pin is satisfied by any release of that line), then the
//     rollout's open wave; a release whose line does not support the shoot's Kubernetes version, a
//     pin that is not carried, a release whose images the landscape does not have, a move that skips
//     a line and a hibernated shoot keep the current release, and the condition says why; a shoot
//     whose own release's images are gone keeps it too (ReasonImagesUnavailable), never moving by itself.
//
// A recorded release of a line the catalogue does not carry is an error: rendering it would move the
// shoot across lines; nothing is changed until a calico-pilot that carries the line runs.
func (c *Catalogue) Decide(f Facts) (Decision, error) {
	rec, err := c.Recorded(f.Recorded)
	if err != nil {
		return Decision{}, fmt.Errorf("status.providerStatus.calicoVersion: %w", err)
	}
	crds, err := c.Recorded(f.RecordedCRDs)
	if err != nil {
		return Decision{}, fmt.Errorf("status.providerStatus.calicoCRDVersion: %w", err)
	}
	if rec.Release.IsZero() && !f.Deployed {
		return c.decideNew(f), nil
	}
	d := c.steady(rec, crds.Release)
	if f.Moving != nil {
		if moving, decided, err := c.continueMove(d, f.Moving, crds.Release); err != nil || decided {
			return moving, err
		}
	}
	want, source, rollout, ok := c.wanted(&d, f)
	if !ok {
		return d, nil
	}
	return c.startMove(d, f, want, source, rollout), nil
}

// steady is the decision that the shoot stays on its recorded release (rec; the catalogue's
// unrecorded release when none is recorded), with crds the newest CRDs it had.
func (c *Catalogue) steady(rec Recorded, crds Release) Decision {
	if rec.Release.IsZero() {
		rec = c.Unrecorded()
	}
	d := Decision{Current: rec.Release, CRDs: Newer(rec.Release, crds), Status: ConditionTrue, Reason: "Deployed"}
	d.Message = fmt.Sprintf("Calico %s runs on every component.", d.Current)
	if rec.Retired {
		r := rec
		d.Retired = &r
		d.Message = rec.Message() + "."
	}
	return d
}

// continueMove is the decision for the move in progress m: it always completes. decided is false
// when m's target is what the shoot runs already (the decision goes on from d).
func (c *Catalogue) continueMove(d Decision, m *MoveRecord, crds Release) (moving Decision, decided bool, err error) {
	to, err := c.Recorded(m.To)
	if err != nil {
		return Decision{}, false, fmt.Errorf("status.providerStatus.calicoMove.to: %w", err)
	}
	if to.Release == d.Current {
		return d, false, nil
	}
	move, err := c.Plan(d.Current, to.Release)
	if err != nil {
		return Decision{}, false, fmt.Errorf("status.providerStatus.calicoMove: %w", err)
	}
	phase := Phase(m.Phase)
	if phase != PhaseFirst || len(move.Steps) == 1 {
		phase = PhaseComplete
	}
	d.Move, d.Phase, d.Started, d.Rollout = move, phase, m.Started, m.Rollout
	d.CRDs = Newer(Newer(d.Current, to.Release), crds)
	d.Status, d.Reason = ConditionProgressing, "Moving"
	d.Message = fmt.Sprintf("Moving from Calico %s to %s (phase %s, started %s).", d.Current, to.Release, phase, m.Started.UTC().Format(time.RFC3339))
	return d, true, nil
}

// wanted is the release asked of a deployed shoot: its owner's pin (a line pin is satisfied by the
// release of that line it runs), else its open wave's target, else the one it runs; with who asks
// and the rollout that does. ok is false when the decision d is made (set in d): the pin is not
// carried, or nothing else is asked and d says whether the release the shoot runs supports its
// Kubernetes version.
func (c *Catalogue) wanted(d *Decision, f Facts) (want Release, source, rollout string, ok bool) {
	want = d.Current
	if f.Pin != nil {
		r, err := c.Resolve(*f.Pin)
		if err != nil {
			// Ratchet: a pin accepted once keeps reconciling; the shoot stays where it is.
			d.Status, d.Reason = ConditionFalse, "PinUnsupported"
			d.Message = fmt.Sprintf("providerConfig calicoVersion: %v; the shoot stays on Calico %s.", err, d.Current)
			return Release{}, "", "", false
		}
		if n, _ := ParseName(*f.Pin); !n.HasPatch && r.Line() == d.Current.Line() {
			// A line pin is satisfied by the release of that line the shoot runs: a calico-pilot that
			// adds a release to the line moves nothing.
			r = d.Current
		} else if !n.HasPatch {
			r = newestAvailable(r, f.Available)
		}
		want, source = r, "its owner's pin (providerConfig calicoVersion)"
	} else if f.RolloutTarget != "" {
		if r, err := c.Resolve(f.RolloutTarget); err == nil {
			if n, _ := ParseName(f.RolloutTarget); !n.HasPatch {
				r = newestAvailable(r, f.Available)
			}
			want, source, rollout = r, fmt.Sprintf("rollout %q", f.Rollout), f.Rollout
		}
	}
	if want == d.Current {
		if !d.Current.SupportsKubernetes(f.Kubernetes) {
			d.Status, d.Reason = ConditionFalse, "KubernetesUnsupported"
			var pinned Release
			if f.Pin != nil {
				pinned = d.Current
			}
			d.Unsupported = c.unsupported(f.Kubernetes, pinned)
			d.Message = fmt.Sprintf("Calico %s supports Kubernetes %s, the shoot runs %s; move it to a line that does (%s).",
				d.Current, d.Current.Line().KubernetesRange(), f.Kubernetes, c.linesFor(f.Kubernetes))
		} else if err := f.Available.Check(d.Current); err != nil {
			// Kept: a running shoot never moves to another release unless its owner or the operator
			// asks; rendering it needs the images, so the condition says which entry to add.
			d.Status, d.Reason = ConditionFalse, ReasonImagesUnavailable
			d.Message = fmt.Sprintf("The shoot runs Calico %s, but %v; it stays on Calico %s (no release moves unless its owner or the operator asks).",
				d.Current, err, d.Current)
		}
		return Release{}, "", "", false
	}
	return want, source, rollout, true
}

// startMove is the decision on a move to want, asked by source: it starts, unless want does not
// support the shoot's Kubernetes version, the move skips a line or the shoot is hibernated.
func (c *Catalogue) startMove(d Decision, f Facts, want Release, source, rollout string) Decision {
	if !want.SupportsKubernetes(f.Kubernetes) {
		d.Status, d.Reason = ConditionFalse, "KubernetesUnsupported"
		var pinned Release
		if f.Pin != nil { // wanted asks for the pin's release whenever there is one
			pinned = want
		}
		d.Unsupported = c.unsupported(f.Kubernetes, pinned)
		d.Message = fmt.Sprintf("%s asks for Calico %s, which does not support Kubernetes %s (supports %s); the shoot stays on Calico %s.",
			source, want, f.Kubernetes, want.Line().KubernetesRange(), d.Current)
		return d
	}
	if err := f.Available.Check(want); err != nil {
		d.Status, d.Reason = ConditionFalse, ReasonImagesUnavailable
		d.Message = fmt.Sprintf("%s asks for Calico %s, but %v; the shoot stays on Calico %s.", source, want, err, d.Current)
		return d
	}
	move, err := c.Plan(d.Current, want)
	if err != nil {
		d.Status, d.Reason = ConditionFalse, "MoveSkipsLine"
		d.Message = fmt.Sprintf("%s asks for %v; the shoot stays on Calico %s.", source, err, d.Current)
		return d
	}
	if f.Hibernated {
		d.Message = fmt.Sprintf("Calico %s runs on every component; the move to %s asked by %s starts after wake-up.", d.Current, want, source)
		return d
	}
	d.Move, d.Phase, d.Started, d.Rollout, d.StartedNow = move, move.FirstPhase(), f.Now, rollout, true
	d.CRDs = Newer(d.CRDs, want)
	d.Status, d.Reason = ConditionProgressing, "Moving"
	d.Message = fmt.Sprintf("Moving from Calico %s to %s, asked by %s: %s first.", d.Current, want, source, move.Describe(d.Phase))
	if len(move.Steps) == 1 {
		d.Message = fmt.Sprintf("Moving from Calico %s to %s, asked by %s: every component at once (a patch release).", d.Current, want, source)
	}
	return d
}

// decideNew is the release of a shoot that runs no Calico yet: the first candidate whose line
// supports its Kubernetes version and whose images the landscape has.
func (c *Catalogue) decideNew(f Facts) Decision {
	d := Decision{Status: ConditionTrue, Reason: "Deployed"}
	cands, pinErr := c.newCandidates(f)
	var notes []string
	if pinErr != nil {
		d.Status, d.Reason = ConditionFalse, "PinUnsupported"
		notes = append(notes, fmt.Sprintf("providerConfig calicoVersion: %v", pinErr))
	}
	chosen, passed := firstFit(cands, f.Kubernetes, f.Available)
	notes = append(notes, passed.notes...)
	d.Current, d.CRDs = chosen.release, chosen.release
	if !chosen.release.SupportsKubernetes(f.Kubernetes) {
		notes = append(notes, fmt.Sprintf("no release this calico-pilot deploys supports Kubernetes %s", f.Kubernetes))
	} else if f.Available.Check(chosen.release) != nil {
		// Rendering fails on the missing images; the condition says so first.
		notes = append(notes, fmt.Sprintf("no release whose line supports Kubernetes %s has its images in the image vector", f.Kubernetes))
		passed.kubernetes, passed.images = false, true
	} else if chosen.note != "" {
		notes = append(notes, chosen.note)
	}
	switch {
	case passed.kubernetes:
		d.Status, d.Reason = ConditionFalse, "KubernetesUnsupported"
		var pinned Release
		if f.Pin != nil && pinErr == nil && len(cands) > 0 && !cands[0].release.SupportsKubernetes(f.Kubernetes) {
			pinned = cands[0].release // the pin is the first candidate
		}
		d.Unsupported = c.unsupported(f.Kubernetes, pinned)
	case passed.images:
		d.Status, d.Reason = ConditionFalse, ReasonImagesUnavailable
	}
	d.Message = fmt.Sprintf("Calico %s runs on every component.", d.Current)
	if len(notes) > 0 {
		d.Message = strings.Join(notes, "; ") + fmt.Sprintf("; the shoot gets Calico %s (%s).", d.Current, chosen.source)
	}
	return d
}

// candidate is a release a new shoot may start on, with who asks for it.
type candidate struct {
	release Release
	source  string
	// asked is true when the owner or the operator named the release (a pin, a rollout target, the
	// operator's default): passing it over for missing images makes the condition False.
	asked bool
	// note says why a line's candidate is not its newest release (its images are missing).
	note string
}

// newCandidates are the releases a new shoot may start on, in order of preference: its pin (pinErr
// when the pin is not carried), else its open wave's target; the operator's default; the
// catalogue's default; the newest release of each line, newest line first. A line names its newest
// release whose images the landscape has.
func (c *Catalogue) newCandidates(f Facts) (cands []candidate, pinErr error) {
	if f.Pin != nil {
		if cand, err := c.candidateFor(*f.Pin, "its owner's pin", f.Available); err != nil {
			pinErr = err
		} else {
			cands = append(cands, cand)
		}
	}
	if f.Pin == nil && f.RolloutTarget != "" {
		// Created while its wave is open: it starts where the wave goes, nothing to move.
		if cand, err := c.candidateFor(f.RolloutTarget, fmt.Sprintf("rollout %q", f.Rollout), f.Available); err == nil {
			cands = append(cands, cand)
		}
	}
	if f.OperatorDefault != nil {
		if cand, err := c.candidateFor(*f.OperatorDefault, "the operator's default (calico.defaultVersion)", f.Available); err == nil {
			cands = append(cands, cand)
		}
	}
	cands = append(cands, lineCandidate(c.DefaultLine(), "calico-pilot's default", false, f.Available))
	for _, l := range slicesReverse(c.Lines()) {
		cands = append(cands, lineCandidate(l, "the newest release that supports the shoot's Kubernetes version", false, f.Available))
	}
	return cands, pinErr
}

// candidateFor is the candidate for what s names (a release, or a line: its newest available
// release), asked by source.
func (c *Catalogue) candidateFor(s, source string, a Available) (candidate, error) {
	r, err := c.Resolve(s)
	if err != nil {
		return candidate{}, err
	}
	if n, _ := ParseName(s); !n.HasPatch {
		return lineCandidate(r.Line(), source, true, a), nil
	}
	return candidate{release: r, source: source, asked: true}, nil
}

// lineCandidate is line l's newest release whose images the landscape has (its newest release when
// none has), with a note when that is not the line's newest.
func lineCandidate(l Line, source string, asked bool, a Available) candidate {
	r, err := a.NewestAvailable(l)
	cand := candidate{release: r, source: source, asked: asked}
	if err == nil && r != l.Newest() {
		cand.source = fmt.Sprintf("%s: the newest release of %s whose images the image vector has", source, l)
		cand.note = a.Check(l.Newest()).Error()
	}
	return cand
}

// passedOver says why candidates were passed over: a note per release (once), and whether one was
// for the Kubernetes version or (asked for by the owner or the operator) for its images.
type passedOver struct {
	notes              []string
	kubernetes, images bool
}

// firstFit is the first candidate that supports Kubernetes version k8s and whose images a has (the
// first candidate when none does), with the candidates passed over.
func firstFit(cands []candidate, k8s string, a Available) (candidate, passedOver) {
	var p passedOver
	seen := map[Release]bool{}
	for _, cand := range cands {
		supports := cand.release.SupportsKubernetes(k8s)
		imgErr := a.Check(cand.release)
		if supports && imgErr == nil {
			return cand, p
		}
		if seen[cand.release] {
			continue
		}
		seen[cand.release] = true
		if !supports {
			p.kubernetes = true
			p.notes = append(p.notes, fmt.Sprintf("%s asks for Calico %s, which does not support Kubernetes %s (supports %s)",
				cand.source, cand.release, k8s, cand.release.Line().KubernetesRange()))
		} else if cand.asked {
			p.images = true
			p.notes = append(p.notes, fmt.Sprintf("%s asks for Calico %s, but %v", cand.source, cand.release, imgErr))
		}
	}
	return cands[0], p
}

// newestAvailable is the newest release of r's line that a accepts (r when none does).
func newestAvailable(r Release, a Available) Release {
	if n, err := a.NewestAvailable(r.Line()); err == nil {
		return n
	}
	return r
}

// linesFor names the lines that support a Kubernetes version ("none" when no line does).
func (c *Catalogue) linesFor(k8s string) string {
	var out []string
	for _, l := range c.Lines() {
		if l.SupportsKubernetes(k8s) {
			out = append(out, l.Name())
		}
	}
	if len(out) == 0 {
		return "none does"
	}
	return strings.Join(out, ", ")
}

func slicesReverse[T any](s []T) []T {
	out := make([]T, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}
