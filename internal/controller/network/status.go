package network

import (
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
)

// setStatus sets the conditions the reconcile changed and, when applied is set, what was applied:
// providerStatus and status.ipFamilies, in network.Status. Fields that did not change are left as
// they are, so the generic reconciler can tell an unchanged status from a changed one.
func setStatus(network *extensionsv1alpha1.Network, cs *conditionSet, applied *calicov1alpha1.NetworkStatus) error {
	before := network.DeepCopy()
	if cs.changed {
		network.Status.Conditions = cs.conditions
	}
	if applied != nil {
		st := *applied
		st.TypeMeta = metav1.TypeMeta{APIVersion: calicov1alpha1.SchemeGroupVersion.String(), Kind: "NetworkStatus"}
		raw, err := json.Marshal(st)
		if err != nil {
			return fmt.Errorf("encoding provider status: %w", err)
		}
		families := make([]gardencorev1beta1.IPFamily, 0, len(st.IPFamilies))
		for _, f := range st.IPFamilies {
			families = append(families, gardencorev1beta1.IPFamily(f))
		}
		if !providerStatusEqual(before.Status.ProviderStatus, raw) || !reflect.DeepEqual(before.Status.IPFamilies, families) {
			network.Status.ProviderStatus = &runtime.RawExtension{Raw: raw}
			network.Status.IPFamilies = families
		}
	}
	return nil
}

// providerStatusEqual compares JSON documents by value (the API server may reorder keys).
func providerStatusEqual(old *runtime.RawExtension, raw []byte) bool {
	if old == nil {
		return false
	}
	var a, b any
	if json.Unmarshal(old.Raw, &a) != nil || json.Unmarshal(raw, &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

// conditionSet collects the conditions a reconcile sets or removes; timestamps only move when
// something changed, so an unchanged reconcile writes no status for them.
type conditionSet struct {
	now        metav1.Time
	conditions []gardencorev1beta1.Condition
	changed    bool
}

func newConditionSet(existing []gardencorev1beta1.Condition, now time.Time) *conditionSet {
	cs := &conditionSet{now: metav1.NewTime(now)}
	for _, c := range existing {
		cs.conditions = append(cs.conditions, *c.DeepCopy())
	}
	return cs
}

func (cs *conditionSet) set(condType gardencorev1beta1.ConditionType, status gardencorev1beta1.ConditionStatus, reason, message string) {
	for i := range cs.conditions {
		c := &cs.conditions[i]
		if c.Type != condType {
			continue
		}
		if c.Status == status && c.Reason == reason && c.Message == message {
			return
		}
		if c.Status != status {
			c.LastTransitionTime = cs.now
		}
		c.Status, c.Reason, c.Message, c.LastUpdateTime = status, reason, message, cs.now
		cs.changed = true
		return
	}
	cs.conditions = append(cs.conditions, gardencorev1beta1.Condition{
		Type: condType, Status: status,
		Reason: reason, Message: message, LastTransitionTime: cs.now, LastUpdateTime: cs.now,
	})
	cs.changed = true
}

// get returns the condition of condType, nil when there is none.
func (cs *conditionSet) get(condType gardencorev1beta1.ConditionType) *gardencorev1beta1.Condition {
	for i := range cs.conditions {
		if cs.conditions[i].Type == condType {
			return &cs.conditions[i]
		}
	}
	return nil
}

func (cs *conditionSet) remove(condType gardencorev1beta1.ConditionType) {
	for i := range cs.conditions {
		if cs.conditions[i].Type == condType {
			cs.conditions = append(cs.conditions[:i], cs.conditions[i+1:]...)
			cs.changed = true
			return
		}
	}
}
