package apply

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/testcheck"
)

// manifestInstall applies testdata/calico-manifest.yaml for release server-side, as `kubectl apply
// --server-side` does (field manager kubectl), on CRDs of crdRelease.
func (cl *cluster) manifestInstall(release, crdRelease string) {
	cl.t.Helper()
	ctx := context.Background()
	rel, ok := calicoversion.Default().Release(crdRelease)
	if !ok {
		cl.t.Fatalf("no release %s", crdRelease)
	}
	if err := cl.cp.InstallCalicoCRDs(ctx, rel); err != nil {
		cl.t.Fatal(err)
	}
	data, err := os.ReadFile("testdata/calico-manifest.yaml")
	if err != nil {
		cl.t.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(strings.ReplaceAll(string(data), "RELEASE", release)), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			break
		}
		if len(u.Object) == 0 {
			continue
		}
		if err := cl.c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("kubectl"), client.ForceOwnership); err != nil {
			cl.t.Fatalf("applying %s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
}

// ownerPools are the pools as Calico's "migrate IP pools" leaves them midway: the default pool
// calico-node created, disabled by its owner, with an address still in use, and the owner's new
// pool, VXLAN, another block size, handing out addresses.
func (cl *cluster) ownerPools() []client.Object {
	cl.t.Helper()
	two, one := 0, 1
	objs := []client.Object{
		&calicov1.IPPool{ObjectMeta: metav1.ObjectMeta{Name: "default-ipv4-ippool"}, Spec: calicov1.IPPoolSpec{
			CIDR: "10.244.0.0/16", BlockSize: 26, IPIPMode: calicov1.IPIPModeNever, VXLANMode: calicov1.VXLANModeAlways, NATOutgoing: true, NodeSelector: "all()", Disabled: true}},
		&calicov1.IPPool{ObjectMeta: metav1.ObjectMeta{Name: "new-pool"}, Spec: calicov1.IPPoolSpec{
			CIDR: "10.248.0.0/16", BlockSize: 27, IPIPMode: calicov1.IPIPModeNever, VXLANMode: calicov1.VXLANModeAlways, NATOutgoing: true, NodeSelector: "all()"}},
		&calicov1.IPAMBlock{ObjectMeta: metav1.ObjectMeta{Name: "10-244-1-0-26"}, Spec: calicov1.IPAMBlockSpec{
			CIDR: "10.244.1.0/26", Affinity: ptr.To("host:worker-1"), Allocations: append([]*int{&two}, make([]*int, 63)...), Unallocated: []int{1, 2, 3},
			Attributes: []calicov1.AllocationAttribute{{}, {}, {}}}},
		&calicov1.IPAMBlock{ObjectMeta: metav1.ObjectMeta{Name: "10-248-0-0-27"}, Spec: calicov1.IPAMBlockSpec{
			CIDR: "10.248.0.0/27", Affinity: ptr.To("host:worker-2"), Allocations: append([]*int{&one, &two}, make([]*int, 30)...), Unallocated: []int{2, 3},
			Attributes: []calicov1.AllocationAttribute{{}, {}, {}}}},
	}
	cl.create(objs...)
	return objs
}

// exampleFile is examples/cluster.yaml with the Kubernetes version envtest's API server does not tell.
func exampleFile(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../../examples/cluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "\ncluster:") {
		t.Fatal("examples/cluster.yaml states cluster facts; this test adds the Kubernetes version itself")
	}
	return string(data) + "cluster:\n  kubernetesVersion: 1.34.3\n"
}

func resourceVersionsOf(t *testing.T, cl *cluster, objs []client.Object) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, o := range objs {
		cp := o.DeepCopyObject().(client.Object)
		if err := cl.c.Get(context.Background(), client.ObjectKeyFromObject(o), cp); err != nil {
			t.Fatal(err)
		}
		out[o.GetName()] = cp.GetResourceVersion()
	}
	return out
}

func generations(t *testing.T, cl *cluster) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	var ds appsv1.DaemonSet
	var kc appsv1.Deployment
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "calico-node"}, &ds); err != nil {
		t.Fatal(err)
	}
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "calico-kube-controllers"}, &kc); err != nil {
		t.Fatal(err)
	}
	return map[string]int64{"calico-node": ds.Generation, "calico-kube-controllers": kc.Generation}
}

// TestAdoptManifestInstallKeepsWhatRuns: upstream's v3.31.6 manifest (calico-ipam, Typha off) with
// the owner's pools midway through Calico's pool migration and IPAM blocks in use, adopted with
// examples/cluster.yaml, which says nothing of IPAM, Typha or the pools' encapsulation: what runs is
// kept (calico-ipam, no Typha, VXLAN), the dry run says so and lists the pools' findings, the pools
// and IPAM blocks are not written by the adoption or by a re-apply, and a re-apply changes no
// workload.
func TestAdoptManifestInstallKeepsWhatRuns(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	cl.manifestInstall("v3.31.6", "v3.31.6")
	owned := cl.ownerPools()
	ctx := context.Background()
	file := exampleFile(t)
	before := resourceVersionsOf(t, cl, owned)

	code, out, errOut := cl.apply(ctx, file, "--dry-run", "--adopt")
	testcheck.Contains(t, "dry-run --adopt", out,
		"running: Calico v3.31.6 (calico-node docker.io/calico/node:v3.31.6, calico-kube-controllers docker.io/calico/kube-controllers:v3.31.6)",
		"networkConfig.ipam: calico-ipam (kept: kube-system/calico-config cni_network_config)",
		"networkConfig.ipv4: pool vxlan, mode Always (kept: IP pool default-ipv4-ippool)",
		"networkConfig.typha.enabled: false (kept: calico-node sets no FELIX_TYPHAK8SSERVICENAME)",
		"IP pool default-ipv4-ippool: IP pool default-ipv4-ippool (10.244.0.0/16) is disabled by the cluster's owner",
		"this apply with --adopt takes them over",
		"restarts: DaemonSet kube-system/calico-node",
	)
	for _, bad := range []string{"host-local", "USE_POD_CIDR", "apply takes them over only with --adopt", "IPPool default-ipv4-ippool\n  ~", "the file differs from what runs"} {
		if strings.Contains(out, bad) {
			t.Errorf("dry-run --adopt says %q", bad)
		}
	}
	if t.Failed() || code != 0 {
		t.Fatalf("dry-run --adopt: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	code, out, errOut = cl.apply(ctx, file, "--adopt")
	if code != 0 || !strings.Contains(out, "applied: Calico v3.31.6 runs on every component") || strings.Contains(out, "patched IP pool") {
		t.Fatalf("apply --adopt: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	var cm corev1.ConfigMap
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "calico-config"}, &cm); err != nil {
		t.Fatal(err)
	}
	if conf := cm.Data["cni_network_config"]; !strings.Contains(conf, `"type": "calico-ipam"`) || strings.Contains(conf, "host-local") {
		t.Errorf("the adoption changed the CNI IPAM:\n%s", conf)
	}
	if cm.Data["typha_service_name"] != "none" {
		t.Errorf("the adoption switched Typha on: typha_service_name %q", cm.Data["typha_service_name"])
	}
	for _, e := range nodeEnv(t, cl) {
		if e.Name == "USE_POD_CIDR" && e.Value == "true" {
			t.Error("the adoption set USE_POD_CIDR=true")
		}
	}
	var typha appsv1.Deployment
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "calico-typha-deploy"}, &typha); err == nil {
		t.Error("the adoption deployed Typha")
	}
	if d := cmp.Diff(before, resourceVersionsOf(t, cl, owned)); d != "" {
		t.Errorf("the adoption wrote pools or IPAM blocks (-before +after):\n%s", d)
	}

	gens := generations(t, cl)
	code, out, errOut = cl.apply(ctx, file)
	if code != 0 || strings.Contains(out, "patched IP pool") || strings.Contains(out, "create a new pool") {
		t.Fatalf("re-apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if d := cmp.Diff(before, resourceVersionsOf(t, cl, owned)); d != "" {
		t.Errorf("the re-apply wrote pools or IPAM blocks (-before +after):\n%s", d)
	}
	if d := cmp.Diff(gens, generations(t, cl)); d != "" {
		t.Errorf("the re-apply changed workloads (-before +after generation):\n%s", d)
	}
	if code, out, errOut = cl.apply(ctx, file, "--dry-run"); code != 0 || !strings.Contains(out, "no changes") {
		t.Fatalf("dry-run after the adoption: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestAdoptRefusesContradictedIPAM: a file that asks for host-local on a calico-ipam install whose
// blocks hand out addresses is refused with a blocker naming both; nothing is written.
func TestAdoptRefusesContradictedIPAM(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	cl.manifestInstall("v3.31.6", "v3.31.6")
	cl.ownerPools()
	ctx := context.Background()
	file := strings.Replace(exampleFile(t), "  overlay:\n", "  ipam:\n    type: host-local\n    cidr: usePodCidr\n  overlay:\n", 1)

	code, out, errOut := cl.apply(ctx, file, "--adopt")
	want := "blocker: networkConfig.ipam.type: the file says host-local, the cluster runs calico-ipam (kube-system/calico-config cni_network_config): " +
		"new pods would get addresses from the other IPAM, which does not know the addresses the running one handed out (duplicate pod IPs); calico-ipam's IPAM blocks hold 3 address(es)"
	if code != 1 || !strings.Contains(out, want) || !strings.Contains(errOut, `--accept-blocker "networkConfig.ipam.type"`) {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if managed(t, cl) {
		t.Error("a refused adoption applied calico-node")
	}
}

// TestAdoptRefusesUncarriedRelease: upstream's v3.28.2 manifest is refused naming the release, the
// lines it would skip and what to do; nothing is written, with or without --dry-run.
func TestAdoptRefusesUncarriedRelease(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	// v3.28's CRDs are not carried; the refusal comes before the CRDs are looked at.
	cl.manifestInstall("v3.28.2", "v3.31.6")
	ctx := context.Background()
	want := "error: Calico v3.28.2 runs (calico-node docker.io/calico/node:v3.28.2, calico-kube-controllers docker.io/calico/kube-controllers:v3.28.2), " +
		"a release calico-pilot does not carry (it carries v3.31 (v3.31.6, v3.31.7) and v3.32 (v3.32.1)). Taking it over would move every component from v3.28 to v3.31 in one step, " +
		"skipping v3.29 and v3.30, which Calico does not support. Move it one line at a time with the tooling that installed it (upstream's manifests) to a v3.31 release first, then adopt; nothing was changed"
	for _, args := range [][]string{{"--adopt", "--dry-run"}, {"--adopt"}} {
		code, out, errOut := cl.apply(ctx, exampleFile(t), args...)
		if code != 1 || strings.TrimSpace(errOut) != want {
			t.Fatalf("apply %v: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, out, errOut)
		}
	}
	if tag(cl.image("DaemonSet", "calico-node", "calico-node")) != "v3.28.2" || managed(t, cl) {
		t.Error("the refused adoption changed calico-node")
	}
	var cm corev1.ConfigMap
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "calico-pilot-state"}, &cm); err == nil {
		t.Error("the refused adoption wrote its state")
	}
}

func nodeEnv(t *testing.T, cl *cluster) []corev1.EnvVar {
	t.Helper()
	var ds appsv1.DaemonSet
	if err := cl.c.Get(context.Background(), client.ObjectKey{Namespace: "kube-system", Name: "calico-node"}, &ds); err != nil {
		t.Fatal(err)
	}
	for _, c := range ds.Spec.Template.Spec.Containers {
		if c.Name == "calico-node" {
			return c.Env
		}
	}
	t.Fatal("calico-node has no calico-node container")
	return nil
}

// TestAdoptManifestTyphaInPlace: upstream's calico-typha.yaml runs Typha as Deployment
// kube-system/calico-typha (calico-pilot names its own calico-typha-deploy): the adoption takes that
// Deployment over in place (same UID, no second Typha), Typha kept on.
func TestAdoptManifestTyphaInPlace(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	cl.manifestInstall("v3.31.6", "v3.31.6")
	ctx := context.Background()
	// What calico-typha.yaml adds: Typha's Service and Deployment, calico-node told to use it.
	labels := map[string]string{"k8s-app": "calico-typha"}
	typha := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "calico-typha", Labels: labels}, Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](1),
		Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
			ServiceAccountName: "calico-node", HostNetwork: true,
			Containers: []corev1.Container{{Name: "calico-typha", Image: "docker.io/calico/typha:v3.31.6",
				Ports: []corev1.ContainerPort{{Name: "calico-typha", ContainerPort: 5473, Protocol: corev1.ProtocolTCP}}}},
		}},
	}}
	cl.create(typha, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "calico-typha", Labels: labels}, Spec: corev1.ServiceSpec{
		Selector: labels, Ports: []corev1.ServicePort{{Name: "calico-typha", Port: 5473, Protocol: corev1.ProtocolTCP}},
	}})
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "calico-config"}}
	cl.edit(cm, "kubectl", func() { cm.Data["typha_service_name"] = "calico-typha" })
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "calico-node"}}
	cl.edit(ds, "kubectl", func() {
		ds.Spec.Template.Spec.Containers[0].Env = append(ds.Spec.Template.Spec.Containers[0].Env, corev1.EnvVar{Name: "FELIX_TYPHAK8SSERVICENAME",
			ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "calico-config"}, Key: "typha_service_name"}}})
	})
	cl.ownerPools()
	uid := typha.UID

	code, out, errOut := cl.apply(ctx, exampleFile(t), "--adopt")
	if !testcheck.Contains(t, "apply --adopt", out,
		"running: Calico v3.31.6 (calico-node docker.io/calico/node:v3.31.6, calico-typha docker.io/calico/typha:v3.31.6, calico-kube-controllers docker.io/calico/kube-controllers:v3.31.6)",
		"networkConfig.typha.enabled: true (kept: kube-system/calico-config typha_service_name)",
		"rolled out: calico-typha",
	) || code != 0 {
		t.Fatalf("apply --adopt: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	var after appsv1.Deployment
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "calico-typha"}, &after); err != nil || after.UID != uid {
		t.Fatalf("Typha's Deployment after the adoption: %v (uid %s, was %s)", err, after.UID, uid)
	}
	if got := tag(cl.image("Deployment", "calico-typha", "calico-typha")); got != "v3.31.6" || !strings.HasPrefix(cl.image("Deployment", "calico-typha", "calico-typha"), "quay.io/") {
		t.Errorf("Typha runs %s after the adoption", cl.image("Deployment", "calico-typha", "calico-typha"))
	}
	var second appsv1.Deployment
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "calico-typha-deploy"}, &second); err == nil {
		t.Error("the adoption deployed a second Typha (calico-typha-deploy)")
	}
}
