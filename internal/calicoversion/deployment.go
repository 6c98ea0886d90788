package calicoversion

import (
	"fmt"
	"slices"
	"strings"
)

// Deployment says which release each Calico component runs in one step, and which releases may run
// it while the step is applied (Running). All are the same, and nothing rolls, except while a shoot
// moves between releases (Move).
type Deployment struct {
	// Node is calico-node's release (with its CNI init containers and the ensurer sidecar).
	Node Release
	// Typha is calico-typha's release.
	Typha Release
	// KubeControllers is calico-kube-controllers' release.
	KubeControllers Release
	// CRDs is the release whose line's CRD schemas are applied: never older than any release the
	// shoot has run, so that a field a newer release stored is not pruned by an older schema.
	CRDs Release
	// Replacing is the release this step of a move replaces on the components it rolls (Rolls): a
	// DaemonSet or Deployment replaces its pods one by one, so until its roll ends the pods not yet
	// replaced still run Replacing beside the new ones (and with Typha off every calico-node talks to
	// the API server itself). Zero when the step rolls nothing (Steady).
	Replacing Release
	// rolling are the components this step rolls from Replacing, one bit per position in Components().
	rolling uint32
}

// Steady is every component (and the CRDs) at r.
func Steady(r Release) Deployment { return Deployment{Node: r, Typha: r, KubeControllers: r, CRDs: r} }

// SteadyWithCRDs is every component at r, the CRDs at the newer of r and crds (the newest the shoot had).
func SteadyWithCRDs(r, crds Release) Deployment {
	d := Steady(r)
	d.CRDs = Newer(r, crds)
	return d
}

// Rolls is true when this step rolls component c from Replacing to Of(c): until its roll ends, c's
// pods run either release.
func (d Deployment) Rolls(c Component) bool {
	i := slices.Index(Components(), c)
	return i >= 0 && d.rolling&(1<<i) != 0
}

// Running is every release that may run component c while this step is applied, oldest first: the
// release it runs (Of), and the release it replaces while the step rolls it (Rolls). What c asks of
// the API server in this step is the union of what these releases ask (its RBAC grants the union).
func (d Deployment) Running(c Component) []Release {
	r := d.Of(c)
	if r.IsZero() {
		return nil
	}
	out := []Release{r}
	if d.Rolls(c) && !d.Replacing.IsZero() && d.Replacing != r {
		out = append(out, d.Replacing)
		slices.SortFunc(out, Release.Compare)
	}
	return out
}

// rolls returns d rolling components cs from release from (nothing rolls when cs is empty).
func (d Deployment) rolls(from Release, cs []Component) Deployment {
	for _, c := range cs {
		if i := slices.Index(Components(), c); i >= 0 {
			d.rolling |= 1 << i
		}
	}
	if d.rolling != 0 {
		d.Replacing = from
	}
	return d
}

// IsZero is true when no component release is set.
func (d Deployment) IsZero() bool { return d.Node.IsZero() }

// Of is the release component c runs; an optional component runs the release of the core component
// it moves with (Catalogue.MovesWith).
func (d Deployment) Of(c Component) Release {
	switch c {
	case Node:
		return d.Node
	case Typha:
		return d.Typha
	case KubeControllers:
		return d.KubeControllers
	}
	if c.IsOptional() && !d.Node.IsZero() {
		if core := d.Node.r.cat.MovesWith(c); core != c {
			return d.Of(core)
		}
	}
	return Release{}
}

// MovesWith is the core component whose step and release optional component c takes in a move
// (catalogue.yaml moves.with); a core component moves with itself.
func (c *Catalogue) MovesWith(comp Component) Component {
	if core, ok := c.movesWith[comp]; ok {
		return core
	}
	return comp
}

// StepOf is the index of the step of m that moves component c (an optional one: the step of the core
// component it moves with); -1 when m moves nothing.
func (m Move) StepOf(c Component) int {
	if m.IsZero() {
		return -1
	}
	core := m.To.r.cat.MovesWith(c)
	for i, step := range m.Steps {
		if slices.Contains(step, core) {
			return i
		}
	}
	return -1
}

// set returns d with component c at r.
func (d Deployment) set(c Component, r Release) Deployment {
	switch c {
	case Node:
		d.Node = r
	case Typha:
		d.Typha = r
	case KubeControllers:
		d.KubeControllers = r
	}
	return d
}

// Releases returns the distinct releases that may run a component in this step (Running of each),
// oldest first.
func (d Deployment) Releases() []Release {
	var out []Release
	for _, c := range Components() {
		for _, r := range d.Running(c) {
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	slices.SortFunc(out, Release.Compare)
	return out
}

// IsSteady is true when every component runs the same release (a step may still roll them from
// another: Rolls).
func (d Deployment) IsSteady() bool { return d.Node == d.Typha && d.Typha == d.KubeControllers }

// String describes d ("v3.32.1" or "calico-node v3.32.1, calico-typha v3.31.6, calico-kube-controllers
// v3.31.6, CRDs v3.32.1").
func (d Deployment) String() string {
	if d.IsSteady() && d.CRDs == d.Node {
		return d.Node.Name()
	}
	var parts []string
	for _, c := range Components() {
		parts = append(parts, fmt.Sprintf("%s %s", c, d.Of(c)))
	}
	return strings.Join(append(parts, "CRDs "+d.CRDs.Name()), ", ")
}

// MoveKind is the kind of a move between two releases.
type MoveKind string

// The kinds of moves (catalogue.yaml, moves).
const (
	MoveUp    MoveKind = "up"
	MoveDown  MoveKind = "down"
	MovePatch MoveKind = "patch"
)

// Phase is the step of a move that is applied.
type Phase string

// The phases of a move.
const (
	// PhaseFirst: the first step of a move of two steps (a line move) is applied: the components that
	// move first run the target release, the others the release moved from.
	PhaseFirst Phase = "First"
	// PhaseComplete: every component runs the target release (the CRDs stay at the newer schema). A
	// patch move, one step, starts here.
	PhaseComplete Phase = "Complete"
)

// Move is a move from one release to another.
type Move struct {
	From, To Release
	Kind     MoveKind
	// Steps are the components of each step, in order (one step for a patch move).
	Steps [][]Component
}

// Plan returns the move from one release to another in Calico's order: a patch move within a line is
// one step; a line move goes only to the adjacent line, in its direction's order. Moving across more
// than one line is refused, naming the line to move to first. from == to is no move (zero Move).
func (c *Catalogue) Plan(from, to Release) (Move, error) {
	if from.IsZero() || to.IsZero() {
		return Move{}, fmt.Errorf("a move needs two releases (from %q, to %q)", from, to)
	}
	if from == to {
		return Move{}, nil
	}
	m := Move{From: from, To: to}
	fi, ti := c.lineIndex(from.Line()), c.lineIndex(to.Line())
	switch {
	case fi == ti:
		m.Kind = MovePatch
	case ti == fi+1:
		m.Kind = MoveUp
	case ti == fi-1:
		m.Kind = MoveDown
	default:
		step := c.lines[fi+sign(ti-fi)].name.Line()
		//lint:ignore ST1005 the message starts with the product's name
		return Move{}, fmt.Errorf("Calico %s to %s skips line %s: a move goes one line at a time, in Calico's order; move to %s first", from, to, step, step)
	}
	m.Steps = cloneSteps(c.moves[m.Kind])
	return m, nil
}

func (c *Catalogue) lineIndex(l Line) int {
	for i, x := range c.lines {
		if x == l.l {
			return i
		}
	}
	return -1
}

// IsZero is true for no move.
func (m Move) IsZero() bool { return len(m.Steps) == 0 }

// FirstPhase is the phase a move starts in: First for a move of several steps, Complete for one.
func (m Move) FirstPhase() Phase {
	if len(m.Steps) > 1 {
		return PhaseFirst
	}
	return PhaseComplete
}

// applied returns the components that run the target release in phase.
func (m Move) applied(phase Phase) []Component {
	if phase == PhaseFirst && len(m.Steps) > 1 {
		return m.Steps[0]
	}
	return Components()
}

// rolled returns the components whose pods may still run From while phase is applied: the
// components phase moves to To, except those an earlier step of the move moved (a move goes to its
// next step only once the components of the step before rolled out: Changed). The last step of a
// line move rolls the components of its own step; a one-step (patch) move rolls every component.
func (m Move) rolled(phase Phase) []Component {
	cs := slices.Clone(m.applied(phase))
	if phase == PhaseFirst || len(m.Steps) < 2 {
		return cs
	}
	return slices.DeleteFunc(cs, func(c Component) bool { return slices.Contains(m.Steps[0], c) })
}

// Deployment is what each component runs in phase of the move, and which components the phase rolls
// from From (Deployment.Running: their pods not yet replaced keep running From until the roll
// ends); crds is the newest release whose CRDs the shoot ever had (zero: none recorded). The CRDs
// never go back: the newest of crds, From and To.
func (m Move) Deployment(phase Phase, crds Release) Deployment {
	d := Steady(m.From)
	for _, c := range m.applied(phase) {
		d = d.set(c, m.To)
	}
	d.CRDs = Newer(Newer(m.From, m.To), crds)
	return d.rolls(m.From, m.rolled(phase))
}

// Changed are the components phase moves to the target: the ones whose rollout a move waits for in
// that phase (Complete: every component, so the move ends with all of them rolled out).
func (m Move) Changed(phase Phase) []Component { return slices.Clone(m.applied(phase)) }

// Describe names the components that move in phase ("calico-node", "calico-typha and
// calico-kube-controllers", "every component").
func (m Move) Describe(phase Phase) string {
	cs := m.applied(phase)
	if len(cs) == len(Components()) {
		return "every component"
	}
	var names []string
	for _, c := range cs {
		names = append(names, string(c))
	}
	return strings.Join(names, " and ")
}
