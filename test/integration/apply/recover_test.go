package apply

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/standalone"
	"github.com/calico-pilot/calico-pilot/internal/testcheck"
)

// operatorWorkload reads one of the taken-over workloads.
func operatorWorkload(t *testing.T, cl *cluster, key string) *unstructured.Unstructured {
	t.Helper()
	kind, name, _ := strings.Cut(key, " calico-system/")
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("apps/v1")
	u.SetKind(kind)
	if err := cl.c.Get(context.Background(), client.ObjectKey{Namespace: "calico-system", Name: name}, u); err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return u
}

// hasOperatorHash is true when a workload's pod template carries the operator's hash annotations.
func hasOperatorHash(u *unstructured.Unstructured) bool {
	ann, _, _ := unstructured.NestedStringMap(u.Object, "spec", "template", "metadata", "annotations")
	for k := range ann {
		if strings.Contains(k, "hash.operator.tigera.io/") {
			return true
		}
	}
	return false
}

// scaleOperator sets the tigera-operator Deployment's replicas as `kubectl scale` would.
func scaleOperator(t *testing.T, cl *cluster, replicas int32) {
	t.Helper()
	d := &appsv1.Deployment{}
	d.Namespace, d.Name = "tigera-operator", "tigera-operator"
	cl.edit(d, "kubectl-scale", func() { d.Spec.Replicas = &replicas })
}

// TestTakeOverOperatorThatRanAgain: after a takeover someone scales the operator up; it puts its
// ownerReferences back and reverts the pod templates (played here by writing back the workloads as
// it had them, with an update under its own manager). apply refuses while it runs; once it is at 0
// again, a dry run and an apply take the install over again, as the first time: in place (UIDs kept),
// no ownerReference to the Installation left, calico-pilot's pod templates, Felix and Typha's TLS
// consistent.
func TestTakeOverOperatorThatRanAgain(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	op := cl.operatorInstall(operatorOptions{})
	ctx := context.Background()
	file := exampleFile(t)
	operators := map[string]*unstructured.Unstructured{}
	for _, key := range takenOverWorkloads {
		operators[key] = operatorWorkload(t, cl, key)
		if !hasOperatorHash(operators[key]) {
			t.Fatalf("the fixture's %s has no operator hash annotation", key)
		}
	}
	if code, out, errOut := cl.apply(ctx, file, "--adopt"); code != 0 {
		t.Fatalf("apply --adopt: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	// The operator runs again: its ownerReferences and pod templates come back.
	scaleOperator(t, cl, 1)
	for _, key := range takenOverWorkloads {
		was := operators[key]
		u := operatorWorkload(t, cl, key)
		cl.edit(u, "operator", func() {
			u.SetOwnerReferences(was.GetOwnerReferences())
			tmpl, _, _ := unstructured.NestedMap(was.Object, "spec", "template")
			_ = unstructured.SetNestedMap(u.Object, tmpl, "spec", "template")
		})
	}
	if len(op.ownerRefsToInstallation(t, cl)) == 0 {
		t.Fatal("the operator's revert left no ownerReference")
	}
	code, out, errOut := cl.apply(ctx, file)
	if code != 1 || !strings.Contains(errOut, "the tigera operator runs again") || !strings.Contains(errOut, "Scale it to 0") {
		t.Fatalf("apply while the operator runs: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	scaleOperator(t, cl, 0)
	code, out, errOut = cl.apply(ctx, file, "--dry-run", "--allow-disruption")
	if code != 0 || !testcheck.Contains(t, "dry run after the operator ran again", out, "restarts:", "DaemonSet calico-system/calico-node") {
		t.Fatalf("dry run after the operator ran again: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if code, out, errOut = cl.apply(ctx, file); code != 0 {
		t.Fatalf("apply after the operator ran again: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if refs := op.ownerRefsToInstallation(t, cl); len(refs) > 0 {
		t.Errorf("objects owned by the Installation after the second takeover: %v", refs)
	}
	for _, key := range takenOverWorkloads {
		if hasOperatorHash(operatorWorkload(t, cl, key)) {
			t.Errorf("%s keeps the operator's pod template", key)
		}
	}
	if err := op.uidsKept(t, cl); err != nil {
		t.Error(err)
	}
	if err := op.typhaTLSConsistent(t, cl); err != nil {
		t.Error(err)
	}
	if code, out, errOut = cl.apply(ctx, file); code != 0 || !strings.Contains(out, "no changes, nothing was written: Calico v3.31.7 runs on every component") {
		t.Fatalf("the apply after: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestTakeOverInterruptedAfterTheOperatorStopped: an apply killed right after it stopped the
// operator left a state with the operator and, from an older calico-pilot, no release: the next
// apply continues the takeover on the release that runs (read from the images), not the catalogue's
// release for an unrecorded install.
func TestTakeOverInterruptedAfterTheOperatorStopped(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	op := cl.operatorInstall(operatorOptions{})
	ctx := context.Background()
	scaleOperator(t, cl, 0)
	if err := standalone.WriteState(ctx, cl.c, standalone.State{Operator: &standalone.OperatorState{Namespace: "tigera-operator", Name: "tigera-operator", Replicas: 1}, Adopted: true}, op.Now); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := cl.apply(ctx, exampleFile(t))
	if code != 0 || !strings.Contains(out, "applied: Calico "+operatorCalico+" runs on every component") {
		t.Fatalf("the apply after the interruption: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, w := range []struct{ kind, name, container string }{{"DaemonSet", "calico-node", "calico-node"}, {"Deployment", "calico-typha", "calico-typha"}, {"Deployment", "calico-kube-controllers", "calico-kube-controllers"}} {
		if img := systemImage(t, cl, w.kind, w.name, w.container); !strings.HasSuffix(img, ":"+operatorCalico) {
			t.Errorf("%s %s runs %s after the interrupted takeover, not %s", w.kind, w.name, img, operatorCalico)
		}
	}
	if refs := op.ownerRefsToInstallation(t, cl); len(refs) > 0 {
		t.Errorf("objects still owned by the Installation: %v", refs)
	}
}

// TestAdoptWhereNothingRuns: --adopt on a cluster with no Calico (a wrong kubeconfig context away)
// says there is nothing to adopt and writes nothing, with and without --dry-run.
func TestAdoptWhereNothingRuns(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	ctx := context.Background()
	for _, args := range [][]string{{"--adopt", "--dry-run"}, {"--adopt"}} {
		code, out, errOut := cl.apply(ctx, minimalFile, args...)
		if code != 1 || !strings.Contains(errOut, "there is nothing to adopt") || strings.Contains(out, "runs on every component") {
			t.Fatalf("apply %v on an empty cluster: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, out, errOut)
		}
	}
	var cm corev1.ConfigMap
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: standalone.Namespace, Name: standalone.StateConfigMap}, &cm); !apierrors.IsNotFound(err) {
		t.Errorf("the refused adoption wrote a state: %v", err)
	}
	var ds appsv1.DaemonSet
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "calico-node"}, &ds); !apierrors.IsNotFound(err) {
		t.Errorf("the refused adoption created calico-node: %v", err)
	}
}

// TestAdoptKeepsCalicoNodesPoolStartUp: calico-node's start-up pool settings are kept where the file
// is silent: an upstream install whose owner set CALICO_IPV4POOL_CIDR to another network than
// kubeadm's podSubnet keeps it (also on the next apply), and a takeover of the operator's install keeps
// NO_DEFAULT_POOLS=true (no default-pool env in its place).
func TestAdoptKeepsCalicoNodesPoolStartUp(t *testing.T) {
	t.Run("upstream manifest", func(t *testing.T) {
		cl := newCluster(t)
		cl.kubeadm()
		cl.manifestInstall("v3.31.6", "v3.31.6")
		ds := &appsv1.DaemonSet{}
		ds.Namespace, ds.Name = "kube-system", "calico-node"
		cl.edit(ds, "kubectl-edit", func() {
			for i := range ds.Spec.Template.Spec.Containers {
				if c := &ds.Spec.Template.Spec.Containers[i]; c.Name == "calico-node" {
					c.Env = append(c.Env, corev1.EnvVar{Name: "CALICO_IPV4POOL_CIDR", Value: "10.250.0.0/16"})
				}
			}
		})
		ctx := context.Background()
		file := exampleFile(t)
		for _, args := range [][]string{{"--adopt", "--dry-run"}, {"--adopt"}, nil} {
			code, out, errOut := cl.apply(ctx, file, args...)
			if code != 0 {
				t.Fatalf("apply %v: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, out, errOut)
			}
			if args != nil && !strings.Contains(out, "kept from the cluster: the IPv4 pod network 10.250.0.0/16 (calico-node's CALICO_IPV4POOL_CIDR), not 10.244.0.0/16") {
				t.Errorf("apply %v does not say it keeps the pool network:\n%s", args, out)
			}
			if args == nil || args[len(args)-1] != "--dry-run" {
				if v := envValue(nodeEnv(t, cl), "CALICO_IPV4POOL_CIDR"); v != "10.250.0.0/16" {
					t.Errorf("after apply %v calico-node has CALICO_IPV4POOL_CIDR %q, want the owner's 10.250.0.0/16", args, v)
				}
			}
		}
	})
	t.Run("tigera operator", func(t *testing.T) {
		cl := newCluster(t)
		cl.kubeadm()
		cl.operatorInstall(operatorOptions{})
		ctx := context.Background()
		if code, out, errOut := cl.apply(ctx, exampleFile(t), "--adopt"); code != 0 || !strings.Contains(out, "kept from the cluster: calico-node runs with NO_DEFAULT_POOLS=true") {
			t.Fatalf("apply --adopt: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		var ds appsv1.DaemonSet
		if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "calico-system", Name: "calico-node"}, &ds); err != nil {
			t.Fatal(err)
		}
		var env []corev1.EnvVar
		for _, c := range ds.Spec.Template.Spec.Containers {
			if c.Name == "calico-node" {
				env = c.Env
			}
		}
		if v := envValue(env, "NO_DEFAULT_POOLS"); v != "true" {
			t.Errorf("calico-node's NO_DEFAULT_POOLS is %q after the takeover, want true", v)
		}
		for _, e := range env {
			if strings.HasPrefix(e.Name, "CALICO_IPV4POOL_") {
				t.Errorf("the takeover added %s=%s", e.Name, e.Value)
			}
		}
	})
}

func envValue(env []corev1.EnvVar, name string) string {
	for _, e := range env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}
