package network

import (
	"time"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/rollout"
)

// RolloutView tells the actuator which shoots the operator's rollout moves now: the members of the
// open waves of the active rollout, none while it is halted (internal/rollout keeps it in memory,
// published by the rollout controller, so a reconcile asks the API server nothing for it).
type RolloutView interface {
	// Assignment returns where the rollout moves the shoot of namespace, false when it does not.
	Assignment(namespace string) (rollout.Assignment, bool)
}

// releaseFacts are the facts of one Network for calicoversion.Decide, the one decision of which
// release a shoot runs (docs/upgrades.md): recorded is calico-pilot's provider status of the last
// reconcile (nil: none); deployed is true when the shoot already runs a Calico (recorded, or a
// ManagedResource of the reference's); now stamps a move the decision starts.
func releaseFacts(recorded *calicov1alpha1.NetworkStatus, deployed bool, cfg *calicov1alpha1.NetworkConfig, operator *configv1alpha1.ControllerConfiguration,
	assignment *rollout.Assignment, kubernetes string, hibernated bool, now time.Time) calicoversion.Facts {
	f := calicoversion.RecordedFacts(recorded)
	f.Deployed, f.Kubernetes, f.Hibernated, f.Now = deployed, kubernetes, hibernated, now
	if cfg != nil {
		f.Pin = cfg.CalicoVersion
	}
	if operator != nil && operator.Calico != nil {
		f.OperatorDefault = operator.Calico.DefaultVersion
	}
	if assignment != nil {
		f.RolloutTarget, f.Rollout = assignment.Target, assignment.Rollout
	}
	return f
}

// conditionStatus maps a decision's condition to the Network's.
func conditionStatus(c calicoversion.Condition) gardencorev1beta1.ConditionStatus {
	switch c {
	case calicoversion.ConditionTrue:
		return gardencorev1beta1.ConditionTrue
	case calicoversion.ConditionProgressing:
		return gardencorev1beta1.ConditionProgressing
	}
	return gardencorev1beta1.ConditionFalse
}

// catalogue is the actuator's Calico release catalogue (the default one unless a test sets another).
func (a *Actuator) catalogue() *calicoversion.Catalogue {
	if a.Catalogue != nil {
		return a.Catalogue
	}
	return calicoversion.Default()
}
