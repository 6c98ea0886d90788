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
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// annotationContentHash records the hash of the desired content on seed objects, so an unchanged
// object is recognised from its metadata alone and not written again.
const annotationContentHash = "calico-pilot.gardener.cloud/content-hash"

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

// applySeedObjects creates or updates objs in namespace, skipping those whose content hash annotation
// already matches. reader must not be a cache: metadata-only reads would start informers (and need
// list/watch) for kinds the controller only touches a few names of.
func applySeedObjects(ctx context.Context, c client.Client, reader client.Reader, namespace string, objs []client.Object) error {
	for _, desired := range objs {
		gvk, err := c.GroupVersionKindFor(desired)
		if err != nil {
			return fmt.Errorf("seed object %s: %w", desired.GetName(), err)
		}
		if !seedObjectAllowed(gvk, desired.GetName()) {
			return fmt.Errorf("renderer produced seed object %s %s that deletion would not remove", gvk.Kind, desired.GetName())
		}
		obj := desired.DeepCopyObject().(client.Object)
		obj.SetNamespace(namespace)
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		raw, err := json.Marshal(obj)
		if err != nil {
			return fmt.Errorf("hashing seed %s %s: %w", gvk.Kind, obj.GetName(), err)
		}
		sum := sha256.Sum256(raw)
		hash := hex.EncodeToString(sum[:])[:16]
		annotations := map[string]string{}
		for k, v := range obj.GetAnnotations() {
			annotations[k] = v
		}
		annotations[annotationContentHash] = hash
		obj.SetAnnotations(annotations)

		existing := &metav1.PartialObjectMetadata{}
		existing.SetGroupVersionKind(gvk)
		err = reader.Get(ctx, client.ObjectKey{Namespace: namespace, Name: obj.GetName()}, existing)
		switch {
		case apierrors.IsNotFound(err):
			if err := c.Create(ctx, obj); err != nil {
				return fmt.Errorf("creating seed %s %s/%s: %w", gvk.Kind, namespace, obj.GetName(), err)
			}
		case err != nil:
			return fmt.Errorf("reading seed %s %s/%s: %w", gvk.Kind, namespace, obj.GetName(), err)
		case existing.GetAnnotations()[annotationContentHash] == hash:
		default:
			obj.SetResourceVersion(existing.GetResourceVersion())
			if err := c.Update(ctx, obj); err != nil {
				return fmt.Errorf("updating seed %s %s/%s: %w", gvk.Kind, namespace, obj.GetName(), err)
			}
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
