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
	// Class picks the resource manager: "" for the shoot's (objects go to the shoot), "seed" for
	// the seed's (objects go to the seed, e.g. monitoring in the control-plane namespace).
	Class string
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

// Get returns the ManagedResource from r (the controller passes its informer cache), nil when it
// does not exist.
func Get(ctx context.Context, r client.Reader, namespace, name string) (*resourcesv1alpha1.ManagedResource, error) {
	mr := &resourcesv1alpha1.ManagedResource{}
	if err := r.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, mr); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading ManagedResource %s/%s: %w", namespace, name, err)
	}
	return mr, nil
}

// Apply stores data as the content of the ManagedResource obj. current is the ManagedResource as
// the caller knows it (from Get on an informer cache; nil when there is none). When it already
// references the secret for exactly this content and its metadata and spec are as desired, nothing
// is sent: an unchanged reconcile costs no request. Otherwise the immutable secret is created (one
// that already exists is read once to check that its content is the one its name promises), the
// ManagedResource is created or updated to reference it (keepObjects false), and the secrets it
// referenced before are deleted. A current that is behind the API server costs a conflict: the
// update fails and the caller's retry sees the fresh object; a ManagedResource the cache has not
// seen yet is read and updated.
//
// uncached serves those rare reads from the API server (a cache that has not seen the object yet
// would answer NotFound).
func Apply(ctx context.Context, c client.Client, uncached client.Reader, current *resourcesv1alpha1.ManagedResource, obj Object, data map[string][]byte) (Result, error) {
	secretName := SecretName(obj.Name, data)
	res := Result{SecretName: secretName}

	var desired *resourcesv1alpha1.ManagedResource
	if current != nil {
		desired = current.DeepCopy()
	} else {
		desired = &resourcesv1alpha1.ManagedResource{}
	}
	desired.Namespace, desired.Name = obj.Namespace, obj.Name
	setDesired(desired, obj, secretName)
	if current != nil && upToDate(current, desired) {
		return res, nil
	}
	res.Changed = true

	referenced := current != nil && len(current.Spec.SecretRefs) == 1 && current.Spec.SecretRefs[0].Name == secretName
	if !referenced {
		if err := createSecret(ctx, c, uncached, obj, secretName, data); err != nil {
			return res, err
		}
	}

	var previous []corev1.LocalObjectReference
	if current != nil {
		previous = current.Spec.SecretRefs
		if err := c.Update(ctx, desired); err != nil {
			return res, fmt.Errorf("updating ManagedResource %s/%s: %w", obj.Namespace, obj.Name, err)
		}
	} else if err := c.Create(ctx, desired); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			return res, fmt.Errorf("creating ManagedResource %s/%s: %w", obj.Namespace, obj.Name, err)
		}
		// Not in the cache yet (or not ours to cache): update the one that is there.
		fresh := &resourcesv1alpha1.ManagedResource{}
		if err := uncached.Get(ctx, client.ObjectKey{Namespace: obj.Namespace, Name: obj.Name}, fresh); err != nil {
			return res, fmt.Errorf("reading ManagedResource %s/%s: %w", obj.Namespace, obj.Name, err)
		}
		previous = fresh.Spec.SecretRefs
		desired = fresh.DeepCopy()
		setDesired(desired, obj, secretName)
		if upToDate(fresh, desired) {
			// Stored by an earlier reconcile the cache has not caught up with.
			return res, nil
		}
		if err := c.Update(ctx, desired); err != nil {
			return res, fmt.Errorf("updating ManagedResource %s/%s: %w", obj.Namespace, obj.Name, err)
		}
	}

	var errs []error
	for _, ref := range previous {
		if ref.Name == secretName {
			continue
		}
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: obj.Namespace, Name: ref.Name}}
		if err := c.Delete(ctx, s); err != nil {
			if !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("deleting old secret %s/%s: %w", obj.Namespace, ref.Name, err))
			}
			continue
		}
		res.DeletedSecrets = append(res.DeletedSecrets, ref.Name)
	}
	sort.Strings(res.DeletedSecrets)
	return res, errors.Join(errs...)
}

// upToDate says whether live already has desired's labels, annotations and spec.
func upToDate(live, desired *resourcesv1alpha1.ManagedResource) bool {
	return reflect.DeepEqual(live.Labels, desired.Labels) && reflect.DeepEqual(live.Annotations, desired.Annotations) &&
		reflect.DeepEqual(live.Spec, desired.Spec)
}

// createSecret creates the immutable content secret. One that exists already must hold data: its
// name promises that content.
func createSecret(ctx context.Context, c client.Client, uncached client.Reader, obj Object, secretName string, data map[string][]byte) error {
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: obj.Namespace,
			Name:      secretName,
			Labels: map[string]string{
				resourcesv1alpha1.LabelGarbageCollectableReference: "true",
				LabelManagedResource: obj.Name,
			},
		},
		Type:      corev1.SecretTypeOpaque,
		Immutable: ptr(true),
		Data:      data,
	}
	var err error
	if sc, ok := c.(SecretCreator); ok {
		err = sc.CreateSecretDiscardingResponse(ctx, secret)
	} else {
		err = c.Create(ctx, secret)
	}
	if err == nil {
		return nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating secret %s/%s: %w", obj.Namespace, secretName, err)
	}
	var existing corev1.Secret
	if err := uncached.Get(ctx, client.ObjectKey{Namespace: obj.Namespace, Name: secretName}, &existing); err != nil {
		return fmt.Errorf("reading secret %s/%s: %w", obj.Namespace, secretName, err)
	}
	if !reflect.DeepEqual(existing.Data, data) {
		// Same hash, different data: not a collision worth handling, but never serve wrong content.
		return fmt.Errorf("secret %s/%s exists with different content than its name promises; delete it to let it be recreated", obj.Namespace, secretName)
	}
	return nil
}

// setDesired sets the labels, reference annotations and spec a ManagedResource must have to serve
// secretName. Existing labels are kept; stale reference annotations are removed.
func setDesired(mr *resourcesv1alpha1.ManagedResource, obj Object, secretName string) {
	labels := map[string]string{}
	for k, v := range mr.Labels {
		labels[k] = v
	}
	labels[resourcesv1alpha1.LabelOrigin] = obj.Origin
	mr.Labels = labels

	annotations := map[string]string{}
	for k, v := range mr.Annotations {
		if !strings.HasPrefix(k, resourcesv1alpha1.AnnotationReferenceSecretPrefix) {
			annotations[k] = v
		}
	}
	annotations[referenceAnnotation(secretName)] = secretName
	mr.Annotations = annotations

	mr.Spec = resourcesv1alpha1.ManagedResourceSpec{
		SecretRefs:  []corev1.LocalObjectReference{{Name: secretName}},
		KeepObjects: ptr(false),
	}
	if obj.Class != "" {
		mr.Spec.Class = ptr(obj.Class)
	} else {
		// Shoot objects must survive the shoot-deletion cleaner until the resource manager
		// deletes them.
		mr.Spec.InjectLabels = map[string]string{resourcesv1alpha1.LabelShootNoCleanup: "true"}
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

// Delete deletes the ManagedResource and its secrets: those it references (as r, the controller's
// cache, knows it) and every secret labelled as written for it, which also catches the ones an
// interrupted Apply left behind. Missing objects are not an error.
func Delete(ctx context.Context, c client.Client, r client.Reader, obj Object) error {
	var refs []corev1.LocalObjectReference
	mr, err := Get(ctx, r, obj.Namespace, obj.Name)
	if err != nil {
		return err
	}
	if mr != nil {
		refs = mr.Spec.SecretRefs
	}
	// Deleted by name whatever the cache says: a cache behind the API server must not leave it.
	del := &resourcesv1alpha1.ManagedResource{ObjectMeta: metav1.ObjectMeta{Namespace: obj.Namespace, Name: obj.Name}}
	if err := c.Delete(ctx, del); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting ManagedResource %s/%s: %w", obj.Namespace, obj.Name, err)
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
