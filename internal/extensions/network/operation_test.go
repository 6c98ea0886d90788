package network

import (
	"testing"

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
