package network

import (
	"context"
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-base/featuregate"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/overlayswitch"
)

// Deps are the parts the controller is built from. Tests and the demo pass their own where they
// need to (a renderer, an address source with a test DNS server).
type Deps struct {
	// Decoder decodes and validates providerConfig.
	Decoder ConfigDecoder
	// Renderer is the decide + render step.
	Renderer Renderer
	// Addresses finds the kube-apiserver addresses.
	Addresses AddressSource
	// ShootClient builds a client for a shoot; nil means from the shoot's access secret.
	ShootClient func(ctx context.Context, namespace string) (client.Reader, error)
	// FeatureGates are the controller's feature gates.
	FeatureGates featuregate.FeatureGate
	// Config is the operator configuration.
	Config *configv1alpha1.ControllerConfiguration
}

// Options tune the controller.
type Options struct {
	AddOptions
	// UserAgent identifies the controller's shoot clients (the seed client's comes from the manager).
	UserAgent string
	// TTLRequeueMin and TTLRequeueMax bound the requeue after a CNAME was resolved.
	TTLRequeueMin, TTLRequeueMax time.Duration
	// RouteRecheckInterval is how soon a Network waiting for node routes is retried.
	RouteRecheckInterval time.Duration
	// DeleteTimeout bounds the wait for the ManagedResource on delete.
	DeleteTimeout time.Duration
	// DeletePollInterval is how often delete checks.
	DeletePollInterval time.Duration
}

// DefaultOptions are the controller's defaults.
func DefaultOptions() Options {
	return Options{
		AddOptions: AddOptions{
			MaxConcurrentReconciles: 5,
			ReconciliationTimeout:   3 * time.Minute,
		},
		TTLRequeueMin:        30 * time.Second,
		TTLRequeueMax:        1 * time.Hour,
		RouteRecheckInterval: 30 * time.Second,
		DeleteTimeout:        2 * time.Minute,
		DeletePollInterval:   2 * time.Second,
	}
}

// UncachedObjects are the kinds the manager's client must read from the API server directly:
// secrets and config maps (only a few are ours, and caching all would need list/watch on all),
// ManagedResources (a stale read would make an unchanged reconcile write) and DNSRecords (read
// once per reconcile; nothing watches them).
func UncachedObjects() []client.Object {
	return []client.Object{&corev1.Secret{}, &corev1.ConfigMap{}, &resourcesv1alpha1.ManagedResource{}, &extensionsv1alpha1.DNSRecord{}}
}

// AddToManager builds the actuator and reconciler and registers the Network controller with mgr.
// mgr's client must not cache UncachedObjects.
func AddToManager(mgr manager.Manager, deps Deps, opts Options) error {
	if deps.Decoder == nil || deps.Renderer == nil {
		return errors.New("network controller needs a decoder and a renderer")
	}
	if deps.ShootClient == nil {
		scheme, userAgent := mgr.GetScheme(), opts.UserAgent
		seed := mgr.GetClient()
		deps.ShootClient = func(ctx context.Context, namespace string) (client.Reader, error) {
			return overlayswitch.NewShootClient(ctx, seed, namespace, scheme, userAgent)
		}
	}
	actuator := &Actuator{
		Client:               mgr.GetClient(),
		APIReader:            mgr.GetAPIReader(),
		Deps:                 deps,
		TTLRequeueMin:        opts.TTLRequeueMin,
		TTLRequeueMax:        opts.TTLRequeueMax,
		RouteRecheckInterval: opts.RouteRecheckInterval,
		DeleteTimeout:        opts.DeleteTimeout,
		DeletePollInterval:   opts.DeletePollInterval,
	}
	r := &Reconciler{
		Client:   mgr.GetClient(),
		Actuator: actuator,
		Recorder: mgr.GetEventRecorder(ControllerName),
	}
	return r.SetupWithManager(mgr, opts.AddOptions)
}
