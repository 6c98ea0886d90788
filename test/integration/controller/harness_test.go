package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/apiserverendpoints"
	"github.com/calico-pilot/calico-pilot/internal/controller/network"
	"github.com/calico-pilot/calico-pilot/internal/features"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/mrdata"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

const (
	networkName = "demo"
	mrName      = "extension-networking-calico-config"
	seedMRName  = "extension-networking-calico-monitoring"
	pollTimeout = 60 * time.Second
)

// controllerSetup says how a test's controller is configured.
type controllerSetup struct {
	gates     map[string]bool
	operator  *configv1alpha1.ControllerConfiguration
	addresses network.AddressSource
	// dnsServer, when set, makes the controller use the production address source (DNSRecords read
	// with the controller's own client, CNAMEs resolved by this nameserver).
	dnsServer string
	// restConfig is the controller's identity; nil means the seed's admin.
	restConfig *rest.Config
	// ignoreOperationAnnotation runs the controller in --ignore-operation-annotation mode.
	ignoreOperationAnnotation bool
	// qps and burst set the controller's client-side rate limit (0: controller-runtime's default).
	qps   float32
	burst int
	// leaderElection runs the manager with leader election (a Lease in the test namespace).
	leaderElection bool
	// tune adjusts the controller options.
	tune func(*network.Options)
	// rolloutNamespace is the controller's namespace (the rollout's state ConfigMap); needed when
	// operator has a calico.rollout.
	rolloutNamespace string
	// images replaces the default image vector (another calico-pilot/Calico version, an operator's
	// override); nil is the embedded one.
	images *imagevector.Vector
}

// newScheme is the production scheme.
func newScheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	s, err := network.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// startController runs the real controller for one namespace until the test ends and returns the
// log of its write requests.
func startController(t testing.TB, namespace string, s controllerSetup, moreNamespaces ...string) *testenv.WriteCounter {
	t.Helper()
	log, stop := startStoppableController(t, namespace, s, moreNamespaces...)
	t.Cleanup(stop)
	return log
}

// startStoppableController is startController with the stop left to the caller (a test that
// replaces the controller, e.g. by another version); stop waits until the manager has returned.
func startStoppableController(t testing.TB, namespace string, s controllerSetup, moreNamespaces ...string) (*testenv.WriteCounter, func()) {
	t.Helper()
	base := seedCP.Config
	if s.restConfig != nil {
		base = s.restConfig
	}
	cfg := rest.CopyConfig(base)
	log := testenv.NewWriteCounter()
	cfg.Wrap(log.Wrap)
	cfg.UserAgent = "calico-pilot/test"
	if s.qps > 0 {
		cfg.QPS, cfg.Burst = s.qps, s.burst
	}

	gates, err := features.FromMap(s.gates)
	if err != nil {
		t.Fatal(err)
	}
	opts := network.DefaultOptions()
	opts.MaxConcurrentReconciles = 1
	opts.IgnoreOperationAnnotation = s.ignoreOperationAnnotation
	opts.DeleteTimeout = 3 * time.Second
	opts.DeletePollInterval = 200 * time.Millisecond
	opts.TTLRequeueMin = time.Second
	opts.TTLRequeueMax = time.Hour
	opts.RouteRecheckInterval = 300 * time.Millisecond
	opts.UserAgent = "calico-pilot/test"
	if s.tune != nil {
		s.tune(&opts)
	}
	addresses := func(client.Client) (network.AddressSource, error) { return s.addresses, nil }
	if s.dnsServer != "" {
		resolver, err := apiserverendpoints.NewDNSResolver(apiserverendpoints.DNSResolverConfig{Servers: []string{s.dnsServer}, Timeout: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		addresses = func(c client.Client) (network.AddressSource, error) {
			return network.NewAddressSource(&apiserverendpoints.Source{
				Reader: c, Resolver: resolver,
				Retry: wait.Backoff{Duration: 100 * time.Millisecond, Factor: 2, Steps: 2},
			}), nil
		}
	}
	// The production wiring (network.NewManager), with the test's manager options.
	mgr, err := network.NewManager(network.Setup{
		RestConfig: cfg,
		Manager: ctrl.Options{
			Scheme:                 newScheme(t),
			Logger:                 testLogger(),
			Metrics:                metricsserver.Options{BindAddress: "0"},
			HealthProbeBindAddress: "0",
			Cache:                  cache.Options{DefaultNamespaces: namespaces(namespace, moreNamespaces)},
			// Every test starts its own manager with the same controller name.
			Controller: config.Controller{SkipNameValidation: ptr.To(true)},
			// Leader election needs a namespace; tests that use it pass one.
			LeaderElection:          s.leaderElection,
			LeaderElectionNamespace: namespace,
			LeaderElectionID:        "calico-pilot-leader-election",
		},
		ImageVector:  s.images,
		Addresses:    addresses,
		FeatureGates: gates,
		Config:       s.operator,
		Options:      opts,
		Namespace:    s.rolloutNamespace,
	})
	if err != nil {
		t.Fatalf("creating manager: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	var once sync.Once
	return log, func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("controller manager: %v", err)
			}
		})
	}
}

// namespaces is the cache's namespace restriction; none ("") means all namespaces.
func namespaces(first string, more []string) map[string]cache.Config {
	if first == "" {
		return nil
	}
	out := map[string]cache.Config{first: {}}
	for _, ns := range more {
		out[ns] = cache.Config{}
	}
	return out
}

// adminClient is an uncached client of the seed with the production scheme.
func adminClient(t testing.TB) client.Client {
	t.Helper()
	c, err := client.New(seedCP.Config, client.Options{Scheme: newScheme(t)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// baseShoot is the shoot of the Cluster (testenv.BaseShoot, named after the Network).
func baseShoot() *gardencorev1beta1.Shoot { return testenv.BaseShoot(networkName) }

// testEnv is one test's shoot: a control-plane namespace, its Cluster and the Network.
type testEnv struct {
	t  testing.TB
	c  client.Client
	ns string
}

// newTestEnv creates a fresh control-plane namespace and its Cluster with the (mutated) base shoot.
func newTestEnv(t *testing.T, mutate func(*gardencorev1beta1.Shoot)) *testEnv {
	t.Helper()
	c := adminClient(t)
	ns := testenv.NewNamespace(t, c, "shoot--test--", map[string]string{"gardener.cloud/role": "shoot"})
	e := &testEnv{t: t, c: c, ns: ns}
	shoot := baseShoot()
	if mutate != nil {
		mutate(shoot)
	}
	e.setShoot(shoot)
	return e
}

// setShoot creates or replaces the Cluster's shoot.
func (e *testEnv) setShoot(shoot *gardencorev1beta1.Shoot) {
	e.t.Helper()
	ctx := context.Background()
	cluster := &extensionsv1alpha1.Cluster{}
	err := e.c.Get(ctx, client.ObjectKey{Name: e.ns}, cluster)
	switch {
	case apierrors.IsNotFound(err):
		if err := createCluster(ctx, e.c, e.ns, shoot); err != nil {
			e.t.Fatal(err)
		}
	case err != nil:
		e.t.Fatal(err)
	default:
		raw, err := json.Marshal(shoot)
		if err != nil {
			e.t.Fatal(err)
		}
		cluster.Spec.Shoot = runtime.RawExtension{Raw: raw}
		if err := e.c.Update(ctx, cluster); err != nil {
			e.t.Fatalf("updating Cluster: %v", err)
		}
	}
}

// createCluster creates the Cluster of a control-plane namespace with shoot embedded.
func createCluster(ctx context.Context, c client.Client, ns string, shoot *gardencorev1beta1.Shoot) error {
	raw, err := json.Marshal(shoot)
	if err != nil {
		return err
	}
	cluster := &extensionsv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: ns},
		Spec: extensionsv1alpha1.ClusterSpec{
			CloudProfile: runtime.RawExtension{Raw: []byte(`{"apiVersion":"core.gardener.cloud/v1beta1","kind":"CloudProfile"}`)},
			Shoot:        runtime.RawExtension{Raw: raw},
		},
	}
	if err := c.Create(ctx, cluster); err != nil {
		return fmt.Errorf("creating Cluster: %w", err)
	}
	return nil
}

func (e *testEnv) key() client.ObjectKey { return client.ObjectKey{Namespace: e.ns, Name: networkName} }

// providerConfig wraps a NetworkConfig body (YAML) with its apiVersion and kind.
func providerConfig(body string) *runtime.RawExtension {
	if body == "" {
		return nil
	}
	return &runtime.RawExtension{Raw: []byte("apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\nkind: NetworkConfig\n" + body)}
}

// createNetwork creates the Network the way the gardenlet does (with the reconcile annotation).
func (e *testEnv) createNetwork(pc *runtime.RawExtension) {
	e.t.Helper()
	n := &extensionsv1alpha1.Network{
		ObjectMeta: metav1.ObjectMeta{Name: networkName, Namespace: e.ns, Annotations: map[string]string{"gardener.cloud/operation": "reconcile"}},
		Spec: extensionsv1alpha1.NetworkSpec{
			DefaultSpec: extensionsv1alpha1.DefaultSpec{Type: "calico", ProviderConfig: pc},
			PodCIDR:     "100.96.0.0/11", ServiceCIDR: "100.64.0.0/13",
			IPFamilies: []gardencorev1beta1.IPFamily{"IPv4"},
		},
	}
	if pc != nil {
		// The API server stores providerConfig as JSON; send it as JSON like the gardenlet does.
		n.Spec.ProviderConfig = &runtime.RawExtension{Raw: yamlToJSON(e.t, pc.Raw)}
	}
	if err := e.c.Create(context.Background(), n); err != nil {
		e.t.Fatalf("creating Network: %v", err)
	}
}

// network reads the Network.
func (e *testEnv) network() *extensionsv1alpha1.Network {
	e.t.Helper()
	n := &extensionsv1alpha1.Network{}
	if err := e.c.Get(context.Background(), e.key(), n); err != nil {
		e.t.Fatalf("reading Network: %v", err)
	}
	return n
}

// patchNetwork applies mutate to the Network (merge patch) and returns the result.
func (e *testEnv) patchNetwork(mutate func(*extensionsv1alpha1.Network)) {
	e.t.Helper()
	n := e.network()
	patch := client.MergeFrom(n.DeepCopy())
	mutate(n)
	if err := e.c.Patch(context.Background(), n, patch); err != nil {
		e.t.Fatalf("patching Network: %v", err)
	}
}

// annotate sets the gardener.cloud/operation annotation, as the gardenlet does to trigger an operation.
func (e *testEnv) annotate(op string) {
	e.t.Helper()
	e.patchNetwork(func(n *extensionsv1alpha1.Network) {
		if n.Annotations == nil {
			n.Annotations = map[string]string{}
		}
		n.Annotations["gardener.cloud/operation"] = op
	})
}

// waitFor polls cond until it holds.
func (e *testEnv) waitFor(what string, cond func() (bool, error)) {
	e.t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, pollTimeout, true, func(context.Context) (bool, error) {
		return cond()
	})
	if err != nil {
		e.t.Fatalf("waiting for %s: %v", what, err)
	}
}

// waitForOperation waits until the Network's lastOperation has type and state, the operation
// annotation is gone and, if after is given, the reconcile's status write (a reconcile writes one;
// delete and migrate write Processing first) was sent after that snapshot of log.
func (e *testEnv) waitForOperation(log *testenv.WriteCounter, after map[string]int, opType, state string) *extensionsv1alpha1.Network {
	e.t.Helper()
	var n *extensionsv1alpha1.Network
	defer func() {
		if e.t.Failed() && n != nil {
			e.t.Logf("last seen: annotations %v, lastOperation %+v, lastError %+v", n.Annotations, n.Status.LastOperation, n.Status.LastError)
		}
	}()
	e.waitFor(fmt.Sprintf("lastOperation %s/%s", opType, state), func() (bool, error) {
		n = &extensionsv1alpha1.Network{}
		if err := e.c.Get(context.Background(), e.key(), n); err != nil {
			return false, err
		}
		lo := n.Status.LastOperation
		if lo == nil || string(lo.Type) != opType || string(lo.State) != state {
			return false, nil
		}
		if _, ok := n.Annotations["gardener.cloud/operation"]; ok {
			return false, nil
		}
		if after != nil && log.Since(after)["networks/status"] < 1 {
			return false, nil
		}
		return true, nil
	})
	return n
}

// managedResource returns the shoot ManagedResource or nil when it does not exist.
func (e *testEnv) managedResource() *resourcesv1alpha1.ManagedResource {
	e.t.Helper()
	return e.managedResourceNamed(mrName)
}

// seedManagedResource returns the seed ManagedResource (class seed: the monitoring objects) or
// nil when it does not exist.
func (e *testEnv) seedManagedResource() *resourcesv1alpha1.ManagedResource {
	e.t.Helper()
	return e.managedResourceNamed(seedMRName)
}

func (e *testEnv) managedResourceNamed(name string) *resourcesv1alpha1.ManagedResource {
	e.t.Helper()
	mr := &resourcesv1alpha1.ManagedResource{}
	if err := e.c.Get(context.Background(), client.ObjectKey{Namespace: e.ns, Name: name}, mr); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		e.t.Fatal(err)
	}
	return mr
}

// secretNames lists the names of the namespace's secrets.
func (e *testEnv) secretNames() []string {
	e.t.Helper()
	var list corev1.SecretList
	if err := e.c.List(context.Background(), &list, client.InNamespace(e.ns)); err != nil {
		e.t.Fatal(err)
	}
	var names []string
	for _, s := range list.Items {
		names = append(names, s.Name)
	}
	return names
}

// manifest returns the decoded objects stored for the ManagedResource, by "Kind/name".
func (e *testEnv) manifest() map[string]map[string]any {
	e.t.Helper()
	return e.manifestOf(mrName)
}

// seedManifest returns the decoded objects stored for the seed ManagedResource, by "Kind/name".
func (e *testEnv) seedManifest() map[string]map[string]any {
	e.t.Helper()
	return e.manifestOf(seedMRName)
}

func (e *testEnv) manifestOf(name string) map[string]map[string]any {
	e.t.Helper()
	mr := e.managedResourceNamed(name)
	if mr == nil {
		e.t.Fatalf("no ManagedResource %s", name)
	}
	if len(mr.Spec.SecretRefs) != 1 {
		e.t.Fatalf("ManagedResource has %d secretRefs, want 1", len(mr.Spec.SecretRefs))
	}
	s := &corev1.Secret{}
	if err := e.c.Get(context.Background(), client.ObjectKey{Namespace: e.ns, Name: mr.Spec.SecretRefs[0].Name}, s); err != nil {
		e.t.Fatal(err)
	}
	// Every key, as the resource manager reads them: the plain stream and (shoot) the
	// Brotli-compressed CRDs.
	plain, err := mrdata.Plain(s.Data)
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for key, stream := range plain {
		for _, line := range strings.Split(strings.TrimSpace(string(stream)), "\n") {
			var obj map[string]any
			if err := json.Unmarshal([]byte(line), &obj); err != nil {
				e.t.Fatalf("stored manifest key %s: a line is not JSON: %v", key, err)
			}
			md := obj["metadata"].(map[string]any)
			out[obj["kind"].(string)+"/"+md["name"].(string)] = obj
		}
	}
	return out
}

func corev1SecretRef(name string) corev1.SecretReference { return corev1.SecretReference{Name: name} }
