package network

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
)

func networkWith(annotation string, deleting bool, last *gardencorev1beta1.LastOperation) *extensionsv1alpha1.Network {
	n := &extensionsv1alpha1.Network{}
	if annotation != "" {
		n.Annotations = map[string]string{"gardener.cloud/operation": annotation}
	}
	if deleting {
		now := metav1.Now()
		n.DeletionTimestamp = &now
	}
	n.Status.LastOperation = last
	return n
}

func lastOp(typ, state string) *gardencorev1beta1.LastOperation {
	return &gardencorev1beta1.LastOperation{Type: gardencorev1beta1.LastOperationType(typ), State: gardencorev1beta1.LastOperationState(state)}
}

func TestOperationType(t *testing.T) {
	tests := []struct {
		name       string
		network    *extensionsv1alpha1.Network
		want       gardencorev1beta1.LastOperationType
		isMigrated bool
	}{
		{name: "new", network: networkWith("", false, nil), want: "Create"},
		{name: "reconcile annotation on new", network: networkWith("reconcile", false, nil), want: "Create"},
		{name: "create failed is retried as create", network: networkWith("", false, lastOp("Create", "Error")), want: "Create"},
		{name: "create succeeded", network: networkWith("reconcile", false, lastOp("Create", "Succeeded")), want: "Reconcile"},
		{name: "migrate annotation wins over deletion", network: networkWith("migrate", true, lastOp("Reconcile", "Succeeded")), want: "Migrate"},
		{name: "deletion wins over restore", network: networkWith("restore", true, lastOp("Reconcile", "Succeeded")), want: "Delete"},
		{name: "restore annotation", network: networkWith("restore", false, lastOp("Migrate", "Succeeded")), want: "Restore", isMigrated: true},
		{name: "failed migrate continues without annotation", network: networkWith("", false, lastOp("Migrate", "Error")), want: "Migrate"},
		{name: "failed restore continues without annotation", network: networkWith("", false, lastOp("Restore", "Error")), want: "Restore"},
		{name: "migrated network, reconcile annotation", network: networkWith("reconcile", false, lastOp("Migrate", "Succeeded")), want: "Reconcile", isMigrated: true},
		{name: "reconcile error", network: networkWith("", false, lastOp("Reconcile", "Error")), want: "Reconcile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := operationType(tt.network); got != tt.want {
				t.Errorf("operationType = %s, want %s", got, tt.want)
			}
			if got := migrated(tt.network); got != tt.isMigrated {
				t.Errorf("migrated = %v, want %v", got, tt.isMigrated)
			}
		})
	}
}

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
