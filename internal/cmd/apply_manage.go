package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	standalonev1alpha1 "github.com/calico-pilot/calico-pilot/api/standalone/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/manage"
	"github.com/calico-pilot/calico-pilot/internal/standalone"
)

// managedByController says whether `calico-pilot manage` runs for the cluster: the Cluster CRD exists
// and a manage replica holds its leader election Lease (renewed within its duration). Then apply
// writes the Cluster object and leaves Calico's objects to the controller: never two writers.
func managedByController(ctx context.Context, c client.Client, now time.Time) (bool, error) {
	var crd apiextensionsv1.CustomResourceDefinition
	switch err := c.Get(ctx, client.ObjectKey{Name: "clusters." + standalonev1alpha1.GroupName}, &crd); {
	case apierrors.IsNotFound(err) || apierrors.IsForbidden(err) || meta.IsNoMatchError(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("reading the Cluster CRD: %w", err)
	}
	var l coordinationv1.Lease
	switch err := c.Get(ctx, client.ObjectKey{Namespace: standalone.Namespace, Name: manage.LeaderElectionID}, &l); {
	case apierrors.IsNotFound(err) || apierrors.IsForbidden(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("reading the Lease %s/%s: %w", standalone.Namespace, manage.LeaderElectionID, err)
	}
	if ptr.Deref(l.Spec.HolderIdentity, "") == "" || l.Spec.RenewTime == nil {
		return false, nil
	}
	d := time.Duration(ptr.Deref(l.Spec.LeaseDurationSeconds, 15)) * time.Second
	return now.Before(l.Spec.RenewTime.Add(d)), nil
}

// applyThroughController writes the file as the Cluster object default (server-side apply under
// apply's field manager) and waits until the controller reported on that generation: Available, or
// what blocks it. The flags the controller reads from the Cluster become its annotations; the ones
// it has no place for are refused, before anything is written.
func (o *ApplyOptions) applyThroughController(ctx context.Context, c client.Client, file *standalone.File, streams IO) error {
	switch {
	case o.CalicoVersion != "":
		return &ExitError{Code: ExitUsage, Err: errors.New("--calico-version: the manage controller runs the cluster; a release moves when the Cluster asks: set networkConfig.calicoVersion in the file (docs/manage.md)")}
	case o.Adopt:
		return &ExitError{Code: ExitUsage, Err: errors.New("--adopt: the manage controller runs the cluster and never adopts; stop it (scale deployment calico-pilot-manage to 0), adopt with apply --adopt, then start it again (docs/manage.md)")}
	case len(o.RemoveForeign) > 0:
		return &ExitError{Code: ExitUsage, Err: errors.New("--remove-foreign: the manage controller runs the cluster; it keeps the fields other managers set in calico-pilot's objects (docs/manage.md)")}
	}
	obj, err := clusterObject(file, o.AcceptBlockers, o.AllowDisruption)
	if err != nil {
		return err
	}
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(obj), client.FieldOwner(standalone.FieldManager), client.ForceOwnership); err != nil {
		return &ExitError{Code: ExitFindings, Err: fmt.Errorf("writing Cluster %s: %w", standalonev1alpha1.ClusterName, err)}
	}
	fmt.Fprintf(streams.Out, "the manage controller runs the cluster (Lease %s/%s): wrote Cluster %s; Calico's objects are the controller's to write; waiting for its status\n",
		standalone.Namespace, manage.LeaderElectionID, standalonev1alpha1.ClusterName)
	var got standalonev1alpha1.Cluster
	var done bool
	err = wait.PollUntilContextTimeout(ctx, o.poll, o.Timeout, true, func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKey{Name: standalonev1alpha1.ClusterName}, &got); err != nil {
			return false, nil // read again: the wait's end says what was last seen
		}
		if got.Status.ObservedGeneration < got.Generation {
			return false, nil
		}
		deg := meta.FindStatusCondition(got.Status.Conditions, standalonev1alpha1.ConditionDegraded)
		done = meta.IsStatusConditionTrue(got.Status.Conditions, standalonev1alpha1.ConditionAvailable) ||
			(deg != nil && deg.Status == metav1.ConditionTrue && deg.Reason != manage.ReasonApplyInProgress)
		return done, nil
	})
	if err != nil {
		return &ExitError{Code: ExitFindings, Err: fmt.Errorf("the manage controller did not report on generation %d within %s (observed %d): kubectl get clusters.%s %s -o yaml shows where it is",
			got.Generation, o.Timeout, got.Status.ObservedGeneration, standalonev1alpha1.GroupName, standalonev1alpha1.ClusterName)}
	}
	for _, b := range got.Status.Blockers {
		fmt.Fprintf(streams.Out, "blocker: %s\n", b)
	}
	if deg := meta.FindStatusCondition(got.Status.Conditions, standalonev1alpha1.ConditionDegraded); deg != nil && deg.Status == metav1.ConditionTrue && deg.Reason != manage.ReasonComponentsNotAsAsked {
		return &ExitError{Code: ExitFindings, Err: fmt.Errorf("the manage controller did not apply generation %d: %s: %s", got.Generation, deg.Reason, deg.Message)}
	}
	fmt.Fprintf(streams.Out, "applied by the manage controller: Calico %s runs on every component (CRDs of %s)\n", got.Status.Release, got.Status.CRDRelease)
	return nil
}

// clusterObject is the file as the Cluster object default, for server-side apply: its fields as the
// file states them, apply's --accept-blocker and --allow-disruption as the controller's annotations.
func clusterObject(file *standalone.File, accept []string, allowDisruption bool) (*unstructured.Unstructured, error) {
	cl := file.Cluster.DeepCopy()
	cl.APIVersion, cl.Kind = standalone.FileAPIVersion, standalone.FileKind
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cl)
	if err != nil {
		return nil, fmt.Errorf("converting the file to a Cluster object: %w", err)
	}
	u := &unstructured.Unstructured{Object: m}
	unstructured.RemoveNestedField(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata")
	u.SetName(standalonev1alpha1.ClusterName)
	if len(file.Labels) > 0 {
		u.SetLabels(file.Labels)
	}
	ann := map[string]string{}
	for k, v := range file.Annotations {
		ann[k] = v
	}
	if len(accept) > 0 {
		ann[manage.AnnotationAcceptBlockers] = strings.Join(accept, ";")
	}
	if allowDisruption {
		ann[manage.AnnotationAllowDisruption] = "true"
	}
	if len(ann) > 0 {
		u.SetAnnotations(ann)
	}
	return u, nil
}
