package network

import extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"

// Well-known keys of the Gardener extension contract (docs/gardener-api-types.md section 3): the wire
// constants of api/gardener/extensions/v1alpha1, under the names the lifecycle uses.
const (
	// FinalizerName keeps a Network until its actuator has cleaned up.
	FinalizerName = extensionsv1alpha1.FinalizerNetwork

	// AnnotationOperation is the gardenlet's operation annotation.
	AnnotationOperation = extensionsv1alpha1.AnnotationOperation
	// OperationReconcile asks for a reconcile now; removed at the start.
	OperationReconcile = extensionsv1alpha1.OperationReconcile
	// OperationRestore asks for a restore; removed after success.
	OperationRestore = extensionsv1alpha1.OperationRestore
	// OperationMigrate asks for a migrate; removed after success.
	OperationMigrate = extensionsv1alpha1.OperationMigrate
	// OperationWaitForState means "do nothing until the state is restored".
	OperationWaitForState = extensionsv1alpha1.OperationWaitForState
	// annotationTimestamp is set by the gardenlet together with every operation annotation.
	annotationTimestamp = extensionsv1alpha1.AnnotationTimestamp
	// AnnotationForceDeletion on the Shoot makes deletion skip waiting (ForceDelete).
	AnnotationForceDeletion = extensionsv1alpha1.AnnotationConfirmationForceDeletion
)

// Event reasons, as the reference's generic reconciler names them.
const (
	EventReconciliation = "NetworkReconciliation"
	EventDeletion       = "NetworkDeletion"
	EventRestoration    = "NetworkRestoration"
	EventMigration      = "NetworkMigration"
)
