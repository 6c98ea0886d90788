package network

import (
	"context"
	"time"

	"github.com/go-logr/logr"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
)

// Actuator does the type-specific work for the Networks of one type. The Reconciler calls exactly
// one method per reconcile, after the lifecycle bookkeeping, and writes lastOperation, lastError,
// observedGeneration, the finalizer and the operation annotation itself: an Actuator never touches
// them. It may change other fields of network.Status in memory (conditions, providerStatus,
// ipFamilies); the Reconciler sends them with its status write after Reconcile and Restore, and,
// after an error, with the Error status.
//
// Errors: an error wrapping ConfigurationError is terminal until the Network changes; one wrapping
// RetriableError with a delay is retried after it; every other error goes through
// controller-runtime's backoff. The codes of both end up in status.lastError.codes.
//
// It is Gardener's network.Actuator except that Reconcile and Restore return a requeue delay and
// Reconcile is told whether it was asked for (see the package documentation).
type Actuator interface {
	// Reconcile makes what the Network asks for exist (operations Create and Reconcile). It returns
	// how soon the Network must be reconciled again, 0 meaning only on the next event. asked is
	// true when the reconcile was asked for: an operation annotation was set, or the spec changed
	// since the last observed generation; an actuator may skip costly checks of the shoot when it
	// was not.
	Reconcile(ctx context.Context, log logr.Logger, network *extensionsv1alpha1.Network, cluster *Cluster, asked bool) (time.Duration, error)
	// Delete removes everything Reconcile made and waits, bounded, until it is really gone; the
	// finalizer is removed after it succeeds.
	Delete(ctx context.Context, log logr.Logger, network *extensionsv1alpha1.Network, cluster *Cluster) error
	// ForceDelete is Delete for a shoot that is force-deleted: it removes what it can without
	// waiting for what cannot go (the shoot's resource manager), and still succeeds.
	ForceDelete(ctx context.Context, log logr.Logger, network *extensionsv1alpha1.Network, cluster *Cluster) error
	// Migrate lets go of everything in the seed without touching the shoot (control-plane
	// migration, source seed); all finalizers and the operation annotation are removed after it
	// succeeds.
	Migrate(ctx context.Context, log logr.Logger, network *extensionsv1alpha1.Network, cluster *Cluster) error
	// Restore takes over a migrated Network in this seed (destination seed) from what the Network,
	// the Cluster and the seed hold; like Reconcile it returns a requeue delay. The restore
	// annotation is removed after it succeeds.
	Restore(ctx context.Context, log logr.Logger, network *extensionsv1alpha1.Network, cluster *Cluster) (time.Duration, error)
}

// Cluster is the decoded Cluster of a Network: only what the lifecycle and the actuators read.
type Cluster struct {
	// Name is the Cluster's name (the control-plane namespace).
	Name string
	// Shoot is the embedded shoot; never nil after DecodeCluster.
	Shoot *gardencorev1beta1.Shoot
}
