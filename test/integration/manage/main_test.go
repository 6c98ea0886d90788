package manage

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	standalonev1alpha1 "github.com/calico-pilot/calico-pilot/api/standalone/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/cmd"
	"github.com/calico-pilot/calico-pilot/internal/manage"
	"github.com/calico-pilot/calico-pilot/internal/standalone"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// cluster is one control plane with an uncached client and a kubeconfig file for the CLI.
type cluster struct {
	t          testing.TB
	cp         *testenv.ControlPlane
	c          client.Client
	kubeconfig string

	mu   sync.Mutex
	held bool // the workload controllers stop reporting progress
}

func newCluster(t testing.TB) *cluster {
	t.Helper()
	cp, err := testenv.Start(testenv.Options{})
	if errors.Is(err, testenv.ErrNoBinaries) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cp.Stop() })
	scheme, err := manage.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cp.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	kc, err := cp.AdminKubeconfig("admin")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	cl := &cluster{t: t, cp: cp, c: c, kubeconfig: path}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); cl.playControllers(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	cl.kubeadm(t)
	return cl
}

func (cl *cluster) hold(h bool) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	cl.held = h
}

func (cl *cluster) isHeld() bool {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.held
}

// playControllers reports every DaemonSet and Deployment as rolled out on 3 nodes / its replicas,
// as the workload controllers would, unless held.
func (cl *cluster) playControllers(ctx context.Context) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if cl.isHeld() {
			continue
		}
		testenv.ReportRolledOut(ctx, cl.c, 3)
	}
}

// kubeadm creates what a kubeadm cluster has: kubeadm-config, the kube-proxy ConfigMap and Nodes
// with pod CIDRs from the pod network.
func (cl *cluster) kubeadm(t testing.TB) {
	ctx := context.Background()
	objs := []client.Object{
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kubeadm-config"}, Data: map[string]string{
			"ClusterConfiguration": "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nnetworking:\n  podSubnet: 10.244.0.0/16\n  serviceSubnet: 10.96.0.0/12\n",
		}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kube-proxy"}, Data: map[string]string{
			"config.conf": "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n",
		}},
	}
	for i, n := range []string{"cp-1", "worker-1", "worker-2"} {
		cidr := "10.244." + string(rune('0'+i)) + ".0/24"
		objs = append(objs, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}, Spec: corev1.NodeSpec{PodCIDR: cidr, PodCIDRs: []string{cidr}}})
	}
	for _, o := range objs {
		if err := cl.c.Create(ctx, o); err != nil {
			t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
	}
}

// clusterFile is today's cluster file with metadata.name default: the Cluster object. The Kubernetes
// version is stated because envtest's kube-apiserver is a development build that reports 0.0.0.
const clusterFile = `apiVersion: standalone.calico-pilot.dev/v1alpha1
kind: Cluster
metadata:
  name: default
cluster:
  kubernetesVersion: 1.34.3
networkConfig:
  apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1
  kind: NetworkConfig
  backend: bird
  overlay:
    enabled: true
  typha:
    enabled: true
`

// createCluster creates the Cluster object of a cluster file, as kubectl apply -f would.
func (cl *cluster) createCluster(file string) *standalonev1alpha1.Cluster {
	cl.t.Helper()
	obj := &standalonev1alpha1.Cluster{}
	if err := yaml.UnmarshalStrict([]byte(file), obj); err != nil {
		cl.t.Fatal(err)
	}
	if err := cl.c.Create(context.Background(), obj); err != nil {
		cl.t.Fatalf("creating the Cluster: %v", err)
	}
	return obj
}

// controller is a running manage controller.
type controller struct {
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
}

// startController starts `calico-pilot manage`'s manager as the command builds it, with leader
// election, on cfg (nil: the admin's).
func (cl *cluster) startController(t testing.TB, cfg *rest.Config) *controller {
	t.Helper()
	if cfg == nil {
		cfg = rest.CopyConfig(cl.cp.Config)
	}
	ctx, cancel := context.WithCancel(context.Background())
	mgr, err := cmd.NewManageManager(ctx, manage.Setup{
		RestConfig: cfg,
		Manager: ctrl.Options{
			LeaderElection: true, LeaderElectionID: manage.LeaderElectionID, LeaderElectionNamespace: standalone.Namespace,
			LeaderElectionReleaseOnCancel: true,
			Metrics:                       metricsserver.Options{BindAddress: "0"},
			// Every test starts a controller of the same name in this process.
			Controller: config.Controller{SkipNameValidation: ptr.To(true)},
		},
		Identity: "test-" + t.Name(),
		Timeout:  30 * time.Second,
		Interval: time.Hour,
		Poll:     200 * time.Millisecond,
	})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	c := &controller{cancel: cancel, done: make(chan error, 1)}
	go func() { c.done <- mgr.Start(ctx) }()
	t.Cleanup(c.stop)
	return c
}

// stop stops the controller and waits until its manager returned (the Lease released).
func (c *controller) stop() {
	c.once.Do(func() {
		c.cancel()
		<-c.done
	})
}

// waitStatus waits until the Cluster's status is about its generation and ok says it is what the
// test waits for; it returns the Cluster as last read.
func (cl *cluster) waitStatus(what string, ok func(*standalonev1alpha1.Cluster) bool) *standalonev1alpha1.Cluster {
	cl.t.Helper()
	obj := &standalonev1alpha1.Cluster{}
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
		if err := cl.c.Get(ctx, client.ObjectKey{Name: standalonev1alpha1.ClusterName}, obj); err != nil {
			return false, nil
		}
		return obj.Status.ObservedGeneration == obj.Generation && ok(obj), nil
	})
	if err != nil {
		b, _ := yaml.Marshal(obj.Status)
		cl.t.Fatalf("waiting for the Cluster to be %s: %v; status:\n%s", what, err, b)
	}
	return obj
}

func available(obj *standalonev1alpha1.Cluster) bool {
	return meta.IsStatusConditionTrue(obj.Status.Conditions, standalonev1alpha1.ConditionAvailable)
}

// events are the notes of the Events on the Cluster with reason.
func (cl *cluster) events(reason string) []string {
	cl.t.Helper()
	var list eventsv1.EventList
	if err := cl.c.List(context.Background(), &list); err != nil {
		cl.t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		if e.Regarding.Kind == standalonev1alpha1.Kind && e.Regarding.Name == standalonev1alpha1.ClusterName && e.Reason == reason {
			out = append(out, e.Note)
		}
	}
	return out
}

// edit changes obj as a person would with kubectl edit (an update under manager), retrying on a
// conflict with the workload controllers' stand-in.
func (cl *cluster) edit(obj client.Object, manager string, change func()) {
	cl.t.Helper()
	ctx := context.Background()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := cl.c.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		change()
		return cl.c.Update(ctx, obj, client.FieldOwner(manager))
	})
	if err != nil {
		cl.t.Fatalf("editing %T %s: %v", obj, obj.GetName(), err)
	}
}

func (cl *cluster) state() standalone.State {
	cl.t.Helper()
	st, found, err := standalone.ReadState(context.Background(), cl.c)
	if err != nil || !found {
		cl.t.Fatalf("state: found %v, %v", found, err)
	}
	return st
}

// apply runs calico-pilot apply with the cluster's kubeconfig and a cluster file.
func (cl *cluster) apply(ctx context.Context, file string, args ...string) (int, string, string) {
	p := filepath.Join(cl.t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(p, []byte(file), 0o600); err != nil {
		cl.t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	all := append([]string{"apply", "--kubeconfig", cl.kubeconfig, "-f", p, "--timeout", "60s"}, args...)
	code := cmd.Execute(ctx, all, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func nodeImage(t *testing.T, c client.Client) string {
	t.Helper()
	var ds appsv1.DaemonSet
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "kube-system", Name: "calico-node"}, &ds); err != nil {
		t.Fatal(err)
	}
	for _, ctr := range ds.Spec.Template.Spec.Containers {
		if ctr.Name == "calico-node" {
			return ctr.Image
		}
	}
	t.Fatal("calico-node has no container calico-node")
	return ""
}

func TestMain(m *testing.M) {
	// The controllers log through controller-runtime's process-wide logger; the tests read state.
	ctrl.SetLogger(logr.Discard())
	os.Exit(m.Run())
}
