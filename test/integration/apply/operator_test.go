package apply

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/testcheck"
)

func operatorReplicas(t *testing.T, cl *cluster) int32 {
	t.Helper()
	var d appsv1.Deployment
	if err := cl.c.Get(context.Background(), client.ObjectKey{Namespace: "tigera-operator", Name: "tigera-operator"}, &d); err != nil {
		t.Fatal(err)
	}
	return *d.Spec.Replicas
}

func systemImage(t *testing.T, cl *cluster, kind, name, container string) string {
	t.Helper()
	ctx := context.Background()
	key := client.ObjectKey{Namespace: "calico-system", Name: name}
	var containers []struct{ name, image string }
	if kind == "DaemonSet" {
		var ds appsv1.DaemonSet
		if err := cl.c.Get(ctx, key, &ds); err != nil {
			t.Fatal(err)
		}
		for _, c := range ds.Spec.Template.Spec.Containers {
			containers = append(containers, struct{ name, image string }{c.Name, c.Image})
		}
	} else {
		var d appsv1.Deployment
		if err := cl.c.Get(ctx, key, &d); err != nil {
			t.Fatal(err)
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			containers = append(containers, struct{ name, image string }{c.Name, c.Image})
		}
	}
	for _, c := range containers {
		if c.name == container {
			return c.image
		}
	}
	t.Fatalf("%s calico-system/%s has no container %s", kind, name, container)
	return ""
}

// TestTakeOverOperatorInstall: a cluster the tigera operator runs as measured (seed 003's kind) is
// refused without --adopt; the dry run says what the takeover does; apply --adopt stops the operator,
// leaves no ownerReference to the Installation, updates every workload in place (UIDs kept), keeps
// Felix's and Typha's mTLS consistent with Secrets that exist, keeps calico-ipam, Typha and the
// operator's pool; then the cluster moves up a line and back in the operator's layout.
func TestTakeOverOperatorInstall(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	op := cl.operatorInstall(operatorOptions{})
	ctx := context.Background()
	file := exampleFile(t)
	pool := []client.Object{&calicov1.IPPool{ObjectMeta: metaName("default-ipv4-ippool")}}
	poolRV := resourceVersionsOf(t, cl, pool)

	code, out, errOut := cl.apply(ctx, file)
	if code != 1 || !strings.Contains(errOut, "this cluster's Calico is run by the tigera operator") || !strings.Contains(errOut, "--adopt") {
		t.Fatalf("apply without --adopt: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	code, out, errOut = cl.apply(ctx, file, "--dry-run", "--adopt")
	if !testcheck.Contains(t, "dry-run --adopt", out,
		"takeover of the tigera operator's install (",
		"1. the operator is stopped first: Deployment tigera-operator/tigera-operator scaled from 1 to 0",
		"3. the workloads are updated in place, one rolling update each, never deleted: DaemonSet calico-system/calico-node, Deployment calico-system/calico-typha, Deployment calico-system/calico-kube-controllers",
		"Typha TLS: the operator's CA tigera-operator-signer (valid until ",
		"calico-pilot keeps a copy in calico-system/calico-pilot-typha-ca (from tigera-operator/tigera-ca-private) and renews them with it",
		"calico-system/node-certs: CN typha-client",
		"calico-system/typha-certs: CN typha-server",
		"calico-apiserver (Deployment calico-system/calico-apiserver, APIService v3.projectcalico.org): taken over in place with the rest",
		"csi-node-driver (DaemonSet calico-system/csi-node-driver, CSIDriver csi.tigera.io): taken over in place with the rest",
		"components.apiServer.enabled: true (kept: it runs (the tigera operator's))",
		"networkConfig.ipam: calico-ipam (kept: calico-system/cni-config config)",
		"networkConfig.typha.enabled: true (kept:",
		"running: Calico v3.31.7",
		"~ DaemonSet calico-system/calico-node",
		"this apply with --adopt takes them over",
	) || code != 0 {
		t.Fatalf("dry-run --adopt: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if operatorReplicas(t, cl) != 1 || len(op.ownerRefsToInstallation(t, cl)) == 0 {
		t.Fatal("the dry run changed the cluster")
	}

	code, out, errOut = cl.apply(ctx, file, "--adopt")
	if code != 0 || !strings.Contains(out, "applied: Calico v3.31.7 runs on every component") ||
		!strings.Contains(out, "stopped the tigera operator: Deployment tigera-operator/tigera-operator scaled to 0") {
		t.Fatalf("apply --adopt: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if err := op.uidsKept(t, cl); err != nil {
		t.Errorf("the takeover re-created a workload: %v", err)
	}
	if refs := op.ownerRefsToInstallation(t, cl); len(refs) > 0 {
		t.Errorf("objects still owned by the Installation: %v", refs)
	}
	if r := operatorReplicas(t, cl); r != 0 {
		t.Errorf("the operator runs %d replica(s) after the takeover", r)
	}
	if err := op.typhaTLSConsistent(t, cl); err != nil {
		t.Errorf("Typha's TLS after the takeover: %v", err)
	}
	if st := cl.state(); st.Operator == nil || st.Operator.Replicas != 1 || !st.Adopted {
		t.Errorf("state after the takeover: %+v", st)
	}
	if d := cmp.Diff(poolRV, resourceVersionsOf(t, cl, pool)); d != "" {
		t.Errorf("the takeover wrote the operator's pool (-before +after):\n%s", d)
	}
	var typha appsv1.Deployment
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "calico-typha-deploy"}, &typha); !apierrors.IsNotFound(err) {
		t.Errorf("the takeover deployed Typha in kube-system: %v", err)
	}

	// A re-apply (no --adopt) changes no workload.
	gens := map[string]int64{}
	for _, name := range []string{"calico-typha", "calico-kube-controllers"} {
		var d appsv1.Deployment
		if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "calico-system", Name: name}, &d); err != nil {
			t.Fatal(err)
		}
		gens[name] = d.Generation
	}
	if code, out, errOut = cl.apply(ctx, file); code != 0 {
		t.Fatalf("re-apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for name, g := range gens {
		var d appsv1.Deployment
		if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "calico-system", Name: name}, &d); err != nil {
			t.Fatal(err)
		}
		if d.Generation != g {
			t.Errorf("the re-apply changed %s (generation %d -> %d)", name, g, d.Generation)
		}
	}

	// The operator's own CA Secret goes (its namespace may be deleted after the takeover): apply
	// renews with its copy, so the moves below still run.
	if err := cl.c.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "tigera-operator", Name: "tigera-ca-private"}}); err != nil {
		t.Fatal(err)
	}

	// Up a line and back, in the operator's layout; the CRDs stay at the newer line.
	for _, v := range []string{"v3.32", "v3.31.7"} {
		if code, out, errOut = cl.apply(ctx, file, "--calico-version", v); code != 0 {
			t.Fatalf("apply --calico-version %s: exit %d\nstdout:\n%s\nstderr:\n%s", v, code, out, errOut)
		}
		want := "v3.32.1"
		if v == "v3.31.7" {
			want = "v3.31.7"
		}
		if got := tag(systemImage(t, cl, "DaemonSet", "calico-node", "calico-node")); got != want {
			t.Errorf("after --calico-version %s calico-node runs %s", v, got)
		}
		if got := tag(systemImage(t, cl, "Deployment", "calico-typha", "calico-typha")); got != want {
			t.Errorf("after --calico-version %s Typha runs %s", v, got)
		}
	}
	if st := cl.state(); st.Release != "v3.31.7" || st.CRDRelease != "v3.32.1" {
		t.Errorf("state after the way back: release %s, CRDs %s", st.Release, st.CRDRelease)
	}
	if err := op.uidsKept(t, cl); err != nil {
		t.Errorf("the moves re-created a workload: %v", err)
	}
	if err := op.typhaTLSConsistent(t, cl); err != nil {
		t.Errorf("Typha's TLS after the moves: %v", err)
	}
}

// TestTakeOverOperatorKeepsADeletedPoolDeleted: the pool the Installation lists, deleted by its
// owner, is not created by the takeover (as the operator would within a second), nor later.
func TestTakeOverOperatorKeepsADeletedPoolDeleted(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	cl.operatorInstall(operatorOptions{PoolDeleted: true})
	ctx := context.Background()
	file := exampleFile(t)
	code, out, errOut := cl.apply(ctx, file, "--adopt")
	if code != 0 || !strings.Contains(out, "IP pool default-ipv4-ippool (10.244.0.0/16), listed by the Installation and deleted by its owner: stays deleted") {
		t.Fatalf("apply --adopt: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for i := 0; i < 2; i++ {
		var p calicov1.IPPool
		if err := cl.c.Get(ctx, client.ObjectKey{Name: "default-ipv4-ippool"}, &p); !apierrors.IsNotFound(err) {
			t.Fatalf("the deleted pool exists after apply %d: %v", i+1, err)
		}
		if code, out, errOut = cl.apply(ctx, file); code != 0 {
			t.Fatalf("re-apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
	}
}

// TestTakeOverOperatorRefusesEnterprise: Calico Enterprise's Installation is refused with why;
// nothing is written.
func TestTakeOverOperatorRefusesEnterprise(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	op := cl.operatorInstall(operatorOptions{Variant: "TigeraSecureEnterprise"})
	ctx := context.Background()
	code, out, errOut := cl.apply(ctx, exampleFile(t), "--adopt")
	want := "the Installation's variant is TigeraSecureEnterprise: calico-pilot deploys Calico's open-source components only"
	if code != 1 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "nothing was changed") {
		t.Fatalf("exit %d, want %q\nstdout:\n%s\nstderr:\n%s", code, want, out, errOut)
	}
	if operatorReplicas(t, cl) != 1 || len(op.ownerRefsToInstallation(t, cl)) == 0 {
		t.Error("the refused takeover changed the cluster")
	}
	var cm corev1.ConfigMap
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "calico-pilot-state"}, &cm); !apierrors.IsNotFound(err) {
		t.Errorf("the refused takeover wrote its state: %v", err)
	}
}

// TestTakeOverOperatorContinuesAfterAFailedStep: the operator's pods do not stop in --timeout (its
// Deployment's controller holds): apply stops after scaling it, with the operator recorded in its
// state and nothing else changed; the next apply, without --adopt, continues the takeover from there.
func TestTakeOverOperatorContinuesAfterAFailedStep(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	op := cl.operatorInstall(operatorOptions{})
	ctx := context.Background()
	file := exampleFile(t)

	cl.hold(true)
	code, out, errOut := cl.apply(ctx, file, "--adopt", "--timeout", "3s")
	if code != 1 || !strings.Contains(errOut, "the tigera operator's pods did not stop in 3s (Deployment tigera-operator/tigera-operator: 1 replica(s) left, scaled to 0 and recorded in the state)") ||
		!strings.Contains(errOut, "run apply again to continue") {
		t.Fatalf("apply --adopt with the operator's pods held: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if st := cl.state(); st.Operator == nil || st.Operator.Replicas != 1 || !st.Adopted {
		t.Fatalf("state after the failed step: %+v", st)
	}
	if operatorReplicas(t, cl) != 0 || len(op.ownerRefsToInstallation(t, cl)) == 0 {
		t.Fatal("the failed step went past stopping the operator")
	}

	cl.hold(false)
	if code, out, errOut = cl.apply(ctx, file); code != 0 || !strings.Contains(out, "the operator: stopped by calico-pilot (Deployment tigera-operator/tigera-operator at 0, was 1)") {
		t.Fatalf("the next apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if refs := op.ownerRefsToInstallation(t, cl); len(refs) > 0 {
		t.Errorf("objects still owned by the Installation: %v", refs)
	}
	if err := op.uidsKept(t, cl); err != nil {
		t.Error(err)
	}
	if err := op.typhaTLSConsistent(t, cl); err != nil {
		t.Error(err)
	}
}
