package network

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
)

func TestConditionSet(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Hour)
	existing := []gardencorev1beta1.Condition{{
		Type: "ConfigurationValid", Status: "True", Reason: "ProviderConfigValid", Message: "ok",
		LastTransitionTime: metav1.NewTime(t0), LastUpdateTime: metav1.NewTime(t0),
	}}

	cs := newConditionSet(existing, t1)
	cs.set("ConfigurationValid", "True", "ProviderConfigValid", "ok")
	if cs.changed {
		t.Error("setting an identical condition marked the set changed")
	}
	cs.set("ConfigurationValid", "True", "ProviderConfigValid", "still ok")
	if !cs.changed || !cs.conditions[0].LastTransitionTime.Time.Equal(t0) || !cs.conditions[0].LastUpdateTime.Time.Equal(t1) {
		t.Errorf("message change: %+v, want transition time kept and update time moved", cs.conditions[0])
	}
	cs.set("ConfigurationValid", "False", "InvalidProviderConfig", "bad")
	if !cs.conditions[0].LastTransitionTime.Time.Equal(t1) {
		t.Errorf("status change did not move lastTransitionTime: %+v", cs.conditions[0])
	}
	cs = newConditionSet(existing, t1)
	cs.remove("OverlaySwitchReady")
	if cs.changed {
		t.Error("removing an absent condition marked the set changed")
	}
	cs.remove("ConfigurationValid")
	if !cs.changed || len(cs.conditions) != 0 {
		t.Errorf("remove: changed %v, conditions %v", cs.changed, cs.conditions)
	}
	if existing[0].Message != "ok" {
		t.Error("the Network's conditions were modified in place")
	}
}
