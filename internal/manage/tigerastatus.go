package manage

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	standalonev1alpha1 "github.com/calico-pilot/calico-pilot/api/standalone/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/standalone"
)

// retireTigeraStatus deletes the tigera operator's TigeraStatus objects once calico-pilot took its
// install over (the state records the stopped operator). With the operator stopped nobody updates
// them: they would go on saying what the operator last saw (Available, say) while calico-pilot runs
// Calico; writing them instead would speak for an operator that does not run. The Cluster's status
// is where the truth is now, and each deletion is an Event on the Cluster saying so. The operator,
// scaled up again to take Calico back, writes them anew.
func (r *Reconciler) retireTigeraStatus(ctx context.Context, obj *standalonev1alpha1.Cluster, st standalone.State) error {
	if st.Operator == nil {
		return nil
	}
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion("operator.tigera.io/v1")
	list.SetKind("TigeraStatusList")
	if err := r.Client.List(ctx, list); err != nil {
		if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("listing the tigera operator's TigeraStatus objects: %w", err)
	}
	var deleted []string
	for i := range list.Items {
		ts := &list.Items[i]
		if err := r.Client.Delete(ctx, ts); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting TigeraStatus %s: %w", ts.GetName(), err)
		}
		deleted = append(deleted, ts.GetName())
	}
	if len(deleted) > 0 && r.Recorder != nil {
		r.Recorder.Eventf(obj, nil, corev1.EventTypeNormal, EventTigeraStatusRetired, "Delete",
			"deleted TigeraStatus %s: the stopped tigera operator no longer updates them; the status of Calico is this Cluster's (kubectl get clusters.standalone.calico-pilot.dev)", strings.Join(deleted, ", "))
	}
	return nil
}
