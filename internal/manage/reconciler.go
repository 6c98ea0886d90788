package manage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	standalonev1alpha1 "github.com/calico-pilot/calico-pilot/api/standalone/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/standalone"
)

// Reconciler applies the Cluster named default and reports on it.
type Reconciler struct {
	// Client reads and writes without a cache: the Cluster, its status, the facts, the state.
	Client client.Client
	// Applier is the apply of `calico-pilot apply` (its Client is Client).
	Applier *standalone.Applier
	// ServerVersion is the API server's version, from discovery (a fact of the cluster).
	ServerVersion func() (string, error)
	// Recorder records the Events on the Cluster.
	Recorder events.EventRecorder
	// Identity holds the apply Lease while the controller applies.
	Identity string
	// Timeout bounds each wait of an apply (CRDs Established, each step's rollout).
	Timeout time.Duration
	// Interval is how often an unchanged Cluster is reconciled (DefaultInterval).
	Interval time.Duration
	// Now is the clock of the status' times.
	Now func() time.Time
}

// outcome is what one apply of the Cluster came to.
type outcome struct {
	err error
	// reason and message are the Degraded condition's when err is set.
	reason, message string
	// blockers are the plan blockers not accepted ("Object: what to do").
	blockers []string
	// drift is what other managers held in calico-pilot's objects before the apply.
	drift []standalone.Drift
}

// Reconcile applies the Cluster, writes its status, records Events for restored hand edits and,
// after a takeover, removes the tigera operator's TigeraStatus objects that nobody updates.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	log := logr.FromContextOrDiscard(ctx)
	obj := &standalonev1alpha1.Cluster{}
	if err := r.Client.Get(ctx, req.NamespacedName, obj); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if obj.Name != standalonev1alpha1.ClusterName {
		// The CRD refuses any other name; an object from before that rule is left alone.
		log.Info("Ignoring Cluster: only the Cluster named default is reconciled", "cluster", obj.Name)
		return reconcile.Result{}, nil
	}
	var out bytes.Buffer
	res := r.applyCluster(ctx, obj, &out)
	log.V(1).Info("Applied the Cluster", "output", out.String())
	if res.err != nil && ctx.Err() != nil {
		// Stopping: what was applied stays and the state records the step; the next leader continues.
		return reconcile.Result{}, res.err
	}
	st, found, err := standalone.ReadState(ctx, r.Client)
	if err != nil {
		return reconcile.Result{}, err
	}
	previous := obj.DeepCopy()
	if err := r.writeStatus(ctx, obj, res, st, found); err != nil {
		return reconcile.Result{}, err
	}
	r.recordOutcome(previous, obj, res)
	if res.err == nil {
		if err := r.recordDrift(ctx, obj, res.drift, st); err != nil {
			return reconcile.Result{}, err
		}
		if err := r.retireTigeraStatus(ctx, obj, st); err != nil {
			return reconcile.Result{}, err
		}
	}
	return reconcile.Result{RequeueAfter: r.requeue(res)}, nil
}

// requeue is when the Cluster is reconciled again without a change: soon when an apply holds the
// Lease, else after the interval.
func (r *Reconciler) requeue(res outcome) time.Duration {
	if res.reason == ReasonApplyInProgress {
		return heldRetry
	}
	if r.Interval > 0 {
		return r.Interval
	}
	return DefaultInterval
}

// applyCluster builds the apply's request from the Cluster and the cluster's facts, applies it and
// says what it came to.
func (r *Reconciler) applyCluster(ctx context.Context, obj *standalonev1alpha1.Cluster, out io.Writer) outcome {
	req, errs, err := r.request(ctx, obj, out)
	switch {
	case err != nil:
		return classify(err)
	case len(errs) > 0:
		return classify(&standalone.FieldErrors{Errs: errs})
	}
	d, err := r.Applier.Reconcile(ctx, req)
	res := classify(err)
	if d != nil {
		res.drift = d.Preview.Drift
	}
	return res
}

// request is the apply of the Cluster: its NetworkConfig, the facts it states completed with the
// cluster's (standalone.Observe and Complete, as `apply -f`), and the blockers and disruption its
// annotations accept. errs are the Cluster's invalid fields, with their paths in it.
func (r *Reconciler) request(ctx context.Context, obj *standalonev1alpha1.Cluster, out io.Writer) (standalone.Request, field.ErrorList, error) {
	cfg, errs := standalone.ValidateCluster(obj)
	if len(errs) > 0 {
		return standalone.Request{}, errs, nil
	}
	sv, err := r.ServerVersion()
	if err != nil {
		return standalone.Request{}, nil, fmt.Errorf("reading the API server's version: %w", err)
	}
	obs, err := standalone.Observe(ctx, r.Client, sv)
	if err != nil {
		return standalone.Request{}, nil, err
	}
	facts, errs := standalone.Complete(obj.Facts, obs)
	if len(errs) > 0 {
		return standalone.Request{}, errs, nil
	}
	if errs := standalone.ValidateConfig(cfg, facts.IPFamilies); len(errs) > 0 {
		return standalone.Request{}, errs, nil
	}
	return standalone.Request{
		Config: cfg, Facts: facts, Timeout: r.Timeout, Identity: r.Identity, Out: out,
		Components:      standalone.WantedComponents(obj.Components),
		AcceptBlockers:  acceptedBlockers(obj.Annotations[AnnotationAcceptBlockers]),
		AllowDisruption: obj.Annotations[AnnotationAllowDisruption] == "true",
	}, nil, nil
}

// acceptedBlockers splits the accept-blockers annotation (objects separated by ";").
func acceptedBlockers(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ";") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// classify says what an apply's error means for the owner: the reason of the Degraded condition
// and a message that says what to do.
func classify(err error) outcome {
	var fe *standalone.FieldErrors
	var blocked *standalone.BlockedError
	var held *standalone.HeldError
	switch {
	case err == nil:
		return outcome{reason: ReasonApplied}
	case errors.As(err, &fe):
		return outcome{err: err, reason: ReasonInvalidSpec, message: "the Cluster is invalid: " + fe.Error() + "; correct the Cluster (kubectl edit clusters.standalone.calico-pilot.dev default)"}
	case errors.As(err, &blocked):
		o := outcome{err: err, reason: ReasonBlocked}
		var objs []string
		for _, b := range blocked.Blockers {
			o.blockers = append(o.blockers, fmt.Sprintf("%s: %s", b.Object, b.Message))
			objs = append(objs, b.Object)
		}
		o.message = fmt.Sprintf("%d blocker(s) refuse the apply (status.blockers): nothing was changed; after reading them, accept them with the annotation %s: %q", len(blocked.Blockers), AnnotationAcceptBlockers, strings.Join(objs, ";"))
		return o
	case errors.As(err, &held):
		return outcome{err: err, reason: ReasonApplyInProgress, message: held.Error() + "; the controller tries again in " + heldRetry.String()}
	}
	// The apply words these refusals for a person at a terminal; the controller says what to do
	// instead.
	var adoption *standalone.AdoptionError
	var timeout *standalone.RolloutTimeoutError
	msg := err.Error()
	switch {
	case errors.As(err, &adoption):
		return outcome{err: err, reason: ReasonAdoptionNeeded, message: msg + ". The controller never adopts: run calico-pilot apply --adopt -f cluster.yaml once (docs/manage.md)"}
	case errors.Is(err, standalone.ErrDisruptive):
		return outcome{err: err, reason: ReasonDisruptive, message: "the Cluster asks for disruptive changes (an IP pool's encapsulation on every node at once, say): nothing was changed; calico-pilot apply -f cluster.yaml --dry-run shows them; accept them with the annotation " + AnnotationAllowDisruption + `: "true"`}
	case errors.As(err, &timeout):
		return outcome{err: err, reason: ReasonRolloutTimedOut, message: msg}
	}
	return outcome{err: err, reason: ReasonApplyFailed, message: msg}
}

// writeStatus writes the status of the outcome, and only when it changed.
func (r *Reconciler) writeStatus(ctx context.Context, obj *standalonev1alpha1.Cluster, res outcome, st standalone.State, found bool) error {
	comps, notes, err := r.components(ctx, obj, st, found)
	if err != nil {
		return err
	}
	status := statusOf(obj.Status, obj.Generation, res, st, found, comps, notes, r.now())
	if equality.Semantic.DeepEqual(status, obj.Status) {
		return nil
	}
	patch := client.MergeFrom(obj.DeepCopy())
	obj.Status = status
	if err := r.Client.Status().Patch(ctx, obj, patch); err != nil {
		return fmt.Errorf("writing the status of Cluster %s: %w", obj.Name, err)
	}
	return nil
}

func (r *Reconciler) now() time.Time {
	if r.Now == nil {
		return time.Now()
	}
	return r.Now()
}
