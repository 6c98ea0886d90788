package network

import (
	"context"
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
)

// AddOptions configure how the controller is registered (the extension library's flags
// --max-concurrent-reconciles and --ignore-operation-annotation, and its reconcile timeout).
type AddOptions struct {
	// MaxConcurrentReconciles is how many Networks are reconciled in parallel.
	MaxConcurrentReconciles int
	// IgnoreOperationAnnotation reconciles on every generation change and Cluster change instead of
	// waiting for the gardenlet's gardener.cloud/operation annotation.
	IgnoreOperationAnnotation bool
	// ReconciliationTimeout bounds one reconcile (Gardener's default is 3 minutes).
	ReconciliationTimeout time.Duration
}

// AddArgs are what Add builds a Network controller from.
type AddArgs struct {
	AddOptions
	// Actuator does the work of the Networks of Type.
	Actuator Actuator
	// Type is the Network type (spec.type) the controller reconciles.
	Type string
	// Name names the controller in logs, metrics and events.
	Name string
	// Trigger, when set, enqueues the Networks sent on it whatever the predicates say: a reconcile
	// another controller asks for (the rollout, when a wave opens). Such a reconcile is not asked
	// for in the operation annotation's sense (Actuator.Reconcile's asked is false).
	Trigger <-chan event.GenericEvent
}

// Add registers a Network controller for args.Type with mgr, driving args.Actuator.
func Add(mgr manager.Manager, args AddArgs) error {
	r := &Reconciler{
		Client:   mgr.GetClient(),
		Actuator: args.Actuator,
		Type:     args.Type,
		Recorder: mgr.GetEventRecorder(args.Name),
	}
	preds := []predicate.Predicate{typePredicate(args.Type), classPredicate()}
	if args.IgnoreOperationAnnotation {
		preds = append(preds, predicate.GenerationChangedPredicate{})
	} else {
		preds = append(preds, operationAnnotationPredicate())
	}
	b := builder.ControllerManagedBy(mgr).
		Named(args.Name).
		For(&extensionsv1alpha1.Network{}, builder.WithPredicates(preds...)).
		WithOptions(controller.Options{
			MaxConcurrentReconciles: args.MaxConcurrentReconciles,
			ReconciliationTimeout:   args.ReconciliationTimeout,
		})
	if args.IgnoreOperationAnnotation {
		// Gardener's own Cluster mapping is filtered away by its predicates (docs/gardener-api-types.md
		// finding 4); here a Cluster change really enqueues the Networks of its namespace.
		b = b.Watches(&extensionsv1alpha1.Cluster{}, handler.EnqueueRequestsFromMapFunc(r.networksOfCluster))
	}
	if args.Trigger != nil {
		b = b.WatchesRawSource(source.Channel(args.Trigger, &handler.EnqueueRequestForObject{}))
	}
	if err := b.Complete(r); err != nil {
		return fmt.Errorf("setting up %s controller: %w", args.Name, err)
	}
	return nil
}

// networksOfCluster maps a Cluster to the Networks of r.Type in the namespace named after it.
func (r *Reconciler) networksOfCluster(ctx context.Context, obj client.Object) []reconcile.Request {
	var list extensionsv1alpha1.NetworkList
	if err := r.Client.List(ctx, &list, client.InNamespace(obj.GetName())); err != nil {
		return nil
	}
	var reqs []reconcile.Request
	for _, n := range list.Items {
		if n.Spec.Type == r.Type {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKey{Namespace: n.Namespace, Name: n.Name}})
		}
	}
	return reqs
}
