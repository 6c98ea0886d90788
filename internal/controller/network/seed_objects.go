package network

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/calico-pilot/calico-pilot/internal/manifest"
)

// The seed objects (the dashboards ConfigMap and the ScrapeConfigs in the shoot's control-plane
// namespace) are stored in a second ManagedResource, of class seed, which the seed's resource
// manager applies (docs/gardener-integration.md §2.6: class seed, all namespaces). Compared with
// writing them one by one, as the reference's chart applier did:
//   - a first reconcile sends two writes (Secret + ManagedResource) instead of one per object, and
//     an unchanged one none (the ManagedResource is in the informer cache and already references
//     the secret of exactly this content);
//   - an object that is no longer rendered is deleted by the resource manager, and an edited one
//     is reverted (§2.1);
//   - the reference's objects of the same names are taken over where they are (the resource
//     manager updates an existing object, §2.2 step 5): swapping in deletes nothing.

// scrapeConfigGVK is the seed Prometheus operator's ScrapeConfig kind.
func scrapeConfigGVK() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: "monitoring.coreos.com", Version: "v1alpha1", Kind: "ScrapeConfig"}
}

// seedObjectsData encodes objs, placed in namespace, as the content of the seed ManagedResource
// (the same stream format as the shoot's).
func seedObjectsData(scheme *runtime.Scheme, namespace string, objs []client.Object) (map[string][]byte, error) {
	placed := make([]client.Object, 0, len(objs))
	for _, desired := range objs {
		gvk, err := apiutil.GVKForObject(desired, scheme)
		if err != nil {
			return nil, fmt.Errorf("seed object %s: %w", desired.GetName(), err)
		}
		obj := desired.DeepCopyObject().(client.Object)
		obj.SetNamespace(namespace)
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		placed = append(placed, obj)
	}
	m, err := manifest.Build(nil, placed)
	if err != nil {
		return nil, fmt.Errorf("encoding seed objects: %w", err)
	}
	return map[string][]byte{ManagedResourceDataKey: m.JSON()}, nil
}

// deleteLegacySeedObjects deletes, by name, the seed monitoring objects the reference extension
// (and calico-pilot before the seed ManagedResource) wrote directly: after a swap-in that was
// never reconciled, no ManagedResource lists them. Missing objects and a seed without the
// ScrapeConfig API are fine.
func deleteLegacySeedObjects(ctx context.Context, c client.Client, namespace string) error {
	var errs []error
	for _, name := range seedMonitoringConfigMaps() {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
		if err := c.Delete(ctx, cm); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting seed ConfigMap %s/%s: %w", namespace, name, err))
		}
	}
	for _, name := range seedMonitoringScrapeConfigs() {
		sc := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
		sc.SetGroupVersionKind(scrapeConfigGVK())
		if err := c.Delete(ctx, sc); err != nil && !apierrors.IsNotFound(err) && !meta.IsNoMatchError(err) {
			errs = append(errs, fmt.Errorf("deleting seed ScrapeConfig %s/%s: %w", namespace, name, err))
		}
	}
	return errors.Join(errs...)
}
