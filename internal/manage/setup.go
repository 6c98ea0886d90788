package manage

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	standalonecrds "github.com/calico-pilot/calico-pilot/api/standalone/crds"
	standalonev1alpha1 "github.com/calico-pilot/calico-pilot/api/standalone/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/standalone"
)

// FieldManager is the field manager of the Cluster CRD the controller installs.
const FieldManager = "calico-pilot-manage"

// NewScheme is the scheme of the controller's clients: Kubernetes' types, Calico's, CRDs and the
// Cluster.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, calicov1.AddToScheme, apiextensionsv1.AddToScheme, standalonev1alpha1.AddToScheme} {
		if err := add(s); err != nil {
			return nil, fmt.Errorf("building the scheme: %w", err)
		}
	}
	return s, nil
}

// Setup is what a manage process is built from; NewManager turns it into a manager running the
// controller. The command and the integration tests use it, so they run the same wiring.
type Setup struct {
	// RestConfig reaches the cluster.
	RestConfig *rest.Config
	// Manager are the manager's options (leader election, endpoints). Scheme defaults to NewScheme().
	Manager ctrl.Options
	// ImageVector holds the images; nil: the embedded vector.
	ImageVector *imagevector.Vector
	// Identity holds the apply Lease while the controller applies (the pod's name, say).
	Identity string
	// Timeout bounds each wait of an apply; Interval is how often an unchanged Cluster is applied.
	Timeout, Interval time.Duration
	// Poll is how often rollouts are polled (default one second).
	Poll time.Duration
}

// NewManager builds the manager and registers the Cluster controller. The caller adds health checks
// and starts it; EnsureCRD must have run (the controller watches Clusters).
func NewManager(s Setup) (manager.Manager, *Reconciler, error) {
	mopts := s.Manager
	if mopts.Scheme == nil {
		scheme, err := NewScheme()
		if err != nil {
			return nil, nil, err
		}
		mopts.Scheme = scheme
	}
	// The cache holds only what triggers a reconcile: the Cluster default and Calico's workloads in
	// the namespaces calico-pilot deploys them to. The apply reads through an uncached client.
	mopts.Cache.ByObject = map[client.Object]cache.ByObject{
		&standalonev1alpha1.Cluster{}: {Field: fields.OneTermEqualSelector("metadata.name", standalonev1alpha1.ClusterName)},
		&appsv1.DaemonSet{}:           {Namespaces: workloadNamespaces()},
		&appsv1.Deployment{}:          {Namespaces: workloadNamespaces()},
	}
	if mopts.Cache.DefaultTransform == nil {
		mopts.Cache.DefaultTransform = cache.TransformStripManagedFields()
	}
	mgr, err := ctrl.NewManager(s.RestConfig, mopts)
	if err != nil {
		return nil, nil, fmt.Errorf("creating the controller manager: %w", err)
	}
	c, err := client.New(s.RestConfig, client.Options{Scheme: mopts.Scheme, Mapper: mgr.GetRESTMapper()})
	if err != nil {
		return nil, nil, fmt.Errorf("building the client: %w", err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(s.RestConfig)
	if err != nil {
		return nil, nil, fmt.Errorf("building the discovery client: %w", err)
	}
	enc, err := pipeline.NewEncoder()
	if err != nil {
		return nil, nil, err
	}
	vector := s.ImageVector
	if vector == nil {
		if vector, err = imagevector.LoadVector(nil); err != nil {
			return nil, nil, err
		}
	}
	poll := s.Poll
	if poll == 0 {
		poll = time.Second
	}
	r := &Reconciler{
		Client:  c,
		Applier: &standalone.Applier{Client: c, Encoder: enc, Catalogue: calicoversion.Default(), Vector: vector, Now: time.Now, Poll: poll},
		ServerVersion: func() (string, error) {
			v, err := dc.ServerVersion()
			if err != nil {
				return "", err
			}
			return v.GitVersion, nil
		},
		Recorder: mgr.GetEventRecorder(ControllerName), Identity: s.Identity,
		Timeout: s.Timeout, Interval: s.Interval, Now: time.Now,
	}
	if err := r.SetupWithManager(mgr); err != nil {
		return nil, nil, err
	}
	return mgr, r, nil
}

// workloadNamespaces are where calico-pilot deploys Calico's workloads: kube-system, or the tigera
// operator's calico-system after a takeover.
func workloadNamespaces() map[string]cache.Config {
	return map[string]cache.Config{layout.KubeSystem().Namespace: {}, layout.TigeraOperator().Namespace: {}}
}

// SetupWithManager registers the controller: the Cluster (a new generation, or new annotations that
// accept blockers or disruption) and every spec change of Calico's workloads (a hand edit) reconcile
// the Cluster default; one reconcile at a time.
func (r *Reconciler) SetupWithManager(mgr manager.Manager) error {
	toCluster := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: standalonev1alpha1.ClusterName}}}
	})
	calicoWorkload := predicate.NewPredicateFuncs(func(o client.Object) bool {
		for _, lay := range []layout.Layout{layout.KubeSystem(), layout.TigeraOperator()} {
			if _, ok := lay.ComponentOfWorkload(kindOf(o), o.GetName()); ok && o.GetNamespace() == lay.Namespace {
				return true
			}
		}
		return false
	})
	return ctrl.NewControllerManagedBy(mgr).
		Named(ControllerName).
		For(&standalonev1alpha1.Cluster{}, builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		Watches(&appsv1.DaemonSet{}, toCluster, builder.WithPredicates(calicoWorkload, predicate.GenerationChangedPredicate{})).
		Watches(&appsv1.Deployment{}, toCluster, builder.WithPredicates(calicoWorkload, predicate.GenerationChangedPredicate{})).
		WithOptions(controller.Options{MaxConcurrentReconciles: 1}).
		Complete(r)
}

func kindOf(o client.Object) string {
	if _, ok := o.(*appsv1.DaemonSet); ok {
		return "DaemonSet"
	}
	return "Deployment"
}

// EnsureCRD installs or updates the Cluster CRD the binary carries (server-side apply under
// FieldManager) and waits until it is Established.
func EnsureCRD(ctx context.Context, c client.Client, timeout time.Duration) error {
	crd, err := standalonecrds.Cluster()
	if err != nil {
		return err
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(crd)
	if err != nil {
		return fmt.Errorf("converting the Cluster CRD: %w", err)
	}
	u := &unstructured.Unstructured{Object: m}
	unstructured.RemoveNestedField(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	obj := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("applying CustomResourceDefinition %s: %w", crd.Name, err)
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKey{Name: crd.Name}, obj); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		for _, cond := range obj.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("CustomResourceDefinition %s not Established after %s: %w", crd.Name, timeout, err)
	}
	return nil
}
