package standalone

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// LeaseDuration is how long a Lease of an apply that stopped renewing it (a killed process) holds
// off the next apply.
const LeaseDuration = 60 * time.Second

// HeldError is the error of an apply refused because another holds the Lease.
type HeldError struct {
	Holder string
	Since  time.Time
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("another apply holds the Lease %s/%s: %q, since %s; wait for it to finish (the Lease expires %s after its last renewal if that apply was killed)",
		Namespace, LeaseName, e.Holder, e.Since.UTC().Format(time.RFC3339), LeaseDuration)
}

// Lock is a held Lease.
type Lock struct {
	c        client.Client
	identity string
	stop     chan struct{}
	done     chan struct{}
}

// Acquire takes the Lease for identity, or returns a *HeldError naming the holder. A Lease whose
// holder stopped renewing it for LeaseDuration is taken over. The Lease is renewed until Release.
func Acquire(ctx context.Context, c client.Client, identity string, now func() time.Time) (*Lock, error) {
	key := client.ObjectKey{Namespace: Namespace, Name: LeaseName}
	t := metav1.NewMicroTime(now())
	want := coordinationv1.LeaseSpec{HolderIdentity: ptr.To(identity), LeaseDurationSeconds: ptr.To(int32(LeaseDuration / time.Second)), AcquireTime: &t, RenewTime: &t}
	var l coordinationv1.Lease
	err := c.Get(ctx, key, &l)
	switch {
	case apierrors.IsNotFound(err):
		l = coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: LeaseName}, Spec: want}
		if err := c.Create(ctx, &l); err != nil {
			if apierrors.IsAlreadyExists(err) {
				return nil, heldBy(ctx, c, key)
			}
			return nil, fmt.Errorf("creating the Lease %s/%s: %w", Namespace, LeaseName, err)
		}
	case err != nil:
		return nil, fmt.Errorf("reading the Lease %s/%s: %w", Namespace, LeaseName, err)
	default:
		if held(&l, now()) && ptr.Deref(l.Spec.HolderIdentity, "") != identity {
			return nil, heldErr(&l)
		}
		l.Spec = want
		// Update carries the resourceVersion read: two applies taking an expired Lease at once
		// cannot both succeed.
		if err := c.Update(ctx, &l); err != nil {
			if apierrors.IsConflict(err) {
				return nil, heldBy(ctx, c, key)
			}
			return nil, fmt.Errorf("taking the Lease %s/%s: %w", Namespace, LeaseName, err)
		}
	}
	lk := &Lock{c: c, identity: identity, stop: make(chan struct{}), done: make(chan struct{})}
	go lk.renew(now)
	return lk, nil
}

func held(l *coordinationv1.Lease, now time.Time) bool {
	if ptr.Deref(l.Spec.HolderIdentity, "") == "" || l.Spec.RenewTime == nil {
		return false
	}
	d := time.Duration(ptr.Deref(l.Spec.LeaseDurationSeconds, int32(LeaseDuration/time.Second))) * time.Second
	return now.Before(l.Spec.RenewTime.Add(d))
}

func heldErr(l *coordinationv1.Lease) error {
	e := &HeldError{Holder: ptr.Deref(l.Spec.HolderIdentity, "")}
	if l.Spec.AcquireTime != nil {
		e.Since = l.Spec.AcquireTime.Time
	}
	return e
}

func heldBy(ctx context.Context, c client.Client, key client.ObjectKey) error {
	var l coordinationv1.Lease
	if err := c.Get(ctx, key, &l); err != nil {
		return fmt.Errorf("another apply took the Lease %s/%s at the same moment", Namespace, LeaseName)
	}
	return heldErr(&l)
}

// renew renews the Lease every third of its duration until Release.
func (lk *Lock) renew(now func() time.Time) {
	defer close(lk.done)
	tick := time.NewTicker(LeaseDuration / 3)
	defer tick.Stop()
	for {
		select {
		case <-lk.stop:
			return
		case <-tick.C:
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			var l coordinationv1.Lease
			if err := lk.c.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: LeaseName}, &l); err == nil && ptr.Deref(l.Spec.HolderIdentity, "") == lk.identity {
				t := metav1.NewMicroTime(now())
				l.Spec.RenewTime = &t
				_ = lk.c.Update(ctx, &l) // a failed renewal is retried on the next tick
			}
			cancel()
		}
	}
}

// Release stops renewing and gives the Lease up (it is deleted when this apply still holds it).
func (lk *Lock) Release(ctx context.Context) error {
	close(lk.stop)
	<-lk.done
	var l coordinationv1.Lease
	if err := lk.c.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: LeaseName}, &l); err != nil {
		return client.IgnoreNotFound(err)
	}
	if ptr.Deref(l.Spec.HolderIdentity, "") != lk.identity {
		return nil
	}
	if err := lk.c.Delete(ctx, &l, client.Preconditions{ResourceVersion: &l.ResourceVersion}); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("releasing the Lease %s/%s: %w", Namespace, LeaseName, err)
	}
	return nil
}
