package controller

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// TestGeneratedClusterRoleIsEnough runs the controller as a user bound only to the ClusterRole
// generated from the +kubebuilder:rbac markers (the one the Helm chart ships), with leader election,
// through create (GlobalNetworkSet from DNSRecords, seed monitoring objects, events), an overlay
// switch that reads the shoot access secret, and deletion.
func TestGeneratedClusterRoleIsEnough(t *testing.T) {
	ctx := context.Background()
	c := adminClient(t)
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "deploy", "calico-pilot", "files", "rbac", "role.yaml"))
	if err != nil {
		t.Fatalf("reading the generated ClusterRole (run make generate): %v", err)
	}
	role := &rbacv1.ClusterRole{}
	if err := yaml.UnmarshalStrict(data, role); err != nil {
		t.Fatal(err)
	}
	role.Name = "calico-pilot-rbac-test"
	if err := c.Create(ctx, role); err != nil {
		t.Fatal(err)
	}
	user, err := seedCP.Env.ControlPlane.AddUser(envtest.User{Name: "calico-pilot-rbac-test"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "calico-pilot-rbac-test"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: "calico-pilot-rbac-test"}},
	}
	if err := c.Create(ctx, binding); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Delete(context.Background(), binding)
		_ = c.Delete(context.Background(), role)
	})

	srv := startDNS(t)
	srv.set(t, "lb.example.net. 60 IN A 198.51.100.10")
	e := newTestEnv(t, func(s *gardencorev1beta1.Shoot) { s.Spec.Kubernetes.Version = "1.36.1" })
	e.grantShootAccess()
	grantLeaderElection(t, c, e.ns, "calico-pilot-rbac-test")
	setNodes(t, map[string]string{"rbac-node-1": "RouteCreated"})
	e.createDNSRecord("external", "CNAME", "lb.example.net")
	log := startController(t, e.ns, controllerSetup{
		restConfig: user.Config(), dnsServer: srv.addr, leaderElection: true,
		gates: map[string]bool{"SeamlessOverlaySwitch": true},
	})
	e.createNetwork(providerConfig("overlay:\n  enabled: true\n" + gnsOn))
	e.waitForOperation(log, nil, "Create", "Succeeded")
	if _, _, ok := e.globalNetworkSet(); !ok {
		t.Error("GlobalNetworkSet not stored")
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: e.ns, Name: "calico-pilot-leader-election"}, &coordinationv1.Lease{}); err != nil {
		t.Errorf("leader election lease: %v", err)
	}
	e.waitFor("an event written by the restricted user", func() (bool, error) {
		var evs eventsv1.EventList
		if err := c.List(ctx, &evs, client.InNamespace(e.ns)); err != nil {
			return false, err
		}
		return len(evs.Items) > 0, nil
	})

	before := log.Snapshot()
	e.switchOverlayOff()
	e.waitForOperation(log, before, "Reconcile", "Succeeded")
	if e.storedOverlay() {
		t.Error("overlay still on")
	}

	if err := c.Delete(ctx, e.network()); err != nil {
		t.Fatal(err)
	}
	e.waitFor("the Network to be gone", func() (bool, error) {
		err := c.Get(ctx, e.key(), &extensionsv1alpha1.Network{})
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
	if e.managedResource() != nil {
		t.Error("ManagedResource left after delete")
	}
	if e.seedManagedResource() != nil {
		t.Error("seed ManagedResource left after delete")
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: e.ns, Name: "calico-dashboards"}, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
		t.Errorf("seed ConfigMap calico-dashboards after delete: %v, want NotFound", err)
	}
}

// grantLeaderElection gives user the namespaced leader-election Role the Helm chart ships
// (deploy/calico-pilot/templates/rbac.yaml): the Lease lock and events about it, in namespace only.
func grantLeaderElection(t *testing.T, c client.Client, namespace, user string) {
	t.Helper()
	ctx := context.Background()
	role := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "calico-pilot-leader-election", Namespace: namespace},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}, Verbs: []string{"get", "create", "update"}},
			{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
		},
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "calico-pilot-leader-election", Namespace: namespace},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: user}},
	}
	for _, obj := range []client.Object{role, binding} {
		if err := c.Create(ctx, obj); err != nil {
			t.Fatalf("granting leader election: %v", err)
		}
	}
}
