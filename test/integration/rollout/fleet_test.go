package rollout

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
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
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/controller/network"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/mrdata"
	"github.com/calico-pilot/calico-pilot/internal/rollout"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

const (
	mrName      = "extension-networking-calico-config"
	pollTimeout = 90 * time.Second
)

// fleet is one test's shoots: control-plane namespaces in the seed (Cluster, Network, shoot access
// secret) and the shoot API servers, plus the stand-in for their resource managers and kubelets.
type fleet struct {
	t      *testing.T
	seed   client.Client
	ctrlNS string
	ns     []string
	shoot  []client.Client
	// index finds a shoot by its control-plane namespace.
	index map[string]int

	// operatorDefault is ControllerConfiguration calico.defaultVersion ("" none); catalogue the Calico
	// release catalogue the controller carries (nil: the default one).
	operatorDefault string
	catalogue       *calicoversion.Catalogue

	mu sync.Mutex
	// broken shoots never get their changed calico-node ready.
	broken map[int]bool
	// held shoots' resource managers apply nothing (a slow resource manager).
	held map[int]bool
	// kubeControllersBroken shoots never get their changed kube-controllers available.
	kubeControllersBroken map[int]bool
}

func newScheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	s, err := network.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// newFleet creates n shoots on Kubernetes k8s and starts the resource manager / kubelet stand-in.
// Each shoot API server is cleared of what an earlier test left there.
func newFleet(t *testing.T, n int, k8s string, pc string) *fleet {
	t.Helper()
	ctx := context.Background()
	seed, err := client.New(seedCP.Config, client.Options{Scheme: newScheme(t)})
	if err != nil {
		t.Fatal(err)
	}
	f := &fleet{t: t, seed: seed, index: map[string]int{}, broken: map[int]bool{}, held: map[int]bool{}, kubeControllersBroken: map[int]bool{}}
	f.ctrlNS = testenv.NewNamespace(t, seed, "garden-calico-pilot-", nil)
	for i := range n {
		sc, err := client.New(shoots.Configs[i], client.Options{Scheme: newScheme(t)})
		if err != nil {
			t.Fatal(err)
		}
		clearShoot(t, sc)
		ns := testenv.NewNamespace(t, seed, fmt.Sprintf("shoot--roll--s%02d-", i), map[string]string{"gardener.cloud/role": "shoot"})
		shoot := testenv.BaseShoot(fmt.Sprintf("s%02d", i))
		shoot.Spec.Kubernetes.Version = k8s
		raw, err := json.Marshal(shoot)
		if err != nil {
			t.Fatal(err)
		}
		if err := seed.Create(ctx, &extensionsv1alpha1.Cluster{
			ObjectMeta: metav1.ObjectMeta{Name: ns},
			Spec: extensionsv1alpha1.ClusterSpec{
				CloudProfile: runtime.RawExtension{Raw: []byte(`{"apiVersion":"core.gardener.cloud/v1beta1","kind":"CloudProfile"}`)},
				Shoot:        runtime.RawExtension{Raw: raw},
			},
		}); err != nil {
			t.Fatal(err)
		}
		kubeconfig, err := shoots.Kubeconfig(i)
		if err != nil {
			t.Fatal(err)
		}
		if err := seed.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gardener-internal"}, Data: map[string][]byte{"kubeconfig": kubeconfig}}); err != nil {
			t.Fatal(err)
		}
		nw := &extensionsv1alpha1.Network{
			ObjectMeta: metav1.ObjectMeta{Name: "demo", Namespace: ns, Annotations: map[string]string{"gardener.cloud/operation": "reconcile"}},
			Spec: extensionsv1alpha1.NetworkSpec{
				DefaultSpec: extensionsv1alpha1.DefaultSpec{Type: "calico"},
				PodCIDR:     "100.96.0.0/11", ServiceCIDR: "100.64.0.0/13",
				IPFamilies: []gardencorev1beta1.IPFamily{"IPv4"},
			},
		}
		if pc != "" {
			nw.Spec.ProviderConfig = &runtime.RawExtension{Raw: []byte(pc)}
		}
		if err := seed.Create(ctx, nw); err != nil {
			t.Fatal(err)
		}
		f.ns = append(f.ns, ns)
		f.shoot = append(f.shoot, sc)
		f.index[ns] = i
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); f.playKubelet(runCtx) }()
	t.Cleanup(func() { cancel(); <-done })
	return f
}

// clearShoot removes calico-node, Typha, kube-controllers and the IP pools an earlier test left in a
// shoot.
func clearShoot(t *testing.T, c client.Client) {
	t.Helper()
	ctx := context.Background()
	for _, obj := range []client.Object{
		&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: calicoversion.Namespace, Name: calicoversion.NodeDaemonSet}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: calicoversion.Namespace, Name: calicoversion.TyphaDeployment}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "calico-kube-controllers"}},
	} {
		if err := c.Delete(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
	}
	if err := c.DeleteAllOf(ctx, &calicov1.IPPool{}); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
}

func (f *fleet) setBroken(i int, broken bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.broken[i] = broken
}

func (f *fleet) isBroken(i int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.broken[i]
}

func (f *fleet) setKubeControllersBroken(i int, broken bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.kubeControllersBroken[i] = broken
}

func (f *fleet) isKubeControllersBroken(i int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.kubeControllersBroken[i]
}

func (f *fleet) setHeld(i int, held bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.held[i] = held
}

func (f *fleet) isHeld(i int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.held[i]
}

// playKubelet applies, for every shoot, the calico-node DaemonSet and the Typha and kube-controllers
// Deployments of the stored ManagedResource (as the shoot's resource manager would) and reports their
// rollout in status (as the DaemonSet and Deployment controllers would, from the kubelets' pods): 3
// nodes, 2 Typha replicas, 1 kube-controllers, all updated and available; a broken shoot's
// calico-node, once its template changed, stays at 2 of 3 updated with 1 unavailable; a shoot whose
// kube-controllers is broken has its changed kube-controllers pod updated and never available.
func (f *fleet) playKubelet(ctx context.Context) {
	applied := make([]string, len(f.ns))
	brokenSeen := make([]brokenness, len(f.ns))
	for ctx.Err() == nil {
		for i, ns := range f.ns {
			mr := &resourcesv1alpha1.ManagedResource{}
			if err := f.seed.Get(ctx, client.ObjectKey{Namespace: ns, Name: mrName}, mr); err != nil || len(mr.Spec.SecretRefs) != 1 {
				continue
			}
			secret := mr.Spec.SecretRefs[0].Name
			broken := brokenness{node: f.isBroken(i), kubeControllers: f.isKubeControllersBroken(i)}
			if f.isHeld(i) || (applied[i] == secret && brokenSeen[i] == broken) {
				continue
			}
			if err := f.apply(ctx, i, ns, secret, broken); err != nil {
				if ctx.Err() == nil {
					f.t.Logf("kubelet stand-in, shoot %d: %v", i, err)
				}
				continue
			}
			applied[i], brokenSeen[i] = secret, broken
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// brokenness says which workloads of a shoot never roll out a changed template.
type brokenness struct{ node, kubeControllers bool }

func (f *fleet) apply(ctx context.Context, i int, ns, secretName string, broken brokenness) error {
	s := &corev1.Secret{}
	if err := f.seed.Get(ctx, client.ObjectKey{Namespace: ns, Name: secretName}, s); err != nil {
		return err
	}
	plain, err := mrdata.Plain(s.Data)
	if err != nil {
		return err
	}
	c := f.shoot[i]
	for _, line := range bytes.Split(bytes.TrimSpace(plain["config.yaml"]), []byte("\n")) {
		switch {
		case bytes.Contains(line, []byte(`"kind":"DaemonSet"`)):
			ds := &appsv1.DaemonSet{}
			if err := json.Unmarshal(line, ds); err != nil {
				return err
			}
			if ds.Name != calicoversion.NodeDaemonSet {
				continue
			}
			live := &appsv1.DaemonSet{}
			if err := upsert(ctx, c, ds, live, func() { live.Spec = ds.Spec }); err != nil {
				return err
			}
			live.Status = appsv1.DaemonSetStatus{ObservedGeneration: live.Generation, DesiredNumberScheduled: 3, CurrentNumberScheduled: 3,
				UpdatedNumberScheduled: 3, NumberReady: 3, NumberAvailable: 3}
			if broken.node && live.Generation > 1 {
				live.Status.UpdatedNumberScheduled, live.Status.NumberReady, live.Status.NumberAvailable, live.Status.NumberUnavailable = 2, 2, 2, 1
			}
			if err := c.Status().Update(ctx, live); err != nil {
				return err
			}
		case bytes.Contains(line, []byte(`"kind":"Deployment"`)):
			d := &appsv1.Deployment{}
			if err := json.Unmarshal(line, d); err != nil {
				return err
			}
			if d.Name != calicoversion.TyphaDeployment && d.Name != calicoversion.KubeControllersDeployment {
				continue
			}
			live := &appsv1.Deployment{}
			if err := upsert(ctx, c, d, live, func() { live.Spec = d.Spec }); err != nil {
				return err
			}
			r := ptr.Deref(live.Spec.Replicas, 1)
			live.Status = appsv1.DeploymentStatus{ObservedGeneration: live.Generation, Replicas: r, UpdatedReplicas: r, ReadyReplicas: r, AvailableReplicas: r}
			if d.Name == "calico-kube-controllers" && broken.kubeControllers && live.Generation > 1 {
				live.Status.ReadyReplicas, live.Status.AvailableReplicas, live.Status.UnavailableReplicas = 0, 0, r
			}
			if err := c.Status().Update(ctx, live); err != nil {
				return err
			}
		}
	}
	return nil
}

// upsert creates desired, or copies its spec (setSpec) onto the live object and updates it; live
// holds the result.
func upsert(ctx context.Context, c client.Client, desired, live client.Object, setSpec func()) error {
	err := c.Get(ctx, client.ObjectKeyFromObject(desired), live)
	if apierrors.IsNotFound(err) {
		desired.SetResourceVersion("")
		if err := c.Create(ctx, desired); err != nil {
			return err
		}
		return c.Get(ctx, client.ObjectKeyFromObject(desired), live)
	}
	if err != nil {
		return err
	}
	setSpec()
	return c.Update(ctx, live)
}

// startController runs the production wiring (network.NewManager) over the fleet's namespaces with
// the operator's rollout (nil: none) and returns its request log; the manager stops with the test
// or when stop is called.
func (f *fleet) startController(r *configv1alpha1.Rollout) (*testenv.WriteCounter, func()) {
	f.t.Helper()
	cfg := rest.CopyConfig(seedCP.Config)
	log := testenv.NewWriteCounter()
	cfg.Wrap(log.Wrap)
	cfg.QPS, cfg.Burst = 500, 1000
	opts := network.DefaultOptions()
	opts.MaxConcurrentReconciles = 4
	opts.MoveRecheckInterval = 300 * time.Millisecond
	opts.RolloutInterval = 300 * time.Millisecond
	opts.UserAgent = "calico-pilot/test"
	namespaces := map[string]cache.Config{f.ctrlNS: {}}
	for _, ns := range f.ns {
		namespaces[ns] = cache.Config{}
	}
	operator := &configv1alpha1.ControllerConfiguration{
		KubeAPIServerGlobalNetworkSet: &configv1alpha1.KubeAPIServerGlobalNetworkSet{Enabled: ptr.To(false)},
		Calico:                        &configv1alpha1.CalicoVersions{Rollout: r},
	}
	if f.operatorDefault != "" {
		operator.Calico.DefaultVersion = ptr.To(f.operatorDefault)
	}
	var vector *imagevector.Vector
	if f.catalogue != nil {
		var err error
		if vector, err = imagevector.LoadVectorFor(f.catalogue, nil); err != nil {
			f.t.Fatal(err)
		}
	}
	mgr, err := network.NewManager(network.Setup{
		RestConfig: cfg,
		Manager: ctrl.Options{
			Scheme: newScheme(f.t), Logger: testLogger(),
			Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
			Cache:      cache.Options{DefaultNamespaces: namespaces},
			Controller: config.Controller{SkipNameValidation: ptr.To(true)},
		},
		Config:      operator,
		ImageVector: vector,
		Options:     opts,
		Namespace:   f.ctrlNS,
	})
	if err != nil {
		f.t.Fatalf("creating manager: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				f.t.Errorf("controller manager: %v", err)
			}
		})
	}
	f.t.Cleanup(stop)
	return log, stop
}

// network reads shoot i's Network.
func (f *fleet) network(i int) *extensionsv1alpha1.Network {
	f.t.Helper()
	n := &extensionsv1alpha1.Network{}
	if err := f.seed.Get(context.Background(), client.ObjectKey{Namespace: f.ns[i], Name: "demo"}, n); err != nil {
		f.t.Fatal(err)
	}
	return n
}

// status decodes shoot i's providerStatus.
func (f *fleet) status(i int) calicov1alpha1.NetworkStatus {
	f.t.Helper()
	var st calicov1alpha1.NetworkStatus
	if ps := f.network(i).Status.ProviderStatus; ps != nil {
		if err := json.Unmarshal(ps.Raw, &st); err != nil {
			f.t.Fatal(err)
		}
	}
	return st
}

// stored returns the data of shoot i's stored ManagedResource secret as the resource manager reads
// it (Brotli keys decompressed).
func (f *fleet) stored(i int) map[string][]byte {
	f.t.Helper()
	ctx := context.Background()
	mr := &resourcesv1alpha1.ManagedResource{}
	if err := f.seed.Get(ctx, client.ObjectKey{Namespace: f.ns[i], Name: mrName}, mr); err != nil {
		f.t.Fatal(err)
	}
	s := &corev1.Secret{}
	if err := f.seed.Get(ctx, client.ObjectKey{Namespace: f.ns[i], Name: mr.Spec.SecretRefs[0].Name}, s); err != nil {
		f.t.Fatal(err)
	}
	plain, err := mrdata.Plain(s.Data)
	if err != nil {
		f.t.Fatal(err)
	}
	return plain
}

// images returns the images of calico-node, Typha and kube-controllers in shoot i's stored
// ManagedResource, by workload name (main container).
func (f *fleet) images(i int) map[string]string {
	f.t.Helper()
	plain := f.stored(i)
	out := map[string]string{}
	for _, line := range bytes.Split(bytes.TrimSpace(plain["config.yaml"]), []byte("\n")) {
		var obj struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Spec struct {
				Template struct {
					Spec corev1.PodSpec `json:"spec"`
				} `json:"template"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(line, &obj); err != nil {
			f.t.Fatal(err)
		}
		if (obj.Kind == "DaemonSet" || obj.Kind == "Deployment") && len(obj.Spec.Template.Spec.Containers) > 0 {
			out[obj.Metadata.Name] = obj.Spec.Template.Spec.Containers[0].Image
		}
	}
	return out
}

// crds returns the CustomResourceDefinitions in shoot i's stored ManagedResource (every key of its
// secret, decompressed as the resource manager reads it), by name.
func (f *fleet) crds(i int) map[string]apiextensionsv1.CustomResourceDefinition {
	f.t.Helper()
	out := map[string]apiextensionsv1.CustomResourceDefinition{}
	for _, data := range f.stored(i) {
		for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			if !bytes.Contains(line, []byte(`"kind":"CustomResourceDefinition"`)) {
				continue
			}
			var crd apiextensionsv1.CustomResourceDefinition
			if err := json.Unmarshal(line, &crd); err != nil {
				f.t.Fatal(err)
			}
			out[crd.Name] = crd
		}
	}
	return out
}

// tag is the tag of an image reference.
func tag(image string) string { return image[strings.LastIndex(image, ":")+1:] }

// waitFor polls cond until it holds.
func (f *fleet) waitFor(what string, cond func() bool) {
	f.t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, pollTimeout, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		st, _, _ := rollout.ReadState(context.Background(), f.seed, f.ctrlNS)
		raw, _ := json.Marshal(st)
		f.t.Fatalf("waiting for %s: %v; rollout state: %s", what, err, raw)
	}
}

// state reads the rollout's State ConfigMap.
func (f *fleet) state() rollout.State {
	f.t.Helper()
	st, _, err := rollout.ReadState(context.Background(), f.seed, f.ctrlNS)
	if err != nil {
		f.t.Fatal(err)
	}
	return st
}

// deployedOn waits until every listed shoot has its last operation succeeded with providerStatus
// calicoVersion = release and no move.
func (f *fleet) deployedOn(release string, idx ...int) {
	f.t.Helper()
	f.waitFor(fmt.Sprintf("shoots %v on %s", idx, release), func() bool {
		for _, i := range idx {
			n := f.network(i)
			lo := n.Status.LastOperation
			st := f.status(i)
			if lo == nil || lo.State != "Succeeded" || st.CalicoVersion != release || st.CalicoMove != nil {
				return false
			}
		}
		return true
	})
}

func all(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// testLogger logs to stderr when ROLLOUT_TEST_LOG is set, else nowhere.
func testLogger() logr.Logger {
	if os.Getenv("ROLLOUT_TEST_LOG") == "" {
		return logr.Discard()
	}
	return zap.New(zap.WriteTo(os.Stderr), zap.UseDevMode(true))
}
