package controller

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/controller/network"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// settle is how long a test waits before it counts what the controller did NOT send: events are
// recorded asynchronously, and a requeue could still be on its way. The counts themselves are exact.
const settle = 1500 * time.Millisecond

// TestRequestBudget counts every request the controller sends to the seed (reads included, an
// informer's list and watch excluded) for a first reconcile and for a reconcile asked for by the
// operation annotation when nothing changed, and asserts the budgets (at most 8 and at
// most 3) as exact counts, with the gardener-kube-apiserver GlobalNetworkSet on:
// the shoot's kube-apiserver DNSRecords come from the informer cache, not from a request. The shoot is reachable as in a real landscape: its control-plane
// namespace has the gardener-internal secret (§3.7 of docs/gardener-api-types.md), read once per
// pool sync. The requests to the shoot's own API server (the pool list and create) go through
// another client and another rate limiter; they are not seed requests.
func TestRequestBudget(t *testing.T) {
	resetShootPools(t)
	t.Cleanup(func() { resetShootPools(t) })
	e := newTestEnv(t, nil)
	e.grantShootAccessAs("gardener-internal")
	e.createDNSRecord("external", "A", "192.0.2.34")
	// The production address source (DNSRecords through the manager's client); an A record needs no
	// DNS answer, the server is there as in production.
	log := startController(t, e.ns, controllerSetup{dnsServer: startDNS(t).addr})

	before := log.Requests()
	e.createNetwork(providerConfig(gnsOn + "overlay:\n  enabled: true\n"))
	e.waitForOperation(log, map[string]int{}, "Create", "Succeeded")
	e.waitFor("the first reconcile's event", func() (bool, error) {
		return log.RequestsSince(before)["create events"] >= 1, nil
	})
	time.Sleep(settle)
	first := log.RequestsSince(before)
	t.Logf("first reconcile: %d requests per Network: %v", testenv.Total(first), first)
	want := map[string]int{
		"patch networks":          1, // finalizer + operation annotation removed, one patch
		"create secrets":          2, // the content-hashed secrets of the shoot and the seed ManagedResource
		"create managedresources": 2, // extension-networking-calico-config and -monitoring (class seed)
		"get secrets":             1, // the pool sync's shoot access secret, gardener-internal
		"patch networks/status":   1, // Succeeded + conditions + providerStatus (pool records) + ipFamilies
		"create events":           1,
	}
	if diff := cmp.Diff(want, first); diff != "" {
		t.Errorf("first reconcile requests (-want +got):\n%s", diff)
	}
	if n := testenv.Total(first); n > 8 {
		t.Errorf("first reconcile sent %d requests, budget 8: %v", n, first)
	}
	if p := shootPool(t, "default-ipv4-ippool"); p == nil {
		t.Fatal("the first reconcile created no IP pool in the shoot")
	}
	if _, nets, ok := e.globalNetworkSet(); !ok || !cmp.Equal(nets, []any{"192.0.2.34/32"}) {
		t.Fatalf("GlobalNetworkSet stored %t with nets %v, want [192.0.2.34/32]", ok, nets)
	}
	if st, reason, _ := conditionOf(e.network(), "IPPoolsInSync"); st != "True" || reason != "InSync" {
		t.Fatalf("IPPoolsInSync = %s/%s, want True/InSync", st, reason)
	}

	// The gardenlet annotates the Network again (every shoot reconcile); nothing changed. The pool
	// sync runs (the owner's edits are looked for when the gardenlet asks) and finds nothing to do.
	before = log.Requests()
	writesBefore := log.Snapshot()
	e.annotate("reconcile")
	e.waitForOperation(log, writesBefore, "Reconcile", "Succeeded")
	time.Sleep(settle)
	again := log.RequestsSince(before)
	t.Logf("annotated reconcile, nothing changed: %d requests per Network: %v", testenv.Total(again), again)
	want = map[string]int{
		"patch networks":        1, // annotation removed
		"patch networks/status": 1, // Succeeded with a lastUpdateTime after the gardenlet's timestamp
		"get secrets":           1, // the pool sync's shoot access secret
	}
	if diff := cmp.Diff(want, again); diff != "" {
		t.Errorf("unchanged annotated reconcile requests (-want +got):\n%s", diff)
	}
	if n := testenv.Total(again); n > 3 {
		t.Errorf("unchanged annotated reconcile sent %d requests, budget 3: %v", n, again)
	}
}

// TestCNAMERequeueBudget: a shoot whose kube-apiserver DNSRecord is a CNAME with a short TTL is
// requeued at the TTL, against a real DNS server on loopback. While the answer stays the same, the
// requeues send no request at all: no write (no status, no event), and no read (the DNSRecords come
// from the informer cache; the IP pool sync, which a requeue nobody asked for skips, reads nothing
// either). When the answer changes, the
// set is updated once: the new Secret, the old one deleted, the ManagedResource repointed and one
// status write.
func TestCNAMERequeueBudget(t *testing.T) {
	resetShootPools(t)
	t.Cleanup(func() { resetShootPools(t) })
	srv := startDNS(t)
	srv.set(t, "lb.example.net. 1 IN A 198.51.100.10")
	e := newTestEnv(t, nil)
	e.grantShootAccessAs("gardener-internal")
	e.createDNSRecord("external", "CNAME", "lb.example.net")
	log := startController(t, e.ns, controllerSetup{dnsServer: srv.addr})
	e.createNetwork(providerConfig(gnsOn + "overlay:\n  enabled: true\n"))
	e.waitForOperation(log, map[string]int{}, "Create", "Succeeded")
	if st, reason, _ := conditionOf(e.network(), "IPPoolsInSync"); st != "True" || reason != "InSync" {
		t.Fatalf("IPPoolsInSync = %s/%s, want True/InSync (the requeues below must skip a completed pool sync)", st, reason)
	}
	time.Sleep(settle)

	// Several requeues (TTL 1 s, the test's minimum requeue 1 s) with the same answer; each one
	// resolves the CNAME again (one query per address family at least).
	before := log.Requests()
	queries := srv.queryCount()
	e.waitFor("three requeues", func() (bool, error) {
		return srv.queryCount()-queries >= 6, nil
	})
	same := log.RequestsSince(before)
	t.Logf("TTL requeues with the same answer: %d DNS queries, %d seed requests: %v", srv.queryCount()-queries, testenv.Total(same), same)
	if len(same) != 0 {
		t.Errorf("requeues with the same answer sent seed requests, want none: %v", same)
	}

	// The load balancer moves: one update.
	before = log.Requests()
	srv.set(t, "lb.example.net. 1 IN A 198.51.100.20")
	e.waitFor("the new address in the status", func() (bool, error) {
		for _, c := range e.network().Status.Conditions {
			if c.Type == "KubeAPIServerGlobalNetworkSetReady" && strings.Contains(c.Message, "198.51.100.20") {
				return true, nil
			}
		}
		return false, nil
	})
	if _, nets, _ := e.globalNetworkSet(); !cmp.Equal(nets, []any{"198.51.100.20/32"}) {
		t.Fatalf("nets = %v, want [198.51.100.20/32]", nets)
	}
	time.Sleep(settle)
	changed := log.RequestsSince(before)
	t.Logf("TTL requeue with a changed address: %v", changed)
	want := map[string]int{
		"create secrets":          1,
		"delete secrets":          1, // the one the ManagedResource referenced before
		"update managedresources": 1,
		"patch networks/status":   1,
	}
	if diff := cmp.Diff(want, changed); diff != "" {
		t.Errorf("address change requests (-want +got):\n%s", diff)
	}
}

// TestFirstTTLRequeueWritesNothing: the requeues that follow a Network's creation (its CNAME's TTL,
// 1 s here) with the same answer leave the Network as the create left it: lastOperation still
// Create/Succeeded with the same lastUpdateTime, the same resourceVersion, and no request beyond the
// first reconcile's. The Network's operation for such a requeue is Reconcile (its last one
// succeeded); a success of the create is as settled as one of a reconcile, so nothing is rewritten.
func TestFirstTTLRequeueWritesNothing(t *testing.T) {
	resetShootPools(t)
	t.Cleanup(func() { resetShootPools(t) })
	srv := startDNS(t)
	srv.set(t, "lb.example.net. 1 IN A 198.51.100.10")
	e := newTestEnv(t, nil)
	e.grantShootAccessAs("gardener-internal")
	e.createDNSRecord("external", "CNAME", "lb.example.net")
	log := startController(t, e.ns, controllerSetup{dnsServer: srv.addr})

	before := log.Requests()
	e.createNetwork(providerConfig(gnsOn + "overlay:\n  enabled: true\n"))
	created := e.waitForOperation(log, map[string]int{}, "Create", "Succeeded")
	queries := srv.queryCount()
	e.waitFor("two TTL requeues", func() (bool, error) {
		// One query per address family at least, per requeue.
		return srv.queryCount()-queries >= 4, nil
	})
	time.Sleep(settle)

	n := e.network()
	if diff := cmp.Diff(created.Status.LastOperation, n.Status.LastOperation); diff != "" {
		t.Errorf("lastOperation after the TTL requeues (-created +now):\n%s", diff)
	}
	if n.ResourceVersion != created.ResourceVersion {
		t.Errorf("resourceVersion %s after the TTL requeues, want %s (the Network as created)", n.ResourceVersion, created.ResourceVersion)
	}
	got := log.RequestsSince(before)
	t.Logf("create and %d DNS queries of requeues: %v", srv.queryCount()-queries, got)
	want := map[string]int{
		"patch networks":          1,
		"create secrets":          2,
		"create managedresources": 2,
		"get secrets":             1,
		"patch networks/status":   1,
		"create events":           1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests of the create and its TTL requeues (-want +got):\n%s", diff)
	}
}

// TestRequestBudgetOutsideAMovingWave: with a rollout running (its canary wave open, selecting other
// shoots by label), a shoot outside every open wave costs exactly what TestRequestBudget counts, for
// its first reconcile and for an annotated one: the actuator asks the rollout controller's in-memory
// view, not the API server, and reads nothing in the shoot for a move. The rollout controller's
// own requests (its state ConfigMap, evaluated every 200 ms) are per seed, not per Network: they are
// counted apart.
func TestRequestBudgetOutsideAMovingWave(t *testing.T) {
	resetShootPools(t)
	t.Cleanup(func() { resetShootPools(t) })
	e := newTestEnv(t, func(s *gardencorev1beta1.Shoot) { s.Spec.Kubernetes.Version = "1.34.2" })
	e.grantShootAccessAs("gardener-internal")
	e.createDNSRecord("external", "A", "192.0.2.34")
	ctrlNS := testenv.NewNamespace(t, e.c, "garden-calico-pilot-", nil)
	operator := &configv1alpha1.ControllerConfiguration{Calico: &configv1alpha1.CalicoVersions{Rollout: &configv1alpha1.Rollout{
		Name: "to-v3.32", TargetVersion: "v3.32", Waves: []configv1alpha1.Wave{{
			Name: "canary", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"calico-canary": "true"}},
		}},
	}}}
	log := startController(t, e.ns, controllerSetup{dnsServer: startDNS(t).addr, operator: operator, rolloutNamespace: ctrlNS,
		tune: func(o *network.Options) { o.RolloutInterval = 200 * time.Millisecond }}, ctrlNS)

	perNetwork := func(m map[string]int) map[string]int {
		out := map[string]int{}
		for k, v := range m {
			if !strings.HasSuffix(k, " configmaps") {
				out[k] = v
			}
		}
		return out
	}
	before := log.Requests()
	e.createNetwork(providerConfig(gnsOn + "overlay:\n  enabled: true\n"))
	e.waitForOperation(log, map[string]int{}, "Create", "Succeeded")
	e.waitFor("the first reconcile's event", func() (bool, error) {
		return log.RequestsSince(before)["create events"] >= 1, nil
	})
	time.Sleep(settle)
	first := log.RequestsSince(before)
	if first["get configmaps"] == 0 {
		t.Fatalf("the rollout controller did not run: %v", first)
	}
	want := map[string]int{
		"patch networks": 1, "create secrets": 2, "create managedresources": 2,
		"get secrets": 1, "patch networks/status": 1, "create events": 1,
	}
	if diff := cmp.Diff(want, perNetwork(first)); diff != "" {
		t.Errorf("first reconcile requests outside a moving wave (-want +got):\n%s", diff)
	}
	before = log.Requests()
	writesBefore := log.Snapshot()
	e.annotate("reconcile")
	e.waitForOperation(log, writesBefore, "Reconcile", "Succeeded")
	time.Sleep(settle)
	want = map[string]int{"patch networks": 1, "patch networks/status": 1, "get secrets": 1}
	if diff := cmp.Diff(want, perNetwork(log.RequestsSince(before))); diff != "" {
		t.Errorf("annotated reconcile requests outside a moving wave (-want +got):\n%s", diff)
	}
	var st map[string]any
	if err := json.Unmarshal(e.network().Status.ProviderStatus.Raw, &st); err != nil {
		t.Fatal(err)
	}
	if st["calicoVersion"] != "v3.31.7" || st["calicoMove"] != nil {
		t.Errorf("a shoot outside the open wave: calicoVersion %v, move %v; want v3.31.7 (where it was created) and none", st["calicoVersion"], st["calicoMove"])
	}
}
