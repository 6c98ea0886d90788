package network

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/rest"
	"k8s.io/component-base/featuregate"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/apiserverendpoints"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	extensionsnetwork "github.com/calico-pilot/calico-pilot/internal/extensions/network"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/managedresource"
	"github.com/calico-pilot/calico-pilot/internal/overlayswitch"
	"github.com/calico-pilot/calico-pilot/internal/rollout"
)

// Setup is everything a Network controller process is built from; NewManager turns it into a
// manager running the controller. The command, the demo and the integration tests all use it, so
// they run the same wiring (scheme, uncached kinds, renderer, address source).
type Setup struct {
	// RestConfig reaches the seed.
	RestConfig *rest.Config
	// Manager are the manager's options. Scheme defaults to NewScheme(); the client's cache is
	// always told to leave UncachedObjects alone.
	Manager ctrl.Options
	// ImageVector holds the images the renderer deploys, resolved per shoot Kubernetes version; nil
	// means the embedded vector.
	ImageVector *imagevector.Vector
	// Addresses builds the kube-apiserver address source from the manager's client; nil means the
	// controller has none (a Network with the GlobalNetworkSet enabled then fails with a message).
	Addresses func(c client.Client) (AddressSource, error)
	// FeatureGates are the controller's feature gates.
	FeatureGates featuregate.FeatureGate
	// Config is the operator configuration; nil means an empty one.
	Config *configv1alpha1.ControllerConfiguration
	// Options tune the controller.
	Options Options
	// Namespace is the controller's own namespace: the rollout's state (ConfigMap
	// calico-pilot-rollout) is kept there. Required when Config has a calico.rollout.
	Namespace string
}

// NewManager builds the manager and the production renderer, and registers the Network
// controller. The caller adds health checks if it wants them and starts the manager.
func NewManager(s Setup) (manager.Manager, error) {
	mopts := s.Manager
	if mopts.Scheme == nil {
		scheme, err := NewScheme()
		if err != nil {
			return nil, err
		}
		mopts.Scheme = scheme
	}
	if mopts.Client.Cache == nil {
		mopts.Client.Cache = &client.CacheOptions{}
	}
	mopts.Client.Cache.DisableFor = append(mopts.Client.Cache.DisableFor, UncachedObjects()...)
	// ManagedResources are cached, but only ours (origin label): every extension on the seed has
	// some, and the controller only needs its two per namespace (what it stored last for the
	// shoot and for the seed).
	if mopts.Cache.ByObject == nil {
		mopts.Cache.ByObject = map[client.Object]cache.ByObject{}
	}
	mopts.Cache.ByObject[&resourcesv1alpha1.ManagedResource{}] = cache.ByObject{
		Label: labels.SelectorFromSet(labels.Set{resourcesv1alpha1.LabelOrigin: ManagedResourceOrigin}),
	}
	// What the controller never reads is not kept: managedFields of every cached object, and the
	// CloudProfile and Seed embedded in each Cluster (a CloudProfile with its machine images can
	// weigh hundreds of kilobytes, once per shoot); only the shoot is decoded.
	if mopts.Cache.DefaultTransform == nil {
		mopts.Cache.DefaultTransform = cache.TransformStripManagedFields()
	}
	mopts.Cache.ByObject[&extensionsv1alpha1.Cluster{}] = cache.ByObject{Transform: clusterShootOnly}
	// DNSRecords are cached, but only the kube-apiserver's (the selector the address source lists
	// with): a reconcile that publishes the GlobalNetworkSet then reads them without a request.
	dnsSelector, err := apiserverendpoints.Selector()
	if err != nil {
		return nil, err
	}
	mopts.Cache.ByObject[&extensionsv1alpha1.DNSRecord{}] = cache.ByObject{Label: dnsSelector}
	// What the operator asks must be available from the image vector: said once, at start.
	if err := CheckAvailability(s.ImageVector, s.Config); err != nil {
		return nil, err
	}
	mgr, err := ctrl.NewManager(s.RestConfig, mopts)
	if err != nil {
		return nil, fmt.Errorf("creating controller manager: %w", err)
	}
	renderer, err := NewRenderer(s.ImageVector)
	if err != nil {
		return nil, err
	}
	deps := Deps{Renderer: renderer, FeatureGates: s.FeatureGates, Config: s.Config}
	if s.ImageVector != nil {
		deps.Catalogue = s.ImageVector.Catalogue()
		// Computed once per Kubernetes version, from the vector alone: no request to any API server.
		resolver := imagevector.NewResolver(s.ImageVector)
		deps.Availability = func(k8s string) calicoversion.Available { return resolver.Availability(k8s).Func() }
		LogAvailability(mgr.GetLogger().WithName("imagevector"), s.ImageVector)
		if err := RegisterAvailability(metrics.Registry, s.ImageVector); err != nil {
			return nil, err
		}
	}
	if deps.Config == nil {
		deps.Config = &configv1alpha1.ControllerConfiguration{}
	}
	if s.Addresses != nil {
		// DNSRecords are read from the manager's cache (label-selected informer, see above).
		if deps.Addresses, err = s.Addresses(mgr.GetClient()); err != nil {
			return nil, fmt.Errorf("kube-apiserver address source: %w", err)
		}
	}
	if err := addRollout(mgr, &deps, &s); err != nil {
		return nil, err
	}
	if err := AddToManager(mgr, deps, s.Options); err != nil {
		return nil, err
	}
	return mgr, nil
}

// Deps are the parts the controller is built from. Tests and the demo pass their own where they
// need to (a renderer, an address source with a test DNS server).
type Deps struct {
	// Renderer is the decide + render step.
	Renderer Renderer
	// Addresses finds the kube-apiserver addresses.
	Addresses AddressSource
	// ShootClient builds a client for a shoot (node routes, IP pools); nil means from the shoot's
	// access secret.
	ShootClient func(ctx context.Context, namespace string) (client.Client, error)
	// FeatureGates are the controller's feature gates.
	FeatureGates featuregate.FeatureGate
	// Config is the operator configuration.
	Config *configv1alpha1.ControllerConfiguration
	// Rollout tells which shoots the operator's rollout moves now; nil: no rollout.
	Rollout RolloutView
	// RolloutTrigger enqueues the Networks the rollout sends (a wave opened); nil: none.
	RolloutTrigger <-chan event.GenericEvent
	// Catalogue is the Calico release catalogue the Networks' releases are decided in: the image
	// vector's (nil: calicoversion.Default).
	Catalogue *calicoversion.Catalogue
	// Availability says which releases the image vector makes available for a shoot of a
	// Kubernetes version (imagevector.Availability); nil: every release.
	Availability func(kubernetes string) calicoversion.Available
}

// Options tune the controller.
type Options struct {
	extensionsnetwork.AddOptions
	// UserAgent identifies the controller's shoot clients (the seed client's comes from the manager).
	UserAgent string
	// TTLRequeueMin and TTLRequeueMax bound the requeue after a CNAME was resolved.
	TTLRequeueMin, TTLRequeueMax time.Duration
	// RouteRecheckInterval is how soon a Network waiting for node routes is retried.
	RouteRecheckInterval time.Duration
	// MoveRecheckInterval is how soon a Network moving between Calico lines is reconciled again.
	MoveRecheckInterval time.Duration
	// RolloutInterval is how often the rollout controller evaluates the rollout.
	RolloutInterval time.Duration
	// DeleteTimeout bounds the wait for the ManagedResource on delete.
	DeleteTimeout time.Duration
	// DeletePollInterval is how often delete checks.
	DeletePollInterval time.Duration
}

// DefaultOptions are the controller's defaults.
func DefaultOptions() Options {
	return Options{
		AddOptions: extensionsnetwork.AddOptions{
			MaxConcurrentReconciles: 5,
			ReconciliationTimeout:   3 * time.Minute,
		},
		TTLRequeueMin:        30 * time.Second,
		TTLRequeueMax:        1 * time.Hour,
		RouteRecheckInterval: 30 * time.Second,
		MoveRecheckInterval:  15 * time.Second,
		RolloutInterval:      30 * time.Second,
		DeleteTimeout:        2 * time.Minute,
		DeletePollInterval:   2 * time.Second,
	}
}

// clusterShootOnly is the cache transform of Clusters: managedFields, the CloudProfile and the Seed
// are dropped, the shoot is kept as it is.
func clusterShootOnly(obj any) (any, error) {
	if c, ok := obj.(*extensionsv1alpha1.Cluster); ok {
		c.ManagedFields = nil
		c.Spec.CloudProfile = runtime.RawExtension{}
		c.Spec.Seed = nil
		return c, nil
	}
	return cache.TransformStripManagedFields()(obj)
}

// UncachedObjects are the kinds the manager's client must read from the API server directly:
// secrets and config maps (only a few are ours, and caching all would need list/watch on all;
// the few reads left are the shoot access secret and a content secret that already existed).
//
// What is cached: Networks and Clusters (the reconcile's inputs; a Cluster holds the whole shoot),
// the kube-apiserver DNSRecords (label-selected: gardener.cloud/role=controlplane, role internal or
// external; the address source lists them on every reconcile that publishes the GlobalNetworkSet,
// nothing is triggered by their changes) and the ManagedResources labelled
// origin=extension-networking-calico (a label-selected informer: extension-networking-calico-config
// for the shoot, -monitoring for the seed, in each namespace), which record what was stored last:
// each one's secret name is its content's hash.
// A ManagedResource the cache has not seen yet costs an AlreadyExists and one read; one it has
// stale costs a conflict and a retry.
func UncachedObjects() []client.Object {
	return []client.Object{&corev1.Secret{}, &corev1.ConfigMap{}}
}

// AddToManager builds the Calico actuator and registers the generic Network controller of type
// calico, driving it, with mgr.
// mgr's client must not cache UncachedObjects.
func AddToManager(mgr manager.Manager, deps Deps, opts Options) error {
	if deps.Renderer == nil {
		return errors.New("network controller needs a renderer")
	}
	if deps.ShootClient == nil {
		scheme, userAgent := mgr.GetScheme(), opts.UserAgent
		seed := mgr.GetClient()
		deps.ShootClient = func(ctx context.Context, namespace string) (client.Client, error) {
			return overlayswitch.NewShootClient(ctx, seed, namespace, scheme, userAgent)
		}
	}
	// Content secrets are created without decoding the API server's answer (the manifest again).
	seedClient, err := managedresource.WithLeanSecretCreates(mgr.GetClient(), mgr.GetConfig())
	if err != nil {
		return err
	}
	actuator := &Actuator{
		Client:               seedClient,
		APIReader:            mgr.GetAPIReader(),
		Deps:                 deps,
		TTLRequeueMin:        opts.TTLRequeueMin,
		TTLRequeueMax:        opts.TTLRequeueMax,
		RouteRecheckInterval: opts.RouteRecheckInterval,
		MoveRecheckInterval:  opts.MoveRecheckInterval,
		DeleteTimeout:        opts.DeleteTimeout,
		DeletePollInterval:   opts.DeletePollInterval,
	}
	return extensionsnetwork.Add(mgr, extensionsnetwork.AddArgs{
		AddOptions: opts.AddOptions,
		Actuator:   actuator,
		Type:       Type,
		Name:       ControllerName,
		Trigger:    deps.RolloutTrigger,
	})
}

// addRollout registers the rollout controller (leader-elected, one worker) when the operator
// configured a rollout, and hands its View and trigger to the Network controller.
func addRollout(mgr manager.Manager, deps *Deps, s *Setup) error {
	var spec *rollout.Spec
	if s.Config != nil && s.Config.Calico != nil {
		var errs field.ErrorList
		if spec, errs = rollout.ParseSpec(s.Config.Calico.Rollout); len(errs) > 0 {
			return fmt.Errorf("invalid ControllerConfiguration: %w", errs.ToAggregate())
		}
	}
	if spec == nil {
		return nil
	}
	if s.Namespace == "" {
		return errors.New("a calico.rollout needs the controller's namespace for its state (ConfigMap " + rollout.ConfigMapName + ")")
	}
	scheme, userAgent, seed := mgr.GetScheme(), s.Options.UserAgent, mgr.GetClient()
	// Buffered: a wave of a few hundred shoots is handed over without waiting for the workers.
	trigger := make(chan event.GenericEvent, 1024)
	view := &rollout.View{}
	deps.Rollout, deps.RolloutTrigger = view, trigger
	interval := s.Options.RolloutInterval
	if interval <= 0 {
		interval = DefaultOptions().RolloutInterval
	}
	return mgr.Add(&rollout.Controller{
		Spec: spec, Client: seed, APIReader: mgr.GetAPIReader(), Namespace: s.Namespace, NetworkType: Type,
		ShootClient: func(ctx context.Context, namespace string) (client.Client, error) {
			return overlayswitch.NewShootClient(ctx, seed, namespace, scheme, userAgent)
		},
		Interval: interval, View: view, Trigger: trigger,
		Log: mgr.GetLogger().WithName("rollout"),
	})
}
