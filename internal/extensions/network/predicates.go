package network

import (
	"reflect"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
)

// typePredicate admits Networks of type typ.
func typePredicate(typ string) predicate.Predicate {
	return predicate.NewPredicateFuncs(func(obj client.Object) bool {
		n, ok := obj.(*extensionsv1alpha1.Network)
		return ok && n.Spec.Type == typ
	})
}

// classPredicate admits Networks of the shoot class (unset means shoot).
func classPredicate() predicate.Predicate {
	return predicate.NewPredicateFuncs(func(obj client.Object) bool {
		n, ok := obj.(*extensionsv1alpha1.Network)
		return ok && (n.Spec.Class == nil || string(*n.Spec.Class) == "shoot")
	})
}

// hasOperationAnnotation is true for reconcile, restore and migrate.
func hasOperationAnnotation(obj client.Object) bool {
	switch obj.GetAnnotations()[AnnotationOperation] {
	case OperationReconcile, OperationRestore, OperationMigrate:
		return true
	}
	return false
}

// operationAnnotationPredicate admits what the gardenlet asks for: creations (also sent for every
// object at start-up) with an operation annotation, a deletion, or an unfinished last operation;
// updates that set an operation annotation or that mark the object deleted (but not our own
// status writes during deletion).
func operationAnnotationPredicate() predicate.Predicate {
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool {
			n, ok := e.Object.(*extensionsv1alpha1.Network)
			if !ok {
				return false
			}
			last := n.Status.LastOperation
			return hasOperationAnnotation(n) || n.DeletionTimestamp != nil || last == nil || last.State != gardencorev1beta1.LastOperationStateSucceeded
		},
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldN, ok1 := e.ObjectOld.(*extensionsv1alpha1.Network)
			newN, ok2 := e.ObjectNew.(*extensionsv1alpha1.Network)
			if !ok1 || !ok2 {
				return false
			}
			// Only a newly set operation (annotation or its timestamp changed) or a spec change
			// counts: our own finalizer and status writes during a restore or migrate, while the
			// annotation is still on, would otherwise queue a second, ordinary reconcile.
			if hasOperationAnnotation(newN) && (oldN.Annotations[AnnotationOperation] != newN.Annotations[AnnotationOperation] ||
				oldN.Annotations[annotationTimestamp] != newN.Annotations[annotationTimestamp] ||
				oldN.Generation != newN.Generation) {
				return true
			}
			return newN.DeletionTimestamp != nil && reflect.DeepEqual(oldN.Status, newN.Status)
		},
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}
