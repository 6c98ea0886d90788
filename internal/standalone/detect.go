package standalone

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// OperatorError refuses a cluster whose Calico the tigera operator runs.
type OperatorError struct {
	// Found lists what gave the operator away.
	Found []string
}

func (e *OperatorError) Error() string {
	return fmt.Sprintf("this cluster's Calico is run by the tigera operator (%s): the operator reconciles its Installation and "+
		"would revert every change calico-pilot makes (it re-creates the default IP pool its Installation lists, for one); "+
		"apply refuses to share the cluster with it. To move to calico-pilot, first remove the operator while keeping Calico's "+
		"data (docs/standalone.md \"Clusters run by the tigera operator\"), or keep managing Calico through the Installation resource",
		strings.Join(e.Found, "; "))
}

// DetectOperator looks for the tigera operator: an Installation resource, the calico-system
// namespace, the tigera-operator Deployment.
func DetectOperator(ctx context.Context, c client.Reader) error {
	var found []string
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion("operator.tigera.io/v1")
	list.SetKind("InstallationList")
	switch err := c.List(ctx, list); {
	case err == nil:
		for _, i := range list.Items {
			found = append(found, "Installation "+i.GetName())
		}
	case meta.IsNoMatchError(err) || apierrors.IsNotFound(err) || apierrors.IsForbidden(err):
	default:
		return fmt.Errorf("looking for the tigera operator's Installation: %w", err)
	}
	var ns corev1.Namespace
	switch err := c.Get(ctx, client.ObjectKey{Name: "calico-system"}, &ns); {
	case err == nil:
		found = append(found, "namespace calico-system")
	case apierrors.IsNotFound(err) || apierrors.IsForbidden(err):
	default:
		return fmt.Errorf("looking for the calico-system namespace: %w", err)
	}
	var d appsv1.Deployment
	switch err := c.Get(ctx, client.ObjectKey{Namespace: "tigera-operator", Name: "tigera-operator"}, &d); {
	case err == nil:
		found = append(found, "Deployment tigera-operator/tigera-operator")
	case apierrors.IsNotFound(err) || apierrors.IsForbidden(err):
	default:
		return fmt.Errorf("looking for the tigera-operator Deployment: %w", err)
	}
	if len(found) > 0 {
		return &OperatorError{Found: found}
	}
	return nil
}
