package calicotls

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// WriteStep writes a step's Secrets and ConfigMaps by server-side apply under fieldManager (forcing
// ownership of the fields it sets, so that the operator's Secrets become calico-pilot's). A Secret's
// or ConfigMap's keys calico-pilot does not set stay as they are. The APIService's caBundle and the
// rollouts are the caller's (Step).
func WriteStep(ctx context.Context, c client.Client, s Step, fieldManager string) error {
	var objs []client.Object
	for _, sec := range s.Secrets {
		objs = append(objs, sec)
	}
	for _, cm := range s.ConfigMaps {
		objs = append(objs, cm)
	}
	for _, o := range objs {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			return fmt.Errorf("encoding %s %s/%s: %w", o.GetObjectKind().GroupVersionKind().Kind, o.GetNamespace(), o.GetName(), err)
		}
		u := &unstructured.Unstructured{Object: m}
		// Only what calico-pilot sets: no creationTimestamp or status of an empty typed object.
		unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
		err = c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(fieldManager), client.ForceOwnership)
		if apierrors.IsInvalid(err) && u.GetKind() == "Secret" {
			// A Secret's type cannot change: one that exists with another type (made Opaque by an older
			// calico-pilot, say) keeps its type, with the same keys.
			unstructured.RemoveNestedField(u.Object, "type")
			err = c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(fieldManager), client.ForceOwnership)
		}
		if err != nil {
			return fmt.Errorf("writing %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
	}
	return nil
}
