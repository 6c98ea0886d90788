package manage

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	standalonev1alpha1 "github.com/calico-pilot/calico-pilot/api/standalone/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/standalone"
)

// Event reasons on the Cluster.
const (
	EventDriftRestored       = "DriftRestored"
	EventApplied             = "Applied"
	EventTigeraStatusRetired = "TigeraStatusDeleted"
)

// recordOutcome records an Event when the Degraded condition's reason changed: the apply failed for
// a new reason, or applied again after failing.
func (r *Reconciler) recordOutcome(prev, now *standalonev1alpha1.Cluster, res outcome) {
	if r.Recorder == nil {
		return
	}
	before := meta.FindStatusCondition(prev.Status.Conditions, standalonev1alpha1.ConditionDegraded)
	after := meta.FindStatusCondition(now.Status.Conditions, standalonev1alpha1.ConditionDegraded)
	if after == nil || (before != nil && before.Reason == after.Reason && prev.Status.ObservedGeneration == now.Status.ObservedGeneration) {
		return
	}
	if res.err != nil {
		r.Recorder.Eventf(now, nil, corev1.EventTypeWarning, res.reason, "Apply", "%s", res.message)
		return
	}
	r.Recorder.Eventf(now, nil, corev1.EventTypeNormal, EventApplied, "Apply", "applied generation %d: Calico %s", now.Generation, now.Status.Release)
}

// recordDrift records an Event for each object in which the apply restored fields of calico-pilot's
// that another manager changed, naming the object (also as the Event's related object), each field
// and its manager. An object annotated standalone.IgnoreAnnotation was left alone, so nothing of it
// was restored. One Event per object: the recorder folds Events that differ only in their note.
func (r *Reconciler) recordDrift(ctx context.Context, obj *standalonev1alpha1.Cluster, drift []standalone.Drift, st standalone.State) error {
	if r.Recorder == nil {
		return nil
	}
	for _, d := range drift {
		if len(d.Restored) == 0 {
			continue
		}
		ref, ignored, err := r.ignored(ctx, d.Object, st)
		if err != nil {
			return err
		}
		if ignored {
			continue
		}
		fields := make([]string, 0, len(d.Restored))
		for _, f := range d.Restored {
			by := strings.Join(d.RestoredBy[f], ", ")
			if by == "" {
				by = "another manager"
			}
			fields = append(fields, fmt.Sprintf("%s (changed by %s)", f, by))
		}
		r.Recorder.Eventf(obj, ref, corev1.EventTypeWarning, EventDriftRestored, "Restore", "%s: restored to calico-pilot's value: %s; annotate the object %s: \"true\" to keep such changes",
			d.Object, strings.Join(fields, "; "), standalone.IgnoreAnnotation)
	}
	return nil
}

// ignored says whether the object named as plan names it ("DaemonSet kube-system/calico-node") is
// annotated standalone.IgnoreAnnotation "true"; its API version is the state's record of it. ref is
// the object, for the Event (nil when the state does not record it).
func (r *Reconciler) ignored(ctx context.Context, object string, st standalone.State) (ref runtime.Object, ignored bool, err error) {
	for _, o := range st.Owned {
		if o.String() != object {
			continue
		}
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(schema.FromAPIVersionAndKind(o.APIVersion, o.Kind))
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: o.Name}, m); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, false, nil
			}
			return nil, false, fmt.Errorf("reading %s: %w", object, err)
		}
		m.SetGroupVersionKind(schema.FromAPIVersionAndKind(o.APIVersion, o.Kind))
		return m, m.Annotations[standalone.IgnoreAnnotation] == "true", nil
	}
	return nil, false, nil
}
