package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// resetShootPools deletes every IP pool, IPAM block and block affinity of the shared shoot.
func resetShootPools(t testing.TB) {
	t.Helper()
	c := shootClient(t)
	ctx := context.Background()
	for _, obj := range []client.Object{&calicov1.IPPool{}, &calicov1.IPAMBlock{}, &calicov1.BlockAffinity{}} {
		if err := c.DeleteAllOf(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
	}
}

func shootPool(t *testing.T, name string) *calicov1.IPPool {
	t.Helper()
	p := &calicov1.IPPool{}
	err := shootClient(t).Get(context.Background(), client.ObjectKey{Name: name}, p)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func patchShootPool(t *testing.T, name, patch string) {
	t.Helper()
	p := &calicov1.IPPool{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := shootClient(t).Patch(context.Background(), p, client.RawPatch("application/merge-patch+json", []byte(patch))); err != nil {
		t.Fatal(err)
	}
}

// providerStatus decodes the Network's provider status.
func providerStatus(t *testing.T, n *extensionsv1alpha1.Network) calicov1alpha1.NetworkStatus {
	t.Helper()
	var st calicov1alpha1.NetworkStatus
	if n.Status.ProviderStatus == nil {
		return st
	}
	if err := json.Unmarshal(n.Status.ProviderStatus.Raw, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// reconcileAndWait triggers an operation and waits until it succeeded.
func (e *testEnv) reconcileAndWait(log *testenv.WriteCounter, op string) *extensionsv1alpha1.Network {
	e.t.Helper()
	before := log.Snapshot()
	e.annotate(op)
	opType := "Reconcile"
	if op == "restore" {
		opType = "Restore"
	}
	if op == "migrate" {
		opType = "Migrate"
	}
	return e.waitForOperation(log, before, opType, "Succeeded")
}

func conditionOf(n *extensionsv1alpha1.Network, typ string) (status, reason, msg string) {
	for _, c := range n.Status.Conditions {
		if string(c.Type) == typ {
			return string(c.Status), c.Reason, c.Message
		}
	}
	return "", "", ""
}

// TestIPPoolsBelongToTheOwner: the owner's disable, node selector (the pre-3.29 way of
// disableNewAllocations), extra pool and deletion survive a reconcile, a config change of another
// field, migrate + restore, a calico-pilot version change (a second ManagedResource generation); the provider status records the pool; the condition names the override.
func TestIPPoolsBelongToTheOwner(t *testing.T) {
	resetShootPools(t)
	t.Cleanup(func() { resetShootPools(t) })
	e := newTestEnv(t, nil)
	e.grantShootAccess()
	log, stopV1 := startStoppableController(t, e.ns, controllerSetup{})
	t.Cleanup(stopV1)
	e.createNetwork(providerConfig("backend: bird\noverlay:\n  enabled: true\n"))
	e.waitFor("default-ipv4-ippool created in the shoot", func() (bool, error) { return shootPool(t, "default-ipv4-ippool") != nil, nil })
	e.waitFor("pool recorded in the provider status", func() (bool, error) {
		return len(providerStatus(t, e.network()).IPPools) == 1, nil
	})
	p := shootPool(t, "default-ipv4-ippool")
	if p.Spec.CIDR != "100.96.0.0/11" || p.Spec.IPIPMode != "Always" || p.Spec.Disabled {
		t.Fatalf("created pool spec = %+v", p.Spec)
	}
	if _, ok := e.manifest()["IPPool/default-ipv4-ippool"]["metadata"].(map[string]any)["annotations"].(map[string]any)["resources.gardener.cloud/mode"]; !ok {
		t.Fatal("the stored IPPool has no resources.gardener.cloud/mode annotation")
	}
	rec := providerStatus(t, e.network()).IPPools[0]
	if rec.Name != "default-ipv4-ippool" || rec.CIDR != "100.96.0.0/11" || rec.Created.IsZero() || rec.IPIPMode != "Always" {
		t.Fatalf("record = %+v", rec)
	}

	// The owner follows Calico's "migrate IP pools": a new pool, the default one disabled and kept
	// off every node.
	extra := &calicov1.IPPool{ObjectMeta: metav1.ObjectMeta{Name: "new-pool"}, Spec: calicov1.IPPoolSpec{CIDR: "100.112.0.0/12", BlockSize: 26, IPIPMode: "Always", NATOutgoing: true, NodeSelector: "all()"}}
	if err := shootClient(t).Create(context.Background(), extra); err != nil {
		t.Fatal(err)
	}
	patchShootPool(t, "default-ipv4-ippool", `{"spec":{"disabled":true,"nodeSelector":"!all()"}}`)

	checkOwnerEdits := func(step string) {
		t.Helper()
		p := shootPool(t, "default-ipv4-ippool")
		if p == nil || !p.Spec.Disabled || p.Spec.NodeSelector != "!all()" {
			t.Fatalf("%s: default pool = %+v, want the owner's disabled + !all()", step, p)
		}
		if x := shootPool(t, "new-pool"); x == nil || x.Spec.CIDR != "100.112.0.0/12" {
			t.Fatalf("%s: the owner's new-pool = %+v", step, x)
		}
	}
	n := e.reconcileAndWait(log, "reconcile")
	checkOwnerEdits("reconcile")
	st, reason, msg := conditionOf(n, "IPPoolsInSync")
	if st != "False" || reason != "OwnerOverride" || !strings.Contains(msg, "IP pool default-ipv4-ippool (100.96.0.0/11) is disabled by the cluster's owner") {
		t.Errorf("condition = %s/%s %q", st, reason, msg)
	}

	// A config change of another field.
	e.patchNetwork(func(n *extensionsv1alpha1.Network) {
		n.Spec.ProviderConfig.Raw = yamlToJSON(t, []byte("apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\nkind: NetworkConfig\nbackend: bird\noverlay:\n  enabled: true\ntypha:\n  enabled: false\n"))
	})
	e.reconcileAndWait(log, "reconcile")
	checkOwnerEdits("config change of typha")

	// Migrate (keepObjects, ManagedResource gone) and restore.
	e.reconcileAndWait(log, "migrate")
	checkOwnerEdits("migrate")
	e.reconcileAndWait(log, "restore")
	checkOwnerEdits("restore")

	// A calico-pilot version change: another build with other image pins stores a second
	// ManagedResource generation.
	firstSecret := e.managedResource().Spec.SecretRefs[0].Name
	stopV1()
	images, err := imagevector.LoadVector([]byte("images:\n- name: calico-node\n  repository: mirror.example/calico/node\n"))
	if err != nil {
		t.Fatal(err)
	}
	log = startController(t, e.ns, controllerSetup{images: images})
	e.reconcileAndWait(log, "reconcile")
	if second := e.managedResource().Spec.SecretRefs[0].Name; second == firstSecret {
		t.Fatalf("the version change stored no new ManagedResource generation (secret %s)", second)
	}
	checkOwnerEdits("calico-pilot version change")

	// The owner deletes the pool: it is not created again, whatever triggers the next sync.
	if err := shootClient(t).Delete(context.Background(), &calicov1.IPPool{ObjectMeta: metav1.ObjectMeta{Name: "default-ipv4-ippool"}}); err != nil {
		t.Fatal(err)
	}
	e.reconcileAndWait(log, "reconcile")
	e.reconcileAndWait(log, "restore")
	if p := shootPool(t, "default-ipv4-ippool"); p != nil {
		t.Fatalf("the deleted pool came back: %+v", p.Spec)
	}
	n = e.network()
	if got := providerStatus(t, n).IPPools; len(got) != 1 || fmt.Sprint(got[0].OwnerChanges) != "[deleted]" {
		t.Errorf("records after the delete = %+v", got)
	}
	if _, _, msg := conditionOf(n, "IPPoolsInSync"); !strings.Contains(msg, "was deleted by the cluster's owner; it is not created again") {
		t.Errorf("condition message = %q", msg)
	}
}

// TestIPPoolsOverlaySwitch: switching the overlay off patches only the encapsulation of the pool
// calico-pilot created (kept disabled), not the owner's pool.
func TestIPPoolsOverlaySwitch(t *testing.T) {
	resetShootPools(t)
	t.Cleanup(func() { resetShootPools(t) })
	e := newTestEnv(t, nil)
	e.grantShootAccess()
	log := startController(t, e.ns, controllerSetup{})
	e.createNetwork(providerConfig("backend: bird\noverlay:\n  enabled: true\n"))
	e.waitFor("pool recorded", func() (bool, error) { return len(providerStatus(t, e.network()).IPPools) == 1, nil })
	extra := &calicov1.IPPool{ObjectMeta: metav1.ObjectMeta{Name: "owners-pool"}, Spec: calicov1.IPPoolSpec{CIDR: "100.112.0.0/12", BlockSize: 26, IPIPMode: "Always", NodeSelector: "all()"}}
	if err := shootClient(t).Create(context.Background(), extra); err != nil {
		t.Fatal(err)
	}
	patchShootPool(t, "default-ipv4-ippool", `{"spec":{"disabled":true}}`)

	before := log.Snapshot()
	e.patchNetwork(func(n *extensionsv1alpha1.Network) {
		n.Spec.ProviderConfig.Raw = yamlToJSON(t, []byte("apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\nkind: NetworkConfig\noverlay:\n  enabled: false\n"))
		if n.Annotations == nil {
			n.Annotations = map[string]string{}
		}
		n.Annotations["gardener.cloud/operation"] = "reconcile"
	})
	e.waitForOperation(log, before, "Reconcile", "Succeeded")
	e.waitFor("default pool without IPIP", func() (bool, error) { return shootPool(t, "default-ipv4-ippool").Spec.IPIPMode == "Never", nil })
	p := shootPool(t, "default-ipv4-ippool")
	if !p.Spec.Disabled || p.Spec.VXLANMode != "Never" {
		t.Errorf("default pool after the switch = %+v, want disabled, ipipMode Never, vxlanMode Never", p.Spec)
	}
	if o := shootPool(t, "owners-pool"); o.Spec.IPIPMode != "Always" {
		t.Errorf("the owner's pool was changed: %+v", o.Spec)
	}
	// The no-SNAT pool of an overlay-off shoot is created (it never hands out addresses).
	if ns := shootPool(t, "no-snat-for-node-cidr"); ns == nil || !ns.Spec.Disabled || ns.Spec.CIDR != "10.250.0.0/16" {
		t.Errorf("no-snat pool = %+v", ns)
	}
	if st, reason, _ := conditionOf(e.network(), "IPPoolsInSync"); st != "False" || reason != "OwnerOverride" {
		t.Errorf("condition = %s/%s, want False/OwnerOverride", st, reason)
	}
}
