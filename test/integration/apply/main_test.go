package apply

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/cmd"
	"github.com/calico-pilot/calico-pilot/internal/standalone"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// cluster is one control plane with a client and a kubeconfig file for the CLI.
type cluster struct {
	t          *testing.T
	cp         *testenv.ControlPlane
	c          client.Client
	kubeconfig string

	mu   sync.Mutex
	held bool          // the workload controllers stop reporting progress
	wake chan struct{} // a workload changed, or hold was released: playControllers looks again
}

// startControllers runs the workload controllers' stand-in (playControllers) until the test ends.
func (cl *cluster) startControllers() {
	cl.wake = make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { cl.playControllers(ctx) })
	wg.Go(func() { cl.watchWorkloads(ctx) })
	cl.t.Cleanup(func() { cancel(); wg.Wait() })
}

// poke makes playControllers look at the workloads now.
func (cl *cluster) poke() {
	select {
	case cl.wake <- struct{}{}:
	default:
	}
}

// watchWorkloads pokes playControllers on every change of a DaemonSet or Deployment, as the
// controllers' informers would wake them.
func (cl *cluster) watchWorkloads(ctx context.Context) {
	cs, err := kubernetes.NewForConfig(cl.cp.Config)
	if err != nil {
		cl.t.Errorf("workload controllers' stand-in: %v", err)
		return
	}
	follow := func(w watch.Interface, err error) {
		if err != nil {
			return
		}
		defer w.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case _, ok := <-w.ResultChan():
				if !ok {
					return
				}
				cl.poke()
			}
		}
	}
	var wg sync.WaitGroup
	for ctx.Err() == nil {
		wg.Go(func() { follow(cs.AppsV1().DaemonSets("").Watch(ctx, metav1.ListOptions{})) })
		wg.Go(func() { follow(cs.AppsV1().Deployments("").Watch(ctx, metav1.ListOptions{})) })
		wg.Wait() // a watch ended (the API server closes them now and then): watch again
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (cl *cluster) hold(h bool) {
	cl.mu.Lock()
	cl.held = h
	cl.mu.Unlock()
	cl.poke()
}

func (cl *cluster) isHeld() bool {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.held
}

// playControllers reports every DaemonSet and Deployment (kube-system's, calico-system's, the
// tigera operator's) as rolled out on 3 nodes / its replicas, as the controllers would, unless held.
// It looks when watchWorkloads or hold pokes it, and every 100 ms besides (a write that lost a
// conflict is tried again).
func (cl *cluster) playControllers(ctx context.Context) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-cl.wake:
		}
		if cl.isHeld() {
			continue
		}
		testenv.ReportRolledOut(ctx, cl.c, 3)
	}
}

// apply runs calico-pilot apply with the cluster's kubeconfig and a cluster file.
func (cl *cluster) apply(ctx context.Context, file string, args ...string) (int, string, string) {
	p := filepath.Join(cl.t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(p, []byte(file), 0o600); err != nil {
		cl.t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	// The stand-in's rollouts finish at once: waits look every 100 ms instead of every second.
	all := append([]string{"apply", "--kubeconfig", cl.kubeconfig, "-f", p, "--timeout", "30s", "--poll-interval", "100ms"}, args...)
	start := time.Now()
	code := cmd.Execute(ctx, all, strings.NewReader(""), &out, &errOut)
	cl.t.Logf("apply %s: exit %d in %s", strings.Join(args, " "), code, time.Since(start).Round(time.Millisecond))
	return code, out.String(), errOut.String()
}

func (cl *cluster) create(objs ...client.Object) {
	cl.t.Helper()
	for _, o := range objs {
		if err := cl.c.Create(context.Background(), o); err != nil {
			cl.t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
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

func (cl *cluster) pool(name string) *calicov1.IPPool {
	cl.t.Helper()
	p := &calicov1.IPPool{}
	if err := cl.c.Get(context.Background(), client.ObjectKey{Name: name}, p); err != nil {
		cl.t.Fatalf("IP pool %s: %v", name, err)
	}
	return p
}

// resourceVersions are the resourceVersions of refs by ref (the state ConfigMap's too).
func (cl *cluster) resourceVersions(refs []standalone.ObjectRef) map[string]string {
	cl.t.Helper()
	refs = append(slices.Clone(refs), standalone.ObjectRef{APIVersion: "v1", Kind: "ConfigMap", Namespace: standalone.Namespace, Name: standalone.StateConfigMap})
	out := map[string]string{}
	for _, r := range refs {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion(r.APIVersion)
		u.SetKind(r.Kind)
		if err := cl.c.Get(context.Background(), client.ObjectKey{Namespace: r.Namespace, Name: r.Name}, u); err != nil {
			cl.t.Fatalf("%s: %v", r, err)
		}
		out[r.String()] = u.GetResourceVersion()
	}
	return out
}

// images are the images of a kube-system workload's containers by name.
func (cl *cluster) image(kind, name, container string) string {
	cl.t.Helper()
	var spec corev1.PodSpec
	key := client.ObjectKey{Namespace: "kube-system", Name: name}
	if kind == "DaemonSet" {
		var ds appsv1.DaemonSet
		if err := cl.c.Get(context.Background(), key, &ds); err != nil {
			cl.t.Fatal(err)
		}
		spec = ds.Spec.Template.Spec
	} else {
		var d appsv1.Deployment
		if err := cl.c.Get(context.Background(), key, &d); err != nil {
			cl.t.Fatal(err)
		}
		spec = d.Spec.Template.Spec
	}
	for _, c := range spec.Containers {
		if c.Name == container {
			return c.Image
		}
	}
	cl.t.Fatalf("%s %s has no container %s", kind, name, container)
	return ""
}

// kubeadm creates what a kubeadm cluster has: kubeadm-config, the kube-proxy ConfigMap and Nodes
// with pod CIDRs from the pod network.
func (cl *cluster) kubeadm() {
	cl.create(
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kubeadm-config"}, Data: map[string]string{
			"ClusterConfiguration": "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nnetworking:\n  dnsDomain: cluster.local\n  podSubnet: 10.244.0.0/16\n  serviceSubnet: 10.96.0.0/12\n",
		}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "kube-proxy"}, Data: map[string]string{
			"config.conf": "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n",
		}},
	)
	for i, n := range []string{"cp-1", "worker-1", "worker-2"} {
		cidr := "10.244." + string(rune('0'+i)) + ".0/24"
		cl.create(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}, Spec: corev1.NodeSpec{PodCIDR: cidr, PodCIDRs: []string{cidr}}})
	}
}

// minimalFile is a cluster file with a NetworkConfig and one fact: the rest is read from the
// cluster. The Kubernetes version is stated because envtest's kube-apiserver is a development build
// that reports 0.0.0.
const minimalFile = `apiVersion: standalone.calico-pilot.dev/v1alpha1
kind: Cluster
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

func metaName(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name} }

// edit changes obj as a person would with kubectl edit (an update under manager), reading it again
// and retrying when the workload controllers' stand-in wrote its status in between.
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
