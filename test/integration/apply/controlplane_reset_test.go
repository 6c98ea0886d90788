package apply

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
)

// TestSharedControlPlaneResetLeavesNothing is the reset's proof: each round dirties the shared
// control plane as the suite's tests do (apply's install and a takeover's starting points: the
// operator fixture, upstream's manifest with the owner's pools and IPAM blocks) plus objects held
// by finalizers, in new and in system namespaces; the reset newCluster does leaves a listing of
// every resource type (by discovery) identical, name and UID, to the one before the round.
// Together the rounds dirty every resource the suite writes.
func TestSharedControlPlaneResetLeavesNothing(t *testing.T) {
	const finalizer = "test.calico-pilot.dev/keep"
	rounds := []struct {
		name  string
		dirty func(t *testing.T, cl *cluster)
	}{
		{"apply's install, objects held by finalizers", func(t *testing.T, cl *cluster) {
			cl.kubeadm()
			if code, out, errOut := cl.apply(context.Background(), minimalFile); code != 0 {
				t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
			}
			cl.create(
				&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "held", Finalizers: []string{finalizer}}},
				&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "held", Name: "held", Finalizers: []string{finalizer}}},
				&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "held", Finalizers: []string{finalizer}}},
				&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "held", Finalizers: []string{finalizer}}},
				&calicov1.IPPool{ObjectMeta: metav1.ObjectMeta{Name: "held", Finalizers: []string{finalizer}}, Spec: calicov1.IPPoolSpec{CIDR: "10.250.0.0/16", BlockSize: 26}},
				&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-node-lease", Name: "worker-1"}},
				// A pod on a node: without a kubelet its graceful deletion never ends.
				&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "held"}, Spec: corev1.PodSpec{NodeName: "worker-1",
					Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}},
				&corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "held.1"}, InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: "worker-1"}},
			)
		}},
		{"the operator fixture", func(t *testing.T, cl *cluster) {
			cl.kubeadm()
			cl.operatorInstall(operatorOptions{})
		}},
		{"upstream's manifest, the owner's pools", func(t *testing.T, cl *cluster) {
			cl.kubeadm()
			cl.manifestInstall("v3.31.6", "v3.31.6")
			cl.ownerPools()
		}},
	}
	dirtied := map[string]bool{}
	for _, r := range rounds {
		t.Run(r.name, func(t *testing.T) {
			cl := newCluster(t)
			ctx := context.Background()
			before, err := listAll(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if d := diffListings(shared.baseline, before); len(d) > 0 {
				t.Fatalf("newCluster handed out a cluster that is not the baseline:\n%v", d)
			}
			r.dirty(t, cl)
			dirty, err := listAll(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for ref := range dirty {
				if _, ok := before[ref]; !ok {
					dirtied[ref.resource.String()] = true
				}
			}
			cl.hold(true) // the stand-in writes no status while the reset deletes
			start := time.Now()
			if err := resetShared(ctx); err != nil {
				t.Fatal(err)
			}
			t.Logf("reset in %s", time.Since(start).Round(time.Millisecond))
			after, err := listAll(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if d := diffListings(before, after); len(d) > 0 {
				t.Errorf("the reset left (+), removed (-) or re-created (~):\n%v", d)
			}
		})
	}
	// The resources the suite's tests write, each dirtied by a round above.
	want := []string{
		"apiservices.apiregistration.k8s.io", "clusterrolebindings.rbac.authorization.k8s.io", "clusterroles.rbac.authorization.k8s.io",
		"configmaps", "csidrivers.storage.k8s.io", "customresourcedefinitions.apiextensions.k8s.io", "daemonsets.apps", "deployments.apps",
		"events", "felixconfigurations.crd.projectcalico.org", "installations.operator.tigera.io", "ipamblocks.crd.projectcalico.org",
		"ippools.crd.projectcalico.org", "leases.coordination.k8s.io", "namespaces", "networkpolicies.networking.k8s.io", "nodes", "pods",
		"poddisruptionbudgets.policy", "rolebindings.rbac.authorization.k8s.io", "roles.rbac.authorization.k8s.io", "secrets",
		"serviceaccounts", "services", "tigerastatuses.operator.tigera.io",
	}
	var missing []string
	for _, w := range want {
		if !dirtied[w] {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		t.Errorf("no round dirtied %v (dirtied: %v)", missing, slices.Sorted(maps.Keys(dirtied)))
	}
}
