package network

import (
	"context"
	"fmt"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
)

// Reconciler runs the generic extension lifecycle for the Networks of one type and calls the
// Actuator. Per reconcile it is a short list of named steps: read the Network, skip it when the
// state is still to be restored, read the Cluster, drop the reconcile annotation, skip a failed
// shoot or a migrated Network, then migrate, delete or reconcile/restore.
type Reconciler struct {
	// Client reads Networks and Clusters and writes their metadata and status.
	Client client.Client
	// Actuator does the type-specific work.
	Actuator Actuator
	// Type is the Network type reconciled; Networks of other types are left alone.
	Type string
	// Recorder records Kubernetes events on the Network; nil records none.
	Recorder events.EventRecorder
	// Now is the clock for lastOperation timestamps.
	Now func() time.Time
}

// Reconcile implements reconcile.Reconciler: read the Network, wait while its state is to be
// restored, read the Cluster, drop a reconcile annotation the reconcile flow will not drop, skip
// what is left alone, then migrate, delete, or reconcile / restore.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	log := logf.FromContext(ctx)
	network, err := r.getNetwork(ctx, req.NamespacedName)
	if network == nil {
		return reconcile.Result{}, err
	}
	annotation := network.Annotations[AnnotationOperation]
	if annotation == OperationWaitForState {
		log.V(1).Info("Waiting for state to be restored")
		return reconcile.Result{}, nil
	}
	cluster, err := GetCluster(ctx, r.Client, network.Namespace)
	if err != nil {
		return reconcile.Result{}, err
	}
	op := operationType(network)
	if annotation == OperationReconcile && !entersReconcile(network, cluster, op) {
		// A reconcile (the common case) removes the annotation in the same metadata patch that adds
		// the finalizer; every other path removes it here, first, as Gardener's wrapper does.
		if err := r.removeOperationAnnotation(ctx, network); err != nil {
			return reconcile.Result{}, err
		}
	}
	if skip(log, network, cluster, op) {
		return reconcile.Result{}, nil
	}
	switch {
	case op == gardencorev1beta1.LastOperationTypeMigrate:
		return r.migrate(ctx, network, cluster)
	case network.DeletionTimestamp != nil:
		return r.delete(ctx, network, cluster)
	default:
		return r.reconcileOrRestore(ctx, network, cluster, op, annotation != "")
	}
}

// getNetwork reads the Network; nil (and no error) when it is gone or of another type.
func (r *Reconciler) getNetwork(ctx context.Context, key client.ObjectKey) (*extensionsv1alpha1.Network, error) {
	network := &extensionsv1alpha1.Network{}
	if err := r.Client.Get(ctx, key, network); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading Network %s: %w", key, err)
	}
	if network.Spec.Type != r.Type {
		return nil, nil
	}
	return network, nil
}

// entersReconcile says whether this reconcile goes on to reconcileOrRestore.
func entersReconcile(network *extensionsv1alpha1.Network, cluster *Cluster, op gardencorev1beta1.LastOperationType) bool {
	return op != gardencorev1beta1.LastOperationTypeMigrate && network.DeletionTimestamp == nil &&
		!shootFailed(cluster.Shoot) && !migrated(network)
}

// skip says whether the Network is left alone (its shoot failed; it was migrated away and is
// neither migrated again nor restored) and logs why.
func skip(log logr.Logger, network *extensionsv1alpha1.Network, cluster *Cluster, op gardencorev1beta1.LastOperationType) bool {
	if shootFailed(cluster.Shoot) {
		log.Info("Skipping Network of a failed shoot")
		return true
	}
	if migrated(network) && op != gardencorev1beta1.LastOperationTypeMigrate && op != gardencorev1beta1.LastOperationTypeRestore {
		log.V(1).Info("Skipping migrated Network")
		return true
	}
	return false
}

// reconcileOrRestore: finalizer and annotation removal in one metadata patch, the actuator, then one
// status write (Succeeded or Error) with everything the reconcile changed; (restore) drop the
// restore annotation.
//
// No Processing status is written before the actuator: a reconcile is short (its requests, bounded
// DNS retries, a few shoot requests for the pool sync and the overlay switch; ReconciliationTimeout
// caps it), and the gardenlet's wait only looks for Succeeded with a lastUpdateTime not before its
// timestamp, which the old lastOperation does not have. Delete and migrate, which wait for the
// shoot's resource manager, still write Processing first.
//
// A reconcile that was not asked for (a requeue after a DNS TTL, no operation annotation) of a
// Network whose last operation succeeded and whose status would not change writes nothing.
// requested is whether an operation annotation asked for this reconcile.
func (r *Reconciler) reconcileOrRestore(ctx context.Context, network *extensionsv1alpha1.Network, cluster *Cluster, op gardencorev1beta1.LastOperationType, requested bool) (reconcile.Result, error) {
	log := logf.FromContext(ctx).WithValues("operation", op)
	d := describe(op)
	if err := r.prepareMetadata(ctx, network); err != nil {
		return reconcile.Result{}, err
	}
	base := network.DeepCopy()
	requeue, err := r.actuate(ctx, log, network, cluster, op, requested)
	if err != nil {
		return r.fail(ctx, base, network, op, d, err)
	}
	if requested || !settled(base, network, op) {
		if err := r.writeSuccess(ctx, base, network, op, d); err != nil {
			return reconcile.Result{}, err
		}
	}
	if op == gardencorev1beta1.LastOperationTypeRestore {
		if err := r.removeOperationAnnotation(ctx, network); err != nil {
			return reconcile.Result{}, err
		}
	}
	return reconcile.Result{RequeueAfter: requeue}, nil
}

// actuate calls the actuator's Restore or Reconcile; a reconcile is asked for when an operation
// annotation requested it or the spec changed since the last observed generation.
func (r *Reconciler) actuate(ctx context.Context, log logr.Logger, network *extensionsv1alpha1.Network, cluster *Cluster, op gardencorev1beta1.LastOperationType, requested bool) (time.Duration, error) {
	if op == gardencorev1beta1.LastOperationTypeRestore {
		return r.Actuator.Restore(ctx, log, network, cluster)
	}
	asked := requested || network.Generation != network.Status.ObservedGeneration
	return r.Actuator.Reconcile(ctx, log, network, cluster, asked)
}

// settled says whether the Network's status already says a reconcile of this generation succeeded,
// with nothing the actuator changed: then an unasked reconcile writes no status. base is the
// Network as read, network as the actuator left it.
//
// The last operation need not be op itself: once a Create or Restore succeeded, the next operation
// is a Reconcile (operationType), and its success with nothing changed says nothing the create's
// or restore's success does not. Rewriting it would only turn the first TTL requeue after a create
// into a status write (type Create -> Reconcile, a new lastUpdateTime) for an unchanged Network.
func settled(base, network *extensionsv1alpha1.Network, op gardencorev1beta1.LastOperationType) bool {
	last := base.Status.LastOperation
	return last != nil && last.State == gardencorev1beta1.LastOperationStateSucceeded && settles(last.Type, op) &&
		base.Status.LastError == nil && base.Status.ObservedGeneration == network.Generation &&
		equality.Semantic.DeepEqual(base.Status, network.Status)
}

// settles says whether a success of last already stands for a success of op: the same operation,
// or a Reconcile after a successful Create or Restore.
func settles(last, op gardencorev1beta1.LastOperationType) bool {
	if last == op {
		return true
	}
	return op == gardencorev1beta1.LastOperationTypeReconcile &&
		(last == gardencorev1beta1.LastOperationTypeCreate || last == gardencorev1beta1.LastOperationTypeRestore)
}

// delete: nothing to do without our finalizer; else Processing, actuator, Success, drop finalizer.
func (r *Reconciler) delete(ctx context.Context, network *extensionsv1alpha1.Network, cluster *Cluster) (reconcile.Result, error) {
	log := logf.FromContext(ctx).WithValues("operation", gardencorev1beta1.LastOperationTypeDelete)
	if !controllerutil.ContainsFinalizer(network, FinalizerName) {
		return reconcile.Result{}, nil
	}
	d := describe(gardencorev1beta1.LastOperationTypeDelete)
	if err := r.writeProcessing(ctx, network, gardencorev1beta1.LastOperationTypeDelete, d); err != nil {
		return reconcile.Result{}, err
	}
	var err error
	if forceDeletion(cluster.Shoot) {
		err = r.Actuator.ForceDelete(ctx, log, network, cluster)
	} else {
		err = r.Actuator.Delete(ctx, log, network, cluster)
	}
	if err != nil {
		return r.fail(ctx, network.DeepCopy(), network, gardencorev1beta1.LastOperationTypeDelete, d, err)
	}
	if err := r.writeSuccess(ctx, network.DeepCopy(), network, gardencorev1beta1.LastOperationTypeDelete, d); err != nil {
		return reconcile.Result{}, err
	}
	patch := client.MergeFromWithOptions(network.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(network, FinalizerName)
	if err := r.Client.Patch(ctx, network, patch); err != nil && !apierrors.IsNotFound(err) {
		return reconcile.Result{}, fmt.Errorf("removing finalizer from Network: %w", err)
	}
	return reconcile.Result{}, nil
}

// migrate: Processing, actuator, Success, drop all finalizers, drop the annotation.
func (r *Reconciler) migrate(ctx context.Context, network *extensionsv1alpha1.Network, cluster *Cluster) (reconcile.Result, error) {
	log := logf.FromContext(ctx).WithValues("operation", gardencorev1beta1.LastOperationTypeMigrate)
	d := describe(gardencorev1beta1.LastOperationTypeMigrate)
	if err := r.writeProcessing(ctx, network, gardencorev1beta1.LastOperationTypeMigrate, d); err != nil {
		return reconcile.Result{}, err
	}
	if err := r.Actuator.Migrate(ctx, log, network, cluster); err != nil {
		return r.fail(ctx, network.DeepCopy(), network, gardencorev1beta1.LastOperationTypeMigrate, d, err)
	}
	if err := r.writeSuccess(ctx, network.DeepCopy(), network, gardencorev1beta1.LastOperationTypeMigrate, d); err != nil {
		return reconcile.Result{}, err
	}
	patch := client.MergeFrom(network.DeepCopy())
	network.Finalizers = nil
	if err := r.Client.Patch(ctx, network, patch); err != nil && !apierrors.IsNotFound(err) {
		return reconcile.Result{}, fmt.Errorf("removing finalizers from migrated Network: %w", err)
	}
	if err := r.removeOperationAnnotation(ctx, network); err != nil && !apierrors.IsNotFound(err) {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, nil
}

// fail writes the Error status and event and decides how the error is retried: configuration
// errors wait for a change of the Network, errors that asked for a delay are requeued after it, all
// others go through controller-runtime's backoff.
// base is the Network as the API server has it; network may carry status the actuator set
// (conditions), which goes into the same write.
func (r *Reconciler) fail(ctx context.Context, base, network *extensionsv1alpha1.Network, op gardencorev1beta1.LastOperationType, d descriptions, cause error) (reconcile.Result, error) {
	description := upperFirst(d.errorPrefix + ": " + cause.Error())
	now := metav1.NewTime(r.now())
	patch := client.MergeFrom(base)
	network.Status.LastOperation = &gardencorev1beta1.LastOperation{
		Type: op, State: gardencorev1beta1.LastOperationStateError,
		Progress: 50, Description: description, LastUpdateTime: now,
	}
	network.Status.LastError = &gardencorev1beta1.LastError{Description: description, Codes: toErrorCodes(errorCodes(cause)), LastUpdateTime: &now}
	network.Status.ObservedGeneration = network.Generation
	if err := r.Client.Status().Patch(ctx, network, patch); err != nil {
		logf.FromContext(ctx).Error(err, "Could not write Error status", "operation", op)
	}
	r.event(network, corev1.EventTypeWarning, d.event, string(op), description)
	if IsConfigurationError(cause) {
		return reconcile.Result{}, reconcile.TerminalError(cause)
	}
	if after := requeueAfter(cause); after > 0 {
		return reconcile.Result{RequeueAfter: after}, nil
	}
	return reconcile.Result{}, cause
}

func (r *Reconciler) writeProcessing(ctx context.Context, network *extensionsv1alpha1.Network, op gardencorev1beta1.LastOperationType, d descriptions) error {
	patch := client.MergeFrom(network.DeepCopy())
	network.Status.LastOperation = &gardencorev1beta1.LastOperation{
		Type: op, State: gardencorev1beta1.LastOperationStateProcessing,
		Progress: 1, Description: d.processing, LastUpdateTime: metav1.NewTime(r.now()),
	}
	if err := r.Client.Status().Patch(ctx, network, patch); err != nil {
		return fmt.Errorf("writing Processing status: %w", err)
	}
	return nil
}

// writeSuccess writes lastOperation Succeeded with whatever else network's status carries, as a
// merge patch from base (the Network as the API server has it). An event is recorded only when the
// outcome is news: there was no last operation, it had not succeeded (Processing, Error), or this is
// a restore. A repeated reconcile (the gardenlet's, or a TTL requeue) records none, changed or not:
// the conditions and lastOperation say what it did.
func (r *Reconciler) writeSuccess(ctx context.Context, base, network *extensionsv1alpha1.Network, op gardencorev1beta1.LastOperationType, d descriptions) error {
	patch := client.MergeFrom(base)
	last := base.Status.LastOperation
	news := last == nil || last.State != gardencorev1beta1.LastOperationStateSucceeded || op == gardencorev1beta1.LastOperationTypeRestore
	network.Status.LastOperation = &gardencorev1beta1.LastOperation{
		Type: op, State: gardencorev1beta1.LastOperationStateSucceeded,
		Progress: 100, Description: d.success, LastUpdateTime: metav1.NewTime(r.now()),
	}
	network.Status.LastError = nil
	network.Status.ObservedGeneration = network.Generation
	if err := r.Client.Status().Patch(ctx, network, patch); err != nil {
		return fmt.Errorf("writing Succeeded status: %w", err)
	}
	if news {
		r.event(network, corev1.EventTypeNormal, d.event, string(op), d.success)
	}
	return nil
}

// prepareMetadata adds the finalizer and removes a reconcile annotation in one merge patch (with
// optimistic lock, as Gardener adds its finalizer); nothing is sent when neither is needed.
func (r *Reconciler) prepareMetadata(ctx context.Context, network *extensionsv1alpha1.Network) error {
	addFinalizer := !controllerutil.ContainsFinalizer(network, FinalizerName)
	removeAnnotation := network.Annotations[AnnotationOperation] == OperationReconcile
	if !addFinalizer && !removeAnnotation {
		return nil
	}
	patch := client.MergeFromWithOptions(network.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.AddFinalizer(network, FinalizerName)
	if removeAnnotation {
		delete(network.Annotations, AnnotationOperation)
	}
	if err := r.Client.Patch(ctx, network, patch); err != nil {
		return fmt.Errorf("adding finalizer to / removing operation annotation from Network: %w", err)
	}
	return nil
}

func (r *Reconciler) removeOperationAnnotation(ctx context.Context, network *extensionsv1alpha1.Network) error {
	if _, ok := network.Annotations[AnnotationOperation]; !ok {
		return nil
	}
	patch := client.MergeFrom(network.DeepCopy())
	delete(network.Annotations, AnnotationOperation)
	if err := r.Client.Patch(ctx, network, patch); err != nil {
		return fmt.Errorf("removing operation annotation from Network: %w", err)
	}
	return nil
}

func (r *Reconciler) event(network *extensionsv1alpha1.Network, eventType, reason, action, note string) {
	if r.Recorder == nil {
		return
	}
	// The events API limits notes to 1 kB.
	if len(note) > 1000 {
		note = note[:1000]
	}
	r.Recorder.Eventf(network, nil, eventType, reason, action, "%s", note)
}

func (r *Reconciler) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func upperFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}
