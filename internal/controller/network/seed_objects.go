package network

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// scrapeConfigGVK is the seed Prometheus operator's ScrapeConfig kind.
func scrapeConfigGVK() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: "monitoring.coreos.com", Version: "v1alpha1", Kind: "ScrapeConfig"}
}

// seedObjectAllowed reports whether obj is one of the seed objects delete knows how to remove; any
// other object would leak on deletion, so the renderer may not produce it.
func seedObjectAllowed(gvk schema.GroupVersionKind, name string) bool {
	switch {
	case gvk.Group == "" && gvk.Kind == "ConfigMap":
		return slices.Contains(seedMonitoringConfigMaps(), name)
	case gvk.Group == scrapeConfigGVK().Group && gvk.Kind == scrapeConfigGVK().Kind:
		return slices.Contains(seedMonitoringScrapeConfigs(), name)
	}
	return false
}

// annotationSeedObjectsHash on the ManagedResource records the hash of the seed objects applied
// with its content, so a reconcile knows from the cached ManagedResource alone whether they must be
// applied again.
const annotationSeedObjectsHash = "calico-pilot.gardener.cloud/seed-objects-hash"

// fieldOwner is the field manager of the seed objects' server-side apply.
const fieldOwner = "calico-pilot"

// seedObject returns obj ready to send: a copy in namespace with its kind set, after checking that
// delete knows how to remove it.
func seedObject(c client.Client, namespace string, desired client.Object) (client.Object, schema.GroupVersionKind, error) {
	gvk, err := c.GroupVersionKindFor(desired)
	if err != nil {
		return nil, gvk, fmt.Errorf("seed object %s: %w", desired.GetName(), err)
	}
	if !seedObjectAllowed(gvk, desired.GetName()) {
		return nil, gvk, fmt.Errorf("renderer produced seed object %s %s that deletion would not remove", gvk.Kind, desired.GetName())
	}
	obj := desired.DeepCopyObject().(client.Object)
	obj.SetNamespace(namespace)
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return obj, gvk, nil
}

// seedObjectsHash is the hash of the seed objects as they would be sent (kinds, names, content).
func seedObjectsHash(c client.Client, namespace string, objs []client.Object) (string, error) {
	h := sha256.New()
	for _, desired := range objs {
		obj, gvk, err := seedObject(c, namespace, desired)
		if err != nil {
			return "", err
		}
		raw, err := json.Marshal(obj)
		if err != nil {
			return "", fmt.Errorf("hashing seed %s %s: %w", gvk.Kind, obj.GetName(), err)
		}
		h.Write(raw)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// applySeedObjects creates or updates objs in namespace with one server-side apply request each
// (no read first: the apply creates a missing object and replaces our fields of an existing one).
// The caller only calls it when the hash recorded on the ManagedResource differs.
func applySeedObjects(ctx context.Context, c client.Client, namespace string, objs []client.Object) error {
	for _, desired := range objs {
		obj, gvk, err := seedObject(c, namespace, desired)
		if err != nil {
			return err
		}
		obj.SetResourceVersion("")
		obj.SetManagedFields(nil)
		raw, err := json.Marshal(obj)
		if err != nil {
			return fmt.Errorf("encoding seed %s %s: %w", gvk.Kind, obj.GetName(), err)
		}
		target := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: obj.GetName()}}
		target.SetGroupVersionKind(gvk)
		if err := c.Patch(ctx, target, client.RawPatch(types.ApplyPatchType, raw), client.FieldOwner(fieldOwner), client.ForceOwnership); err != nil {
			return fmt.Errorf("applying seed %s %s/%s: %w", gvk.Kind, namespace, obj.GetName(), err)
		}
	}
	return nil
}

// deleteSeedObjects deletes every seed monitoring object this or the reference extension may have
// created, whatever the current configuration says. Missing objects and a seed without the
// ScrapeConfig API are fine.
func deleteSeedObjects(ctx context.Context, c client.Client, namespace string) error {
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
