package apply

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// upstreamInstall creates what `kubectl apply -f calico.yaml` (v3.31.6) leaves in a kubeadm
// cluster, built from its facts: Calico's CRDs, calico-node's ServiceAccount, ClusterRole and
// DaemonSet in kube-system, and the default pool calico-node created from CALICO_IPV4POOL_CIDR,
// which its owner has since disabled.
func (cl *cluster) upstreamInstall() {
	cl.t.Helper()
	ctx := context.Background()
	rel, _ := calicoversion.Default().Release("v3.31.6")
	if err := cl.cp.InstallCalicoCRDs(ctx, rel); err != nil {
		cl.t.Fatal(err)
	}
	labels := map[string]string{"k8s-app": "calico-node"}
	objs := []client.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "calico-node"}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "calico-node"}, Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get"}}}},
		&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "calico-node", Labels: labels}, Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
				ServiceAccountName: "calico-node", HostNetwork: true,
				Containers: []corev1.Container{{Name: "calico-node", Image: "docker.io/calico/node:v3.31.6",
					Env: []corev1.EnvVar{{Name: "CALICO_IPV4POOL_CIDR", Value: "10.244.0.0/16"}, {Name: "CALICO_IPV4POOL_IPIP", Value: "Always"}}}},
			}},
		}},
		&calicov1.IPPool{ObjectMeta: metav1.ObjectMeta{Name: "default-ipv4-ippool"}, Spec: calicov1.IPPoolSpec{
			CIDR: "10.244.0.0/16", BlockSize: 26, IPIPMode: calicov1.IPIPModeAlways, VXLANMode: calicov1.VXLANModeNever, NATOutgoing: true, NodeSelector: "all()", Disabled: true}},
	}
	for _, o := range objs {
		if err := cl.c.Create(ctx, o, client.FieldOwner("kubectl-client-side-apply")); err != nil {
			cl.t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
	}
}

// TestApplyAdoptsUpstreamInstallOnlyWhenAsked: objects of the same names that calico-pilot did not
// apply are not touched without --adopt; --dry-run shows what changes and what restarts; --adopt
// takes them over at the release they run (v3.31.6: no move was asked) and keeps the owner's
// disabled default pool.
func TestApplyAdoptsUpstreamInstallOnlyWhenAsked(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	cl.upstreamInstall()
	ctx := context.Background()

	code, out, errOut := cl.apply(ctx, minimalFile)
	if code != 1 || !strings.Contains(errOut, "calico-pilot did not apply (DaemonSet kube-system/calico-node") ||
		!strings.Contains(errOut, "--adopt") {
		t.Fatalf("apply without --adopt: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if tag(cl.image("DaemonSet", "calico-node", "calico-node")) != "v3.31.6" || managed(t, cl) {
		t.Fatal("apply without --adopt changed calico-node")
	}

	code, out, errOut = cl.apply(ctx, minimalFile, "--dry-run")
	if code != 0 || !strings.Contains(out, "~ DaemonSet kube-system/calico-node") || !strings.Contains(out, "restarts: DaemonSet kube-system/calico-node") ||
		!strings.Contains(out, "object(s) exist that calico-pilot did not apply (DaemonSet kube-system/calico-node") {
		t.Fatalf("dry-run: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	code, out, errOut = cl.apply(ctx, minimalFile, "--adopt")
	if code != 0 || !strings.Contains(out, "applied: Calico v3.31.6 runs on every component") {
		t.Fatalf("apply --adopt: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if got := cl.image("DaemonSet", "calico-node", "calico-node"); !strings.HasSuffix(got, "/node:v3.31.6") || !managed(t, cl) {
		t.Errorf("after --adopt calico-node runs %s, managed by calico-pilot: %v", got, managed(t, cl))
	}
	if !cl.pool("default-ipv4-ippool").Spec.Disabled {
		t.Error("adoption re-enabled the owner's disabled pool")
	}
	if st := cl.state(); !st.Adopted || len(st.Pools) != 1 || !st.Pools[0].Adopted {
		t.Errorf("state after adoption: adopted %v, pools %+v", st.Adopted, st.Pools)
	}
}

func managed(t *testing.T, cl *cluster) bool {
	t.Helper()
	var ds appsv1.DaemonSet
	if err := cl.c.Get(context.Background(), client.ObjectKey{Namespace: "kube-system", Name: "calico-node"}, &ds); err != nil {
		t.Fatal(err)
	}
	for _, m := range ds.ManagedFields {
		if m.Manager == "calico-pilot" {
			return true
		}
	}
	return false
}

// TestApplyRefusesTigeraOperator: a cluster with the operator's calico-system namespace and
// Deployment is refused, saying why and what to do, and nothing is written.
func TestApplyRefusesTigeraOperator(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	ctx := context.Background()
	cl.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "calico-system"}}, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "tigera-operator"}})
	labels := map[string]string{"name": "tigera-operator"}
	cl.create(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "tigera-operator", Name: "tigera-operator"}, Spec: appsv1.DeploymentSpec{
		Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "tigera-operator", Image: "quay.io/tigera/operator:v1.38.0"}}}},
	}})
	code, out, errOut := cl.apply(ctx, minimalFile)
	want := "error: this cluster's Calico is run by the tigera operator (namespace calico-system; Deployment tigera-operator/tigera-operator): the operator reconciles its Installation and would revert every change calico-pilot makes"
	if code != 1 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "docs/standalone.md") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	var cm corev1.ConfigMap
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "calico-pilot-state"}, &cm); err == nil {
		t.Error("a refused apply wrote its state")
	}
}
