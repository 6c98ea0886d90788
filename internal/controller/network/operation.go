package network

import (
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
)

// Operation types and states of lastOperation.
const (
	OpCreate    = "Create"
	OpReconcile = "Reconcile"
	OpDelete    = "Delete"
	OpMigrate   = "Migrate"
	OpRestore   = "Restore"

	StateProcessing = "Processing"
	StateSucceeded  = "Succeeded"
	StateError      = "Error"
)

// operationType decides which operation a Network needs, in Gardener's order: migrate annotation,
// deletion, restore annotation, then continuing an unfinished Create/Migrate/Restore, else Reconcile.
func operationType(network *extensionsv1alpha1.Network) string {
	annotation := network.Annotations[AnnotationOperation]
	last := network.Status.LastOperation
	switch {
	case annotation == OperationMigrate:
		return OpMigrate
	case network.DeletionTimestamp != nil:
		return OpDelete
	case annotation == OperationRestore:
		return OpRestore
	case last == nil:
		return OpCreate
	case string(last.State) != StateSucceeded && string(last.Type) == OpCreate:
		return OpCreate
	case string(last.State) != StateSucceeded && string(last.Type) == OpMigrate:
		return OpMigrate
	case string(last.State) != StateSucceeded && string(last.Type) == OpRestore:
		return OpRestore
	default:
		return OpReconcile
	}
}

// migrated reports whether the Network was successfully migrated away from this seed; such a Network
// is left alone until a restore.
func migrated(network *extensionsv1alpha1.Network) bool {
	last := network.Status.LastOperation
	return last != nil && string(last.Type) == OpMigrate && string(last.State) == StateSucceeded
}

// descriptions are the lastOperation texts per flow: processing, error prefix, success.
type descriptions struct{ processing, errorPrefix, success, event string }

func describe(op string) descriptions {
	switch op {
	case OpDelete:
		return descriptions{"Deleting the Network", "Error deleting Network", "Successfully deleted Network", EventDeletion}
	case OpMigrate:
		return descriptions{"Migrating the Network", "Error migrating Network", "Successfully migrated Network", EventMigration}
	case OpRestore:
		return descriptions{"Restoring the Network", "Error restoring Network", "Successfully restored Network", EventRestoration}
	default:
		return descriptions{"Reconciling the Network", "Error reconciling Network", "Successfully reconciled Network", EventReconciliation}
	}
}
