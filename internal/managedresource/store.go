package managedresource

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
)

// Object identifies a ManagedResource and says who owns it.
type Object struct {
	// Namespace is the shoot's control-plane namespace.
	Namespace string
	// Name is the ManagedResource name.
	Name string
	// Origin is the value of the ManagedResource's origin label.
	Origin string
}

// Result says what Apply did.
type Result struct {
	// SecretName is the secret now referenced by the ManagedResource.
	SecretName string
	// Changed is true when a Secret or the ManagedResource was written.
	Changed bool
	// DeletedSecrets are the old secrets removed after the ManagedResource was repointed.
	DeletedSecrets []string
}

// Apply stores data as the content of the ManagedResource obj. When the ManagedResource already
// references the secret for exactly this content (and that secret exists) and its metadata and spec
// are as desired, nothing is written. Otherwise the immutable secret is created, the ManagedResource is
// created or updated to reference it (keepObjects false), and the secrets it referenced before are
// deleted.
func Apply(ctx context.Context, c client.Client, obj Object, data map[string][]byte) (Result, error) {
	secretName := SecretName(obj.Name, data)
	res := Result{SecretName: secretName}

	var mr resourcesv1alpha1.ManagedResource
	mrExists := true
	if err := c.Get(ctx, client.ObjectKey{Namespace: obj.Namespace, Name: obj.Name}, &mr); err != nil {
		if !apierrors.IsNotFound(err) {
			return res, fmt.Errorf("reading ManagedResource %s/%s: %w", obj.Namespace, obj.Name, err)
		}
		mrExists = false
	}

	secretExists := false
	var existing corev1.Secret
	if err := c.Get(ctx, client.ObjectKey{Namespace: obj.Namespace, Name: secretName}, &existing); err != nil {
		if !apierrors.IsNotFound(err) {
			return res, fmt.Errorf("reading secret %s/%s: %w", obj.Namespace, secretName, err)
		}
	} else {
		if !reflect.DeepEqual(existing.Data, data) {
			// Same hash, different data: not a collision worth handling, but never serve wrong content.
			return res, fmt.Errorf("secret %s/%s exists with different content than its name promises; delete it to let it be recreated", obj.Namespace, secretName)
		}
		secretExists = true
	}

	desired := mr.DeepCopy()
	desired.Namespace, desired.Name = obj.Namespace, obj.Name
	setDesired(desired, obj.Origin, secretName)
	if mrExists && secretExists && reflect.DeepEqual(mr.Labels, desired.Labels) &&
		reflect.DeepEqual(mr.Annotations, desired.Annotations) && reflect.DeepEqual(mr.Spec, desired.Spec) {
		return res, nil
	}
	res.Changed = true

	if !secretExists {
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: obj.Namespace,
				Name:      secretName,
				Labels: map[string]string{
					LabelGarbageCollectable: "true",
					LabelManagedResource:    obj.Name,
				},
			},
			Type:      corev1.SecretTypeOpaque,
			Immutable: ptr(true),
			Data:      data,
		}
		if err := c.Create(ctx, secret); err != nil && !apierrors.IsAlreadyExists(err) {
			return res, fmt.Errorf("creating secret %s/%s: %w", obj.Namespace, secretName, err)
		}
	}

	if mrExists {
		if err := c.Update(ctx, desired); err != nil {
			return res, fmt.Errorf("updating ManagedResource %s/%s: %w", obj.Namespace, obj.Name, err)
		}
	} else {
		if err := c.Create(ctx, desired); err != nil {
			return res, fmt.Errorf("creating ManagedResource %s/%s: %w", obj.Namespace, obj.Name, err)
		}
	}

	deleted, err := deleteSecrets(ctx, c, obj, map[string]bool{secretName: true}, mr.Spec.SecretRefs)
	res.DeletedSecrets = deleted
	if err != nil {
		return res, err
	}
	return res, nil
}

// setDesired sets the labels, reference annotations and spec a ManagedResource must have to serve
// secretName. Existing labels are kept; stale reference annotations are removed.
func setDesired(mr *resourcesv1alpha1.ManagedResource, origin, secretName string) {
	labels := map[string]string{}
	for k, v := range mr.Labels {
		labels[k] = v
	}
	labels[LabelOrigin] = origin
	mr.Labels = labels

	annotations := map[string]string{}
	for k, v := range mr.Annotations {
		if !strings.HasPrefix(k, annotationReferencePrefix) {
			annotations[k] = v
		}
	}
	annotations[referenceAnnotation(secretName)] = secretName
	mr.Annotations = annotations

	mr.Spec = resourcesv1alpha1.ManagedResourceSpec{
		SecretRefs:   []corev1.LocalObjectReference{{Name: secretName}},
		InjectLabels: map[string]string{LabelNoCleanup: "true"},
		KeepObjects:  ptr(false),
	}
}

// deleteSecrets deletes the secrets in refs and every secret labelled as written for obj, except keep.
func deleteSecrets(ctx context.Context, c client.Client, obj Object, keep map[string]bool, refs []corev1.LocalObjectReference) ([]string, error) {
	names := map[string]bool{}
	for _, r := range refs {
		names[r.Name] = true
	}
	var list corev1.SecretList
	if err := c.List(ctx, &list, client.InNamespace(obj.Namespace), client.MatchingLabels{LabelManagedResource: obj.Name}); err != nil {
		return nil, fmt.Errorf("listing secrets of ManagedResource %s/%s: %w", obj.Namespace, obj.Name, err)
	}
	for _, s := range list.Items {
		names[s.Name] = true
	}
	var deleted []string
	var errs []error
	for name := range names {
		if keep[name] {
			continue
		}
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: obj.Namespace, Name: name}}
		if err := c.Delete(ctx, s); err != nil {
			if !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("deleting old secret %s/%s: %w", obj.Namespace, name, err))
			}
			continue
		}
		deleted = append(deleted, name)
	}
	sort.Strings(deleted)
	return deleted, errors.Join(errs...)
}

// SetKeepObjects sets spec.keepObjects of the ManagedResource, so that deleting it leaves the shoot
// objects in place (control-plane migration). A missing ManagedResource is not an error.
func SetKeepObjects(ctx context.Context, c client.Client, namespace, name string, keep bool) error {
	var mr resourcesv1alpha1.ManagedResource
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &mr); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("reading ManagedResource %s/%s: %w", namespace, name, err)
	}
	if mr.Spec.KeepObjects != nil && *mr.Spec.KeepObjects == keep {
		return nil
	}
	patch := client.MergeFrom(mr.DeepCopy())
	mr.Spec.KeepObjects = ptr(keep)
	if err := c.Patch(ctx, &mr, patch); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("setting keepObjects=%t on ManagedResource %s/%s: %w", keep, namespace, name, err)
	}
	return nil
}

// Delete deletes the ManagedResource and its secrets (those it references and those labelled as
// written for it). Missing objects are not an error.
func Delete(ctx context.Context, c client.Client, obj Object) error {
	var mr resourcesv1alpha1.ManagedResource
	var refs []corev1.LocalObjectReference
	err := c.Get(ctx, client.ObjectKey{Namespace: obj.Namespace, Name: obj.Name}, &mr)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("reading ManagedResource %s/%s: %w", obj.Namespace, obj.Name, err)
	default:
		refs = mr.Spec.SecretRefs
		if err := c.Delete(ctx, &mr); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting ManagedResource %s/%s: %w", obj.Namespace, obj.Name, err)
		}
	}
	if _, err := deleteSecrets(ctx, c, obj, nil, refs); err != nil {
		return err
	}
	return nil
}

// WaitUntilDeleted polls every interval until the ManagedResource is gone or timeout passes. On
// timeout the error says what the resource manager reported, if anything. Read errors are retried
// until the timeout (the last one is reported).
func WaitUntilDeleted(ctx context.Context, c client.Reader, namespace, name string, interval, timeout time.Duration) error {
	var last resourcesv1alpha1.ManagedResource
	var readErr error
	seen := false
	err := wait.PollUntilContextTimeout(ctx, interval, timeout, true, func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &last); err != nil {
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			readErr = err
			return false, nil
		}
		seen = true
		return false, nil
	})
	if err == nil {
		return nil
	}
	if !wait.Interrupted(err) {
		return err
	}
	if !seen && readErr != nil {
		return fmt.Errorf("ManagedResource %s/%s: could not confirm its deletion within %s: %w", namespace, name, timeout, readErr)
	}
	msg := ""
	for _, cond := range last.Status.Conditions {
		if cond.Type == "ResourcesApplied" && cond.Status != "True" && cond.Message != "" {
			msg = ": " + cond.Message
		}
	}
	return fmt.Errorf("ManagedResource %s/%s still exists after %s, the shoot's resource manager has not finished deleting its objects%s", namespace, name, timeout, msg)
}

// ReadData returns the merged data of the secrets the ManagedResource references, or nil when the
// ManagedResource does not exist.
func ReadData(ctx context.Context, c client.Reader, namespace, name string) (map[string][]byte, error) {
	var mr resourcesv1alpha1.ManagedResource
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &mr); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading ManagedResource %s/%s: %w", namespace, name, err)
	}
	data := map[string][]byte{}
	for _, ref := range mr.Spec.SecretRefs {
		var s corev1.Secret
		if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ref.Name}, &s); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return nil, fmt.Errorf("reading secret %s/%s of ManagedResource %s: %w", namespace, ref.Name, name, err)
		}
		for k, v := range s.Data {
			data[ref.Name+"/"+k] = v
		}
	}
	return data, nil
}

func ptr[T any](v T) *T { return &v }
