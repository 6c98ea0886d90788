package network

// Well-known keys of the Gardener extension contract (gardener-wire-types.md section 3).
const (
	// FinalizerName keeps a Network until its actuator has cleaned up.
	FinalizerName = "extensions.gardener.cloud/network"

	// AnnotationOperation is the gardenlet's operation annotation.
	AnnotationOperation = "gardener.cloud/operation"
	// OperationReconcile asks for a reconcile now; removed at the start.
	OperationReconcile = "reconcile"
	// OperationRestore asks for a restore; removed after success.
	OperationRestore = "restore"
	// OperationMigrate asks for a migrate; removed after success.
	OperationMigrate = "migrate"
	// OperationWaitForState means "do nothing until the state is restored".
	OperationWaitForState = "wait-for-state"
	// annotationTimestamp is set by the gardenlet together with every operation annotation.
	annotationTimestamp = "gardener.cloud/timestamp"
	// AnnotationForceDeletion on the Shoot makes deletion skip waiting (ForceDelete).
	AnnotationForceDeletion = "confirmation.gardener.cloud/force-deletion"
)

// Event reasons, as the reference's generic reconciler names them.
const (
	EventReconciliation = "NetworkReconciliation"
	EventDeletion       = "NetworkDeletion"
	EventRestoration    = "NetworkRestoration"
	EventMigration      = "NetworkMigration"
)
