package standalone

import (
	"errors"
	"fmt"
	"strings"

	"github.com/calico-pilot/calico-pilot/internal/install"
)

// SourceKind names where the Calico a cluster runs came from.
type SourceKind string

// The install sources apply knows.
const (
	// SourceNone: no Calico runs; apply installs it.
	SourceNone SourceKind = "none"
	// SourceCalicoPilot: calico-pilot applied it (its state records it), also after an adoption.
	SourceCalicoPilot SourceKind = "calico-pilot"
	// SourceManifest: upstream's calico.yaml (or a copy of it) installed it.
	SourceManifest SourceKind = "upstream-manifest"
	// SourceOperator: the tigera operator runs it (or ran it, until calico-pilot took it over).
	SourceOperator SourceKind = "tigera-operator"
)

// Source describes an install source once, as data: what apply needs before it takes the install
// over, and how it writes into it. Apply chooses one per run (chooseSource) and asks it, instead of
// branching on what it found at every step.
type Source struct {
	Kind SourceKind
	// Name is the source in a person's words.
	Name string
	// NeedsAdopt: apply takes the install over only with --adopt (it did not apply what runs).
	NeedsAdopt bool
	// HandOver: another manager has to let go first (the operator stopped, its ownerReferences
	// and finalizers removed) before anything is rendered in.
	HandOver bool
	// ReplaceWorkloads: the workloads are replaced in place by an update (UIDs kept), not merged into
	// with server-side apply: the previous manager wrote them with updates whose fields would
	// contradict calico-pilot's (an env var with both value and valueFrom).
	ReplaceWorkloads bool
	// TakenOver is true when calico-pilot took this install over already (the state says so).
	TakenOver bool
}

var sources = map[SourceKind]Source{
	SourceNone:        {Kind: SourceNone, Name: "none: no Calico runs, apply installs it"},
	SourceCalicoPilot: {Kind: SourceCalicoPilot, Name: "calico-pilot's"},
	SourceManifest:    {Kind: SourceManifest, Name: "upstream's manifest (calico.yaml)", NeedsAdopt: true},
	SourceOperator:    {Kind: SourceOperator, Name: "the tigera operator's", NeedsAdopt: true, HandOver: true, ReplaceWorkloads: true},
}

// ErrNothingToAdopt is --adopt on a cluster where no Calico runs.
var ErrNothingToAdopt = errors.New("--adopt: no Calico runs on this cluster (no calico-node in kube-system or calico-system, no tigera operator, no state of calico-pilot's): " +
	"there is nothing to adopt; check that the kubeconfig names the cluster you mean, and install Calico afresh by running apply without --adopt; nothing was changed")

// chooseSource is the install source of what runs: the tigera operator's when anything gives it away
// (also after calico-pilot took it over: the operator may run again), calico-pilot's when its state
// says it applied or adopted the install, upstream's manifest when Calico runs without either, none
// when nothing runs. --adopt where nothing runs is refused: a wrong kubeconfig context would
// otherwise install Calico where nobody asked.
func chooseSource(req Request, in *install.Install, st State, found bool) (Source, error) {
	var s Source
	switch {
	case in.IsOperator():
		s = sources[SourceOperator]
		s.TakenOver = st.Operator != nil
	case found && (st.Release != "" || st.Move != nil || len(st.Owned) > 0):
		s = sources[SourceCalicoPilot]
		if st.Adopted {
			s.Name = "calico-pilot's (adopted from an install it did not make)"
		}
	case in.Found():
		s = sources[SourceManifest]
		if in.ByCalicoPilot() {
			s = sources[SourceCalicoPilot]
			s.Name = "calico-pilot's (its state is missing: rebuilt from the cluster)"
		}
	default:
		s = sources[SourceNone]
		if req.Adopt && !found {
			return Source{}, ErrNothingToAdopt
		}
	}
	return s, nil
}

// Describe is the source and what runs, in one line.
func (s Source) Describe(in *install.Install) string {
	if s.Kind == SourceNone {
		return s.Name
	}
	var parts []string
	lay := in.Layout.OrDefault()
	parts = append(parts, "namespace "+lay.Namespace)
	if s.Kind == SourceOperator {
		op := in.Operator
		if s.TakenOver {
			parts = append(parts, "taken over by calico-pilot")
		}
		if op.CalicoVersion != "" {
			parts = append(parts, "Installation says Calico "+op.CalicoVersion)
		}
	}
	return fmt.Sprintf("%s (%s)", s.Name, strings.Join(parts, "; "))
}
