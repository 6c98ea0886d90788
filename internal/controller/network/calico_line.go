package network

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/rollout"
)

// RolloutView tells the actuator which shoots the operator's rollout moves now: the members of the
// open waves of the active rollout, none while it is halted (internal/rollout keeps it in memory,
// published by the rollout controller, so a reconcile asks the API server nothing for it).
type RolloutView interface {
	// Assignment returns where the rollout moves the shoot of namespace, false when it does not.
	Assignment(namespace string) (rollout.Assignment, bool)
}

// lineInputs are the facts the choice of a Network's Calico line is made from.
type lineInputs struct {
	// Recorded is calico-pilot's provider status of the last reconcile (nil: none).
	Recorded *calicov1alpha1.NetworkStatus
	// Deployed is true when the shoot already runs a Calico (Recorded, or a ManagedResource of the
	// reference's).
	Deployed bool
	// Config is the decoded providerConfig (the owner's pin).
	Config *calicov1alpha1.NetworkConfig
	// Operator is the ControllerConfiguration (the default line for new shoots).
	Operator *configv1alpha1.ControllerConfiguration
	// Assignment is the rollout's, when the shoot's wave is open.
	Assignment *rollout.Assignment
	// KubernetesVersion is the shoot's.
	KubernetesVersion string
	// Hibernated is true when hibernation is wanted: no move starts.
	Hibernated bool
	// Now stamps a move that starts.
	Now time.Time
}

// lineDecision is what a reconcile deploys: the move step (or the steady line) and how to report it.
type lineDecision struct {
	// Current is the line every component ran when the reconcile started (the move's From while moving).
	Current calicoversion.Version
	// Move is the move in progress after this decision; nil when steady on Current.
	Move *calicov1alpha1.CalicoMove
	// CRDs is the newest line whose CRDs the shoot ever had (never lowered).
	CRDs calicoversion.Version
	// Started is true when this decision starts Move.
	Started bool
	// Condition is the CalicoVersion condition (status, reason, message) unless the step changes it.
	Status          gardencorev1beta1.ConditionStatus
	Reason, Message string
}

// Deployment is what each component runs for this decision.
func (d lineDecision) Deployment() calicoversion.Deployment {
	if d.Move == nil {
		s := calicoversion.Steady(d.Current)
		if !d.CRDs.IsZero() {
			s.CRDs = calicoversion.Newer(d.Current, d.CRDs)
		}
		return s
	}
	return calicoversion.Move(d.Current, calicoversion.MustParse(d.Move.To), d.CRDs, calicoversion.Phase(d.Move.Phase))
}

// decideLine chooses the line of one Network (docs/upgrades.md):
//   - the current line is the recorded one; a deployed shoot without a record runs v3.31.6 (deployed
//     before lines were recorded, or by the reference); a new shoot starts on its pin, else the
//     operator's default, without a move;
//   - a move in progress always completes (a halt or a changed pin never turns it around halfway);
//   - otherwise the owner's pin wins, then the rollout's open wave; a line that does not support
//     the shoot's Kubernetes, a pin that is not supported (any more) and a hibernated shoot keep
//     the current line, and the condition says why.
func decideLine(in lineInputs) lineDecision {
	var recordedCRDs calicoversion.Version
	current := calicoversion.V3_31
	if r := in.Recorded; r != nil {
		if v, err := calicoversion.Parse(r.CalicoVersion); err == nil {
			current = v
		}
		if v, err := calicoversion.Parse(r.CalicoCRDVersion); err == nil {
			recordedCRDs = v
		}
		if m := r.CalicoMove; m != nil {
			if to, err := calicoversion.Parse(m.To); err == nil && to != current {
				d := lineDecision{Current: current, Move: m.DeepCopy(), CRDs: calicoversion.Newer(calicoversion.Newer(current, to), recordedCRDs.OrDefaultLine())}
				d.Status, d.Reason = gardencorev1beta1.ConditionProgressing, "Moving"
				d.Message = fmt.Sprintf("Moving from Calico %s to %s (phase %s, started %s).", current.Release, to.Release, m.Phase, m.Started.UTC().Format(time.RFC3339))
				return d
			}
		}
	}
	if !in.Deployed {
		return newShootLine(in)
	}
	d := lineDecision{Current: current, CRDs: calicoversion.Newer(current, recordedCRDs.OrDefaultLine()), Status: gardencorev1beta1.ConditionTrue, Reason: "Deployed"}
	d.Message = fmt.Sprintf("Calico %s runs on every component.", current.Release)
	if recordedCRDs.IsZero() {
		d.CRDs = current
	}
	want, rolloutName, source := current, "", ""
	if pin := in.Config.CalicoVersion; pin != nil {
		v, err := calicoversion.Parse(*pin)
		if err != nil {
			// Ratchet: a pin accepted once keeps reconciling; the shoot stays where it is.
			d.Status, d.Reason = gardencorev1beta1.ConditionFalse, "PinUnsupported"
			d.Message = fmt.Sprintf("providerConfig calicoVersion: %v; the shoot stays on Calico %s.", err, current.Release)
			return d
		}
		want, source = v, "its owner's pin (providerConfig calicoVersion)"
	} else if a := in.Assignment; a != nil {
		if v, err := calicoversion.Parse(a.Target); err == nil {
			want, rolloutName, source = v, a.Rollout, fmt.Sprintf("rollout %q", a.Rollout)
		}
	}
	if want == current {
		return d
	}
	if !want.SupportsKubernetes(in.KubernetesVersion) {
		d.Status, d.Reason = gardencorev1beta1.ConditionFalse, "KubernetesUnsupported"
		d.Message = fmt.Sprintf("%s asks for Calico %s, which does not support Kubernetes %s (supports %s-%s); the shoot stays on Calico %s.",
			source, want, in.KubernetesVersion, want.KubernetesMin, want.KubernetesMax, current.Release)
		return d
	}
	if in.Hibernated {
		d.Message = fmt.Sprintf("Calico %s runs on every component; the move to %s asked by %s starts after wake-up.", current.Release, want, source)
		return d
	}
	d.Move = &calicov1alpha1.CalicoMove{From: current.Release, To: want.Release, Phase: string(calicoversion.PhaseFirst), Started: metav1.NewTime(in.Now), Rollout: rolloutName}
	d.CRDs = calicoversion.Newer(d.CRDs, want)
	d.Started = true
	d.Status, d.Reason = gardencorev1beta1.ConditionProgressing, "Moving"
	d.Message = fmt.Sprintf("Moving from Calico %s to %s, asked by %s: %s first.", current.Release, want.Release, source, firstMover(current, want))
	return d
}

// newShootLine is the line of a shoot that runs no Calico yet: its pin, else its open wave's target,
// else the operator's default.
func newShootLine(in lineInputs) lineDecision {
	v, err := pipeline.CalicoVersion(in.Config, in.Operator)
	if a := in.Assignment; a != nil && in.Config.CalicoVersion == nil {
		// Created while its wave is open (or a member whose Network had never been reconciled):
		// it starts where the wave goes, nothing to move.
		if t, terr := calicoversion.Parse(a.Target); terr == nil && t.SupportsKubernetes(in.KubernetesVersion) {
			v = t
		}
	}
	d := lineDecision{Status: gardencorev1beta1.ConditionTrue, Reason: "Deployed"}
	if err != nil {
		v, _ = pipeline.CalicoVersion(&calicov1alpha1.NetworkConfig{}, in.Operator)
		d.Status, d.Reason = gardencorev1beta1.ConditionFalse, "PinUnsupported"
		d.Message = fmt.Sprintf("%v; the shoot gets the operator's default, Calico %s.", err, v.Release)
	}
	if v.IsZero() {
		v = calicoversion.Default()
	}
	d.Current, d.CRDs = v, v
	if d.Message == "" {
		d.Message = fmt.Sprintf("Calico %s runs on every component.", v.Release)
	}
	return d
}

// firstMover names the component that moves first: calico-node up (a new Typha refuses old
// clients), Typha and kube-controllers down.
func firstMover(from, to calicoversion.Version) string {
	if to.Compare(from) > 0 {
		return "calico-node"
	}
	return "Typha and kube-controllers"
}
