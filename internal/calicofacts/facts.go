package calicofacts

import (
	"fmt"
	"strings"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// Direction is which way a fact applies.
type Direction string

// Directions.
const (
	// Up is a move to a newer line.
	Up Direction = "up"
	// Down is a move to an older line.
	Down Direction = "down"
	// Both is either move.
	Both Direction = "both"
)

// Severity says what a fact means for the move.
type Severity string

// Severities.
const (
	// Blocker: the move must not start while the fact's live check finds objects (plan exits 1).
	Blocker Severity = "Blocker"
	// Warning: the move changes behaviour a shoot owner may rely on; look before moving.
	Warning Severity = "Warning"
	// Info: known and handled (calico-pilot does it), or harmless; shown for the record.
	Info Severity = "Info"
)

// Fact is one thing that happens when a shoot moves between two adjacent Calico lines.
type Fact struct {
	// ID is stable (docs, admission warnings and plan's JSON name it).
	ID string `json:"id"`
	// Direction is up, down or both.
	Direction Direction `json:"direction"`
	// Older and Newer are the adjacent lines the fact is about ("v3.31", "v3.32"); both empty for a
	// fact of every move between lines.
	Older string `json:"older"`
	Newer string `json:"newer"`
	// Severity is what the fact means: for a live fact, when its check finds objects (nothing found
	// is no finding); otherwise always.
	Severity Severity `json:"severity"`
	// Title says it in a few words (admission warnings carry it).
	Title string `json:"title"`
	// Happens says what happens, from Calico's code and notes.
	Happens string `json:"happens"`
	// Action says what to do; "" when there is nothing to do.
	Action string `json:"action,omitempty"`
	// Handled says what calico-pilot does about it itself; "" when it does nothing.
	Handled string `json:"handled,omitempty"`
	// Source is the section of docs/calico-v3.32.md the fact comes from.
	Source string `json:"source"`
	// Live is the check against the shoot's objects; nil for a fact that is always shown.
	Live *Check `json:"-"`
	// Kubernetes is checked against the shoot's Kubernetes version, not its objects.
	Kubernetes bool `json:"-"`
}

// Check finds the objects of a shoot a fact is about.
type Check struct {
	// What names the objects looked at ("AdminNetworkPolicy and BaselineAdminNetworkPolicy objects").
	What string
	// Kinds are the kinds listed; a kind the shoot does not serve has no objects.
	Kinds []Kind
	// Match says why an object is affected; "" when it is not.
	Match func(obj map[string]any) string
}

// Kind is a listable kind.
type Kind struct {
	APIVersion, Kind string
}

// String is "Kind.group" (or "Kind" for the core group).
func (k Kind) String() string {
	group, _, ok := strings.Cut(k.APIVersion, "/")
	if !ok {
		return k.Kind
	}
	return k.Kind + "." + group
}

// Applies says whether the fact applies to a move from one release to another: a move between lines
// whose pair of lines lies within the move, in its direction. A fact without lines (Older and Newer
// empty) applies to every move between lines. A patch move (within a line) has no facts: nothing
// stored changes, and Calico allows any mix of patch releases of a line.
func (f *Fact) Applies(from, to calicoversion.Release) bool {
	if from.IsZero() || to.IsZero() || from.SameLine(to) {
		return false
	}
	dir, lo, hi := Up, lineOf(from.Version()), lineOf(to.Version())
	if to.Compare(from) < 0 {
		dir, lo, hi = Down, hi, lo
	}
	if f.Direction != Both && f.Direction != dir {
		return false
	}
	if f.Older == "" && f.Newer == "" {
		return true
	}
	older, err1 := calicoversion.ParseName(f.Older)
	newer, err2 := calicoversion.ParseName(f.Newer)
	if err1 != nil || err2 != nil {
		return false
	}
	return lineOf(older).Compare(lo) >= 0 && lineOf(newer).Compare(hi) <= 0
}

// lineOf is the line of a release name.
func lineOf(n calicoversion.Name) calicoversion.Name {
	return calicoversion.Name{Major: n.Major, Minor: n.Minor}
}

// For returns the facts of a move, in the order of All; none when from and to are the same line.
func For(from, to calicoversion.Release) []Fact {
	var out []Fact
	for _, f := range All() {
		if f.Applies(from, to) {
			out = append(out, f)
		}
	}
	return out
}

// All returns every fact, upgrade facts first.
func All() []Fact {
	return append(upgradeFacts(), downgradeFacts()...)
}

// Warnings are the admission warnings for a pin that moves a shoot from one line to another: Notes,
// each after the field path.
func Warnings(from, to calicoversion.Release, field string) []string {
	notes := Notes(from, to)
	for i, n := range notes {
		notes[i] = field + ": " + n
	}
	return notes
}

// Notes say what a move from one line to another does, before it happens: one naming the move and
// how to preview it with plan, then one per fact that is not handled by calico-pilot alone (its title
// and ID); the Kubernetes range is left out, since the calicoVersion.kubernetes rule judges the pin
// itself. None when there is no move.
func Notes(from, to calicoversion.Release) []string {
	facts := For(from, to)
	if len(facts) == 0 {
		return nil
	}
	dir := "upgrade"
	if to.Compare(from) < 0 {
		dir = "downgrade"
	}
	out := []string{fmt.Sprintf("%s -> %s is a Calico %s; what it does and what to check first: docs/calico-downgrade.md, "+
		"calico-pilot plan --target-version %s --kubeconfig SHOOT (live checks)", from, to, dir, to)}
	for _, f := range facts {
		if f.Severity == Info || f.Kubernetes {
			continue
		}
		out = append(out, fmt.Sprintf("%s [%s]", f.Title, f.ID))
	}
	return out
}
