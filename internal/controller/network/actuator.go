package network

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/apiserverendpoints"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	extensionsnetwork "github.com/calico-pilot/calico-pilot/internal/extensions/network"
	"github.com/calico-pilot/calico-pilot/internal/features"
	"github.com/calico-pilot/calico-pilot/internal/managedresource"
	"github.com/calico-pilot/calico-pilot/internal/overlayswitch"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// Actuator reconciles, deletes, migrates and restores the Calico deployment of one Network: it is
// the extensionsnetwork.Actuator of type calico. The generic reconciler (internal/extensions/network)
// calls it after the lifecycle bookkeeping; the Actuator itself never touches lastOperation,
// lastError, observedGeneration, finalizers or the operation annotation.
type Actuator struct {
	// Client reads and writes the seed. Secrets must not be served from a cache (they are
	// immutable and content-addressed, but a cache would need list/watch on all secrets). When it
	// is a managedresource.SecretCreator (AddToManager makes it one), content secrets are created
	// without decoding the API server's answer.
	Client client.Client
	// APIReader reads from the API server directly: the rare reads after an AlreadyExists, when
	// the cache has not seen an object yet. ManagedResources are read from Client's cache.
	APIReader client.Reader
	// Deps are the renderer, address source, shoot client factory, feature gates and operator
	// configuration; ShootClient must be set (AddToManager defaults it).
	Deps
	// TTLRequeueMin and TTLRequeueMax bound the requeue delay after a CNAME was resolved.
	TTLRequeueMin, TTLRequeueMax time.Duration
	// RouteRecheckInterval is how soon a Network waiting for node routes is retried.
	RouteRecheckInterval time.Duration
	// MoveRecheckInterval is how soon a Network moving between Calico releases is reconciled again.
	MoveRecheckInterval time.Duration
	// DeleteTimeout bounds how long Delete waits for the ManagedResource to disappear.
	DeleteTimeout time.Duration
	// DeletePollInterval is how often Delete checks.
	DeletePollInterval time.Duration
	// Now is the clock used for condition timestamps.
	Now func() time.Time
}

var _ extensionsnetwork.Actuator = (*Actuator)(nil)

// Cluster is the decoded Cluster of a Network (the generic lifecycle reads and decodes it).
type Cluster = extensionsnetwork.Cluster

// Reconcile deploys the Calico manifest for network: decode + validate, gather the kube-apiserver
// addresses, render, check the overlay switch, store. It returns how soon the Network must be
// reconciled again (0 for "only on the next event"). It writes no status: it sets the conditions
// and, on success, what was applied (providerStatus, status.ipFamilies) in network.Status, and the
// generic reconciler (internal/extensions/network) sends them with lastOperation in the reconcile's one status write.
//
// asked is true when the reconcile was asked for (the gardenlet's operation annotation, a changed
// Network spec, a restore): only then, or when the config's IP pools are not yet what the status
// records, is the shoot contacted for its IP pools (syncPools).
func (a *Actuator) Reconcile(ctx context.Context, log logr.Logger, network *extensionsv1alpha1.Network, cluster *Cluster, asked bool) (time.Duration, error) {
	conds := newConditionSet(network.Status.Conditions, a.now())
	applied, requeue, err := a.reconcile(ctx, log, network, cluster, conds, asked)
	// Conditions are reported whether the reconcile succeeded or not: they tell the shoot owner
	// what is wrong in their terms.
	if serr := setStatus(network, conds, applied); serr != nil {
		return 0, errors.Join(err, serr)
	}
	return requeue, err
}

// Restore is an asked-for Reconcile: everything the actuator needs is in the Network, the Cluster
// and the seed.
func (a *Actuator) Restore(ctx context.Context, log logr.Logger, network *extensionsv1alpha1.Network, cluster *Cluster) (time.Duration, error) {
	return a.Reconcile(ctx, log, network, cluster, true)
}

// reconcile returns what was applied (nil unless the ManagedResource was stored) and the requeue
// delay. It reads as Gardener's actuators do, one named step each: gather the inputs, decide the
// Calico release, render, apply (overlay gate, the two ManagedResources, the shoot's IP pools),
// report what was applied. Each step sets the conditions it is the judge of; the first error ends
// the sequence.
func (a *Actuator) reconcile(ctx context.Context, log logr.Logger, network *extensionsv1alpha1.Network, cluster *Cluster, conds *conditionSet, asked bool) (*calicov1alpha1.NetworkStatus, time.Duration, error) {
	in, err := a.gather(ctx, log, network, cluster, conds)
	if err != nil {
		return nil, 0, err
	}
	line, err := a.decide(in, conds)
	if err != nil {
		return nil, 0, err
	}
	out, err := a.render(ctx, log, in, line, conds)
	if err != nil {
		return nil, 0, err
	}
	pools, err := a.apply(ctx, log, in, out, conds, asked)
	if err != nil {
		return nil, 0, err
	}
	return a.report(in, out, pools)
}

// gathered is what a reconcile reads before it decides anything: the renderer's Inputs (the
// Network, its shoot, the decoded providerConfig, and the settings with the compatibility mode, the
// taken-over template and the kube-apiserver addresses; the Calico release is decided next) and the
// seed's and landscape's facts about the shoot the other steps need.
type gathered struct {
	Inputs
	namespace string
	// deployed is what the seed holds for the Network (how the compatibility mode was chosen).
	deployed pipeline.Deployed
	// addrs are the kube-apiserver addresses for the GlobalNetworkSet (nil Addrs: left out), with
	// their TTL for the requeue.
	addrs KubeAPIServerAddresses
}

// gather decodes and validates the providerConfig (condition ConfigurationValid) and reads what the
// decisions need: the compatibility mode and the deployed state, what the swap-in from the reference keeps, and the
// kube-apiserver addresses (condition KubeAPIServerGlobalNetworkSet), into the render settings
// (pipeline.OperatorSettings of the operator's configuration and feature gates).
func (a *Actuator) gather(ctx context.Context, log logr.Logger, network *extensionsv1alpha1.Network, cluster *Cluster, conds *conditionSet) (gathered, error) {
	in := gathered{Inputs: Inputs{Network: network, Shoot: cluster.Shoot}, namespace: network.Namespace}
	cfg, errs := pipeline.ExistingNetworkConfig(network)
	if len(errs) > 0 {
		err := errs.ToAggregate()
		conds.set(ConditionConfigurationValid, gardencorev1beta1.ConditionFalse, "InvalidProviderConfig", err.Error())
		return in, extensionsnetwork.ConfigurationError(fmt.Errorf("invalid providerConfig: %w", err))
	}
	in.Config = cfg
	conds.set(ConditionConfigurationValid, gardencorev1beta1.ConditionTrue, "ProviderConfigValid", "The providerConfig is valid.")

	in.Settings = pipeline.OperatorSettings(a.Config, a.FeatureGates)
	var err error
	if in.Settings.Compatibility, in.deployed, err = a.compatibility(ctx, network); err != nil {
		return in, err
	}
	if in.deployed.StatusErr != nil {
		// A status we cannot read is treated as absent: the overlay check falls back to the
		// deployed manifest, so nothing unsafe follows from ignoring it.
		log.Info("Ignoring unreadable providerStatus", "error", in.deployed.StatusErr.Error())
	}
	in.Settings.TakenOver = a.referenceKept(ctx, log, in.namespace, in.deployed.Previous, in.Settings.Compatibility)
	in.addrs, err = a.kubeAPIServerAddresses(ctx, in.namespace, in.Shoot, in.Config, conds)
	in.Settings.KubeAPIServerAddresses = in.addrs.Addrs
	return in, err
}

// decide is the one decision of the Calico release the shoot runs (calicoversion.Decide).
func (a *Actuator) decide(in gathered, conds *conditionSet) (calicoversion.Decision, error) {
	previous := in.deployed.Previous
	facts := releaseFacts(previous, previous != nil || in.deployed.ByOther, in.Config, a.Config,
		a.assignment(in.namespace), in.Shoot.Spec.Kubernetes.Version, values.HibernationWanted(in.Shoot), a.now())
	facts.Available = a.availability(in.Shoot.Spec.Kubernetes.Version)
	line, err := a.catalogue().Decide(facts)
	if err != nil {
		// A release of a line this calico-pilot does not carry: rendering anything would move the
		// shoot across lines, so nothing is changed until a calico-pilot that carries it runs.
		conds.set(ConditionCalicoVersion, gardencorev1beta1.ConditionFalse, "ReleaseNotCarried", err.Error())
		return line, extensionsnetwork.ConfigurationError(fmt.Errorf("the Calico release the shoot runs: %w", err))
	}
	return line, nil
}

// rendered is what render hands to apply and report.
type rendered struct {
	Rendered
	// moveRequeue is how soon a Network moving between releases is reconciled again (0: not moving).
	moveRequeue time.Duration
}

// render renders the manifest for the decided release; while a move is in progress it steps the
// move once the applied step rolled out and renders the next step. It sets the CalicoVersion and
// findings conditions and records the release in the status to apply.
func (a *Actuator) render(ctx context.Context, log logr.Logger, in gathered, line calicoversion.Decision, conds *conditionSet) (rendered, error) {
	inputs := in.Inputs
	inputs.Settings.Calico = line.Deployment()
	var out rendered
	var err error
	out.Rendered, err = a.Renderer.Render(ctx, inputs)
	if err == nil && line.Moving() && !line.StartedNow {
		// A move in progress: step it once the applied step rolled out in the shoot.
		var next bool
		if line, next = a.stepMove(ctx, log, in.namespace, line, out.Workloads); next {
			inputs.Settings.Calico = line.Deployment()
			out.Rendered, err = a.Renderer.Render(ctx, inputs)
		}
	}
	if line.Moving() {
		out.moveRequeue = a.MoveRecheckInterval
	}
	conds.set(ConditionCalicoVersion, conditionStatus(line.Status), line.Reason, line.Message)
	if err != nil {
		if extensionsnetwork.IsConfigurationError(err) {
			// The providerConfig is valid on its own but not for this shoot (e.g. vpa mode on a
			// shoot without a VPA): the shoot owner has to change one of them.
			conds.set(ConditionConfigurationValid, gardencorev1beta1.ConditionFalse, "InvalidForShoot", err.Error())
			return out, fmt.Errorf("invalid configuration for this shoot: %w", err)
		}
		return out, fmt.Errorf("rendering calico manifests: %w", err)
	}
	setFindingsCondition(conds, out.Findings)
	recordLine(&out.Status, line)
	return out, nil
}

// appliedPools is what apply did to the shoot's IP pools.
type appliedPools struct {
	records []calicov1alpha1.IPPoolRecord
	requeue time.Duration
}

// apply writes the render: nothing while an overlay switch waits for routes; then the seed and the
// shoot ManagedResources, then the shoot's IP pools.
func (a *Actuator) apply(ctx context.Context, log logr.Logger, in gathered, out rendered, conds *conditionSet, asked bool) (appliedPools, error) {
	if err := a.checkOverlaySwitch(ctx, log, in.namespace, in.Shoot, in.deployed.Previous, out.Status, conds); err != nil {
		return appliedPools{}, err
	}
	if err := a.storeManagedResources(ctx, log, in.namespace, out.Rendered); err != nil {
		return appliedPools{}, err
	}
	records, requeue := a.syncPools(ctx, log, in.namespace, in.Shoot, out.Pools, in.deployed.Previous, conds, asked)
	return appliedPools{records: records, requeue: requeue}, nil
}

// storeManagedResources stores the seed objects and the shoot manifest. What was stored last is
// known from the cached ManagedResources: each names its content secret (a hash of the content), so
// an unchanged reconcile sends no request for either. The two are independent (each is compared
// with its own cached state; a failed one is stored by the next reconcile whatever happened to the
// other), so they are written concurrently: a first reconcile waits for two round trips less.
func (a *Actuator) storeManagedResources(ctx context.Context, log logr.Logger, namespace string, out Rendered) error {
	seedData, err := seedObjectsData(a.Client.Scheme(), namespace, out.SeedObjects)
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	var seedErr, shootErr error
	wg.Go(func() {
		if _, err := a.store(ctx, log, namespace, SeedManagedResourceName, resourcesv1alpha1.ClassSeed, seedData); err != nil {
			seedErr = fmt.Errorf("storing the seed objects: %w", err)
		}
	})
	wg.Go(func() {
		_, shootErr = a.store(ctx, log, namespace, ManagedResourceName, "", out.Data)
	})
	wg.Wait()
	return errors.Join(shootErr, seedErr)
}

// report is what was applied (the rendered status with the pools' records) and the soonest of the
// requeue delays: the addresses' TTL, the pools' recheck and the move's recheck.
func (a *Actuator) report(in gathered, out rendered, pools appliedPools) (*calicov1alpha1.NetworkStatus, time.Duration, error) {
	status := out.Status
	status.IPPools = pools.records
	return &status, minRequeue(minRequeue(a.ttlRequeue(in.addrs), pools.requeue), out.moveRequeue), nil
}

// store makes the ManagedResource name (class: "" for the shoot, "seed" for the seed) hold data;
// nothing is sent when the cached one already does.
func (a *Actuator) store(ctx context.Context, log logr.Logger, namespace, name, class string, data map[string][]byte) (managedresource.Result, error) {
	current, err := managedresource.Get(ctx, a.Client, namespace, name)
	if err != nil {
		return managedresource.Result{}, err
	}
	res, err := managedresource.Apply(ctx, a.Client, a.APIReader, current, managedresource.Object{
		Namespace: namespace, Name: name, Origin: ManagedResourceOrigin, Class: class,
	}, data)
	if err != nil {
		return res, fmt.Errorf("storing ManagedResource %s: %w", name, err)
	}
	if res.Changed {
		log.Info("Stored ManagedResource", "managedResource", name, "secret", res.SecretName, "deletedSecrets", res.DeletedSecrets)
	}
	return res, nil
}

// minRequeue is the sooner of two requeue delays, 0 meaning none.
func minRequeue(a, b time.Duration) time.Duration {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}

// kubeAPIServerAddresses returns the addresses for the GlobalNetworkSet; nil Addrs when the set is
// to be left out.
func (a *Actuator) kubeAPIServerAddresses(ctx context.Context, namespace string, shoot *gardencorev1beta1.Shoot, cfg *calicov1alpha1.NetworkConfig, conds *conditionSet) (KubeAPIServerAddresses, error) {
	if !pipeline.GlobalNetworkSetEnabled(cfg, a.Config) {
		conds.remove(ConditionKubeAPIServerGlobalNetworkSet)
		return KubeAPIServerAddresses{}, nil
	}
	if values.HibernationWanted(shoot) {
		conds.set(ConditionKubeAPIServerGlobalNetworkSet, gardencorev1beta1.ConditionFalse, "ShootHibernated",
			"The shoot is hibernated: the gardener-kube-apiserver GlobalNetworkSet is left out and published again after wake-up.")
		return KubeAPIServerAddresses{}, nil
	}
	if a.Addresses == nil {
		return KubeAPIServerAddresses{}, errors.New("kube-apiserver GlobalNetworkSet is enabled but the controller has no address source")
	}
	addrs, err := a.Addresses.KubeAPIServerAddresses(ctx, namespace)
	if err == nil && len(addrs.Addrs) == 0 {
		err = errors.New("no kube-apiserver address found")
	}
	if err != nil {
		msg := fmt.Sprintf("The kube-apiserver addresses for the gardener-kube-apiserver GlobalNetworkSet cannot be determined, so nothing was changed in the shoot (an incomplete set would block traffic your policies allow): %v", err)
		conds.set(ConditionKubeAPIServerGlobalNetworkSet, gardencorev1beta1.ConditionFalse, "AddressesUnavailable", msg)
		return KubeAPIServerAddresses{}, extensionsnetwork.RetriableError(fmt.Errorf("determining kube-apiserver addresses for the GlobalNetworkSet: %w", err), 0, extensionsnetwork.ErrCodeRetryableConfigurationProblem)
	}
	conds.set(ConditionKubeAPIServerGlobalNetworkSet, gardencorev1beta1.ConditionTrue, "Published",
		fmt.Sprintf("The gardener-kube-apiserver GlobalNetworkSet holds %s.", joinAddrs(addrs.Addrs)))
	return addrs, nil
}

// ttlRequeue is when resolved addresses must be resolved again: the shortest TTL, bounded by the
// configured minimum and maximum; 0 (no requeue) when no name was resolved.
func (a *Actuator) ttlRequeue(addrs KubeAPIServerAddresses) time.Duration {
	if !addrs.Resolved {
		return 0
	}
	return apiserverendpoints.RequeueInterval(addrs.TTL, a.TTLRequeueMin, a.TTLRequeueMax)
}

// checkOverlaySwitch keeps the deployed manifest while an overlay on -> off switch waits for routes.
func (a *Actuator) checkOverlaySwitch(ctx context.Context, log logr.Logger, namespace string, shoot *gardencorev1beta1.Shoot, previous *calicov1alpha1.NetworkStatus, next calicov1alpha1.NetworkStatus, conds *conditionSet) error {
	gate := a.FeatureGates != nil && a.FeatureGates.Enabled(features.SeamlessOverlaySwitch)
	if !gate {
		conds.remove(ConditionOverlaySwitch)
		return nil
	}
	var featureGates, runtimeConfig map[string]bool
	if kas := shoot.Spec.Kubernetes.KubeAPIServer; kas != nil {
		featureGates, runtimeConfig = kas.FeatureGates, kas.RuntimeConfig
	}
	mapAvailable, err := overlayswitch.MutatingAdmissionPolicyAvailable(shoot.Spec.Kubernetes.Version, featureGates, runtimeConfig)
	if err != nil {
		return fmt.Errorf("detecting pod overlay switch: %w", err)
	}
	desired := next.OverlayEnabled == nil || *next.OverlayEnabled
	if !mapAvailable || desired {
		conds.remove(ConditionOverlaySwitch)
		return nil
	}
	deployed, err := a.deployedOverlay(ctx, namespace, previous)
	if err != nil {
		return fmt.Errorf("detecting pod overlay switch: %w", err)
	}
	in := overlayswitch.Inputs{GateEnabled: gate, MAPAvailable: mapAvailable, OverlayDeployed: deployed, OverlayDesired: desired, Hibernated: values.HibernationWanted(shoot)}
	if !overlayswitch.NeedsRouteCheck(in) {
		conds.remove(ConditionOverlaySwitch)
		return nil
	}
	shootClient, err := a.ShootClient(ctx, namespace)
	if err != nil {
		return fmt.Errorf("cannot verify node routes before overlay switch: %w", err)
	}
	if err := overlayswitch.CheckNodeRoutes(ctx, shootClient); err != nil {
		var notReady *overlayswitch.RoutesNotReadyError
		if errors.As(err, &notReady) {
			conds.set(ConditionOverlaySwitch, gardencorev1beta1.ConditionFalse, "WaitingForRoutes", "Overlay stays enabled: "+err.Error())
			log.Info("Keeping overlay until node routes exist", "nodesNotReady", len(notReady.NotReady), "nodes", notReady.Total)
			return extensionsnetwork.RetriableError(err, a.RouteRecheckInterval)
		}
		return fmt.Errorf("cannot verify node routes before overlay switch: %w", err)
	}
	conds.set(ConditionOverlaySwitch, gardencorev1beta1.ConditionTrue, "RoutesCreated", "Every node has its pod routes; the overlay is switched off.")
	return nil
}

// deployedOverlay says whether the deployed manifest has the overlay on: from our provider status,
// or, for a Network last reconciled by the reference extension, from the deployed DaemonSet.
func (a *Actuator) deployedOverlay(ctx context.Context, namespace string, previous *calicov1alpha1.NetworkStatus) (*bool, error) {
	if previous != nil && previous.OverlayEnabled != nil {
		v := *previous.OverlayEnabled
		return &v, nil
	}
	// Read from the API server: the cache holds only ManagedResources with our origin label, and
	// this is the rare path of a Network the reference extension reconciled last.
	data, err := managedresource.ReadData(ctx, a.APIReader, namespace, ManagedResourceName)
	if err != nil {
		return nil, err
	}
	return overlayswitch.OverlayFromManifests(data)
}

// Delete removes the seed monitoring objects and the ManagedResource (whose resource manager then
// removes the shoot objects) and waits, bounded, until the ManagedResource is gone.
func (a *Actuator) Delete(ctx context.Context, log logr.Logger, network *extensionsv1alpha1.Network, cluster *Cluster) error {
	if err := a.deleteAll(ctx, network.Namespace); err != nil {
		return err
	}
	log.Info("Waiting for ManagedResource to be deleted", "managedResource", ManagedResourceName)
	return managedresource.WaitUntilDeleted(ctx, a.Client, network.Namespace, ManagedResourceName, a.DeletePollInterval, a.DeleteTimeout)
}

// ForceDelete removes what Delete removes without waiting for the shoot's resource manager.
func (a *Actuator) ForceDelete(ctx context.Context, _ logr.Logger, network *extensionsv1alpha1.Network, _ *Cluster) error {
	return a.deleteAll(ctx, network.Namespace)
}

// Migrate lets go of the seed side and keeps every object in the shoot: keepObjects=true on the
// ManagedResource, then delete it, its secrets and the seed monitoring objects.
func (a *Actuator) Migrate(ctx context.Context, _ logr.Logger, network *extensionsv1alpha1.Network, _ *Cluster) error {
	if err := managedresource.SetKeepObjects(ctx, a.Client, network.Namespace, ManagedResourceName, true); err != nil {
		return err
	}
	return a.deleteAll(ctx, network.Namespace)
}

// deleteAll deletes the seed ManagedResource (the seed's resource manager deletes its objects),
// the seed objects the reference wrote directly, and the shoot ManagedResource.
func (a *Actuator) deleteAll(ctx context.Context, namespace string) error {
	if err := managedresource.Delete(ctx, a.Client, a.Client, managedresource.Object{Namespace: namespace, Name: SeedManagedResourceName, Origin: ManagedResourceOrigin}); err != nil {
		return fmt.Errorf("deleting the seed ManagedResource: %w", err)
	}
	if err := deleteLegacySeedObjects(ctx, a.Client, namespace); err != nil {
		return err
	}
	if err := managedresource.Delete(ctx, a.Client, a.Client, managedresource.Object{Namespace: namespace, Name: ManagedResourceName, Origin: ManagedResourceOrigin}); err != nil {
		return fmt.Errorf("deleting ManagedResource: %w", err)
	}
	return nil
}

func (a *Actuator) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

func joinAddrs(addrs []netip.Addr) string {
	parts := make([]string, len(addrs))
	for i, a := range addrs {
		parts[i] = a.String()
	}
	return strings.Join(parts, ", ")
}
