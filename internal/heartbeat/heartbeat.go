package heartbeat

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

const (
	// LeaseName is the Lease gardenlet reads (fixed by Gardener).
	LeaseName = "gardener-extension-heartbeat"
	// DefaultHolderIdentity is the extension's name, written as the Lease's holder identity (the
	// reference extension's name, which gardenlet does not check but operators recognise).
	DefaultHolderIdentity = "networking-calico"
	// DefaultRenewInterval is how often the Lease is renewed; it is also the Lease duration.
	DefaultRenewInterval = 30 * time.Second
)

// Options configure the heartbeat.
type Options struct {
	// Namespace of the Lease: the extension's namespace in the seed. Required.
	Namespace string
	// HolderIdentity is written to spec.holderIdentity.
	HolderIdentity string
	// RenewInterval between renewals; whole seconds, at least one.
	RenewInterval time.Duration
	// Clock gives renewTime; nil means the real clock.
	Clock clock.WithTicker
	// Log receives renewal failures (which are retried at the next interval).
	Log logr.Logger
}

// Validate checks the options; errors name what is wrong and what is accepted.
func (o Options) Validate() error {
	var errs []error
	if o.Namespace == "" {
		errs = append(errs, errors.New("heartbeat namespace: required (--heartbeat-namespace or $LEADER_ELECTION_NAMESPACE)"))
	}
	if o.HolderIdentity == "" {
		errs = append(errs, errors.New("heartbeat holder identity: required"))
	}
	if o.RenewInterval < time.Second || o.RenewInterval%time.Second != 0 {
		errs = append(errs, fmt.Errorf("heartbeat renew interval %s: must be a whole number of seconds, at least 1s", o.RenewInterval))
	}
	return errors.Join(errs...)
}

// Heartbeat renews the Lease. It implements manager.Runnable and manager.LeaderElectionRunnable.
type Heartbeat struct {
	client client.Client
	opts   Options
}

var (
	_ manager.Runnable               = (*Heartbeat)(nil)
	_ manager.LeaderElectionRunnable = (*Heartbeat)(nil)
)

// New returns a heartbeat that writes through c (an uncached client: a cached one would watch every
// Lease in the seed, which the extension may not list).
func New(c client.Client, opts Options) (*Heartbeat, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	return &Heartbeat{client: c, opts: opts}, nil
}

// NewClient is an uncached client for Leases only, for New.
func NewClient(cfg *rest.Config) (client.Client, error) {
	scheme := runtime.NewScheme()
	if err := coordinationv1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("building heartbeat scheme: %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("building heartbeat client: %w", err)
	}
	return c, nil
}

// AddToManager adds a heartbeat with opts to mgr, with its own uncached client.
func AddToManager(mgr manager.Manager, opts Options) error {
	c, err := NewClient(mgr.GetConfig())
	if err != nil {
		return err
	}
	h, err := New(c, opts)
	if err != nil {
		return err
	}
	if err := mgr.Add(h); err != nil {
		return fmt.Errorf("adding heartbeat to manager: %w", err)
	}
	return nil
}

// NeedLeaderElection is true: like the reference's heartbeat controller, only the leader renews, so the
// Lease says that a replica which actually reconciles is alive.
func (h *Heartbeat) NeedLeaderElection() bool { return true }

// Start renews the Lease at once and then every interval until ctx ends. A failed renewal is logged and
// retried at the next tick rather than stopping the manager: a missing heartbeat only makes gardenlet
// distrust reported conditions.
func (h *Heartbeat) Start(ctx context.Context) error {
	log := h.opts.Log.WithValues("lease", client.ObjectKey{Namespace: h.opts.Namespace, Name: LeaseName})
	ticker := h.opts.Clock.NewTicker(h.opts.RenewInterval)
	defer ticker.Stop()
	for {
		if err := h.Renew(ctx); err != nil && ctx.Err() == nil {
			log.Error(err, "Renewing heartbeat lease failed, retrying at the next interval", "interval", h.opts.RenewInterval)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C():
		}
	}
}

// Renew creates the Lease or sets holder identity, duration and renew time on the existing one.
func (h *Heartbeat) Renew(ctx context.Context) error {
	now := metav1.NewMicroTime(h.opts.Clock.Now().UTC())
	seconds := int32(h.opts.RenewInterval / time.Second)
	lease := &coordinationv1.Lease{}
	key := client.ObjectKey{Namespace: h.opts.Namespace, Name: LeaseName}
	err := h.client.Get(ctx, key, lease)
	switch {
	case apierrors.IsNotFound(err):
		lease = &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Namespace: h.opts.Namespace, Name: LeaseName},
			Spec: coordinationv1.LeaseSpec{
				HolderIdentity:       &h.opts.HolderIdentity,
				LeaseDurationSeconds: &seconds,
				RenewTime:            &now,
			},
		}
		if err := h.client.Create(ctx, lease); err != nil {
			return fmt.Errorf("creating lease %s: %w", key, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("reading lease %s: %w", key, err)
	}
	lease.Spec.HolderIdentity = &h.opts.HolderIdentity
	lease.Spec.LeaseDurationSeconds = &seconds
	lease.Spec.RenewTime = &now
	if err := h.client.Update(ctx, lease); err != nil {
		return fmt.Errorf("renewing lease %s: %w", key, err)
	}
	return nil
}
