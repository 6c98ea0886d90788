package network

import (
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
)

// operationType decides which operation a Network needs, in Gardener's order: migrate annotation,
// deletion, restore annotation, then continuing an unfinished Create/Migrate/Restore, else Reconcile.
func operationType(network *extensionsv1alpha1.Network) gardencorev1beta1.LastOperationType {
	annotation := network.Annotations[AnnotationOperation]
	last := network.Status.LastOperation
	switch {
	case annotation == OperationMigrate:
		return gardencorev1beta1.LastOperationTypeMigrate
	case network.DeletionTimestamp != nil:
		return gardencorev1beta1.LastOperationTypeDelete
	case annotation == OperationRestore:
		return gardencorev1beta1.LastOperationTypeRestore
	case last == nil:
		return gardencorev1beta1.LastOperationTypeCreate
	case last.State != gardencorev1beta1.LastOperationStateSucceeded && last.Type == gardencorev1beta1.LastOperationTypeCreate:
		return gardencorev1beta1.LastOperationTypeCreate
	case last.State != gardencorev1beta1.LastOperationStateSucceeded && last.Type == gardencorev1beta1.LastOperationTypeMigrate:
		return gardencorev1beta1.LastOperationTypeMigrate
	case last.State != gardencorev1beta1.LastOperationStateSucceeded && last.Type == gardencorev1beta1.LastOperationTypeRestore:
		return gardencorev1beta1.LastOperationTypeRestore
	default:
		return gardencorev1beta1.LastOperationTypeReconcile
	}
}

// migrated reports whether the Network was successfully migrated away from this seed; such a Network
// is left alone until a restore.
func migrated(network *extensionsv1alpha1.Network) bool {
	last := network.Status.LastOperation
	return last != nil && last.Type == gardencorev1beta1.LastOperationTypeMigrate && last.State == gardencorev1beta1.LastOperationStateSucceeded
}

// descriptions are the lastOperation texts per flow: processing, error prefix, success.
type descriptions struct{ processing, errorPrefix, success, event string }

func describe(op gardencorev1beta1.LastOperationType) descriptions {
	switch op {
	case gardencorev1beta1.LastOperationTypeDelete:
		return descriptions{"Deleting the Network", "Error deleting Network", "Successfully deleted Network", EventDeletion}
	case gardencorev1beta1.LastOperationTypeMigrate:
		return descriptions{"Migrating the Network", "Error migrating Network", "Successfully migrated Network", EventMigration}
	case gardencorev1beta1.LastOperationTypeRestore:
		return descriptions{"Restoring the Network", "Error restoring Network", "Successfully restored Network", EventRestoration}
	default:
		return descriptions{"Reconciling the Network", "Error reconciling Network", "Successfully reconciled Network", EventReconciliation}
	}
}
