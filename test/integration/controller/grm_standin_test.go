package controller

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
)

// grmStandIn applies a ManagedResource's documents the way the shoot's gardener-resource-manager
// does, following docs/gardener-integration.md §2 (not Gardener's code, which we do
// not have): a listed object that is missing is created (the health check sees it missing and
// triggers a reconcile, §2.1); an existing one is replaced by the desired object, keeping only the
// live metadata with labels and annotations merged (§2.3, no per-kind rule for IPPool); `ignore`
// objects are only created if missing; `mode: Ignore` objects are never created, updated or deleted,
// and released (origin and description removed) if the previous generation listed them; objects
// that left the MR are deleted unless the live one has keep-object (§2.4, §2.5). It handles only the
// IPPool documents: the objects at stake here.
type grmStandIn struct {
	c      client.Client
	origin string
	// listed is status.resources: the IPPools the last apply manages.
	listed map[string]bool
}

const (
	annOrigin      = "resources.gardener.cloud/origin"
	annDescription = "resources.gardener.cloud/description"
)

func (g *grmStandIn) reconcile(t *testing.T, data []byte) {
	t.Helper()
	ctx := context.Background()
	next, released := map[string]bool{}, map[string]bool{}
	var desired []*unstructured.Unstructured
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		u := &unstructured.Unstructured{}
		if err := json.Unmarshal(line, &u.Object); err != nil {
			t.Fatal(err)
		}
		if u.GetKind() != "IPPool" {
			continue
		}
		if u.GetAnnotations()["resources.gardener.cloud/mode"] == "Ignore" {
			if g.listed[u.GetName()] {
				g.release(t, u)
				released[u.GetName()] = true
			}
			continue
		}
		next[u.GetName()] = true
		desired = append(desired, u)
	}
	// Objects that left the MR are deleted first (unless keep-object on the live object).
	for name := range g.listed {
		if next[name] || released[name] {
			continue
		}
		live := g.get(t, name)
		if live == nil {
			continue
		}
		if keep, _ := strconv.ParseBool(live.GetAnnotations()["resources.gardener.cloud/keep-object"]); keep {
			continue
		}
		if err := g.c.Delete(ctx, live); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
	}
	for _, d := range desired {
		live := g.get(t, d.GetName())
		ignore, _ := strconv.ParseBool(d.GetAnnotations()["resources.gardener.cloud/ignore"])
		switch {
		case live == nil:
			obj := d.DeepCopy()
			if !ignore {
				ann := obj.GetAnnotations()
				if ann == nil {
					ann = map[string]string{}
				}
				ann[annOrigin] = g.origin
				obj.SetAnnotations(ann)
			}
			if err := g.c.Create(ctx, obj); err != nil {
				t.Fatal(err)
			}
		case ignore:
		default:
			// Full replacement: desired spec verbatim, live metadata with merged labels/annotations.
			merged := d.DeepCopy()
			md := live.Object["metadata"].(map[string]any)
			merged.Object["metadata"] = md
			merged.SetLabels(union(live.GetLabels(), d.GetLabels()))
			ann := union(live.GetAnnotations(), d.GetAnnotations())
			ann[annOrigin] = g.origin
			merged.SetAnnotations(ann)
			if err := g.c.Update(ctx, merged); err != nil {
				t.Fatal(err)
			}
		}
	}
	g.listed = next
}

// healthy is the health check: every listed object exists (a missing one triggers a reconcile).
func (g *grmStandIn) healthy(t *testing.T) bool {
	for name := range g.listed {
		if g.get(t, name) == nil {
			return false
		}
	}
	return true
}

func (g *grmStandIn) release(t *testing.T, d *unstructured.Unstructured) {
	live := g.get(t, d.GetName())
	if live == nil || live.GetAnnotations()[annOrigin] != g.origin {
		return
	}
	ann := live.GetAnnotations()
	delete(ann, annOrigin)
	delete(ann, annDescription)
	live.SetAnnotations(ann)
	if err := g.c.Update(context.Background(), live); err != nil {
		t.Fatal(err)
	}
}

func (g *grmStandIn) get(t *testing.T, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("crd.projectcalico.org/v1")
	u.SetKind("IPPool")
	err := g.c.Get(context.Background(), client.ObjectKey{Name: name}, u)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func union(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// referencePool is the pool the reference extension (or a calico-pilot before mode: Ignore) lists in
// the ManagedResource for overlay.enabled: true.
const referencePool = `{"apiVersion":"crd.projectcalico.org/v1","kind":"IPPool","metadata":{"name":"default-ipv4-ippool"},"spec":{"cidr":"100.96.0.0/11","ipipMode":"Always","vxlanMode":"Never","natOutgoing":true,"blockSize":26,"nodeSelector":"all()"}}`

// TestResourceManagerKeepsTheOwnersPoolEdits reproduces issue 12 with the stand-in (an earlier
// generation that lists the pool re-enables and resurrects it) and shows that calico-pilot's
// generation releases the pool, after which neither the resource manager nor calico-pilot reverts
// the owner's disable or delete.
func TestResourceManagerKeepsTheOwnersPoolEdits(t *testing.T) {
	resetShootPools(t)
	t.Cleanup(func() { resetShootPools(t) })
	sc := shootClient(t)
	grm := &grmStandIn{c: sc, origin: "seed-id:shoot--test/extension-networking-calico-config"}

	// Generation 1: the pool is a plain MR object. The owner's disable is reverted by the next
	// sync, the owner's delete is undone after the health check.
	grm.reconcile(t, []byte(referencePool))
	patchShootPool(t, "default-ipv4-ippool", `{"spec":{"disabled":true}}`)
	grm.reconcile(t, []byte(referencePool))
	if p := shootPool(t, "default-ipv4-ippool"); p.Spec.Disabled {
		t.Fatal("stand-in check: a plain MR pool should be re-enabled by the resync (docs/gardener-integration.md §2.3)")
	}
	if err := sc.DeleteAllOf(context.Background(), &calicov1.IPPool{}); err != nil {
		t.Fatal(err)
	}
	if grm.healthy(t) {
		t.Fatal("stand-in check: the health check should see the listed pool missing")
	}
	grm.reconcile(t, []byte(referencePool))
	if shootPool(t, "default-ipv4-ippool") == nil {
		t.Fatal("stand-in check: a deleted plain MR pool should be re-created")
	}

	// The owner disables the pool; calico-pilot takes over (upgrade from the reference).
	patchShootPool(t, "default-ipv4-ippool", `{"spec":{"disabled":true}}`)
	e := newTestEnv(t, nil)
	e.grantShootAccess()
	log := startController(t, e.ns, controllerSetup{})
	e.createNetwork(providerConfig("backend: bird\noverlay:\n  enabled: true\n"))
	e.waitFor("pool recorded", func() (bool, error) { return len(providerStatus(t, e.network()).IPPools) == 1, nil })
	if rec := providerStatus(t, e.network()).IPPools[0]; !rec.Adopted || len(rec.OwnerChanges) != 1 || rec.OwnerChanges[0] != "disabled" {
		t.Errorf("record of the taken-over pool = %+v", rec)
	}

	// Generation 2 (calico-pilot's, read from the seed): the pool is released, not deleted.
	data := e.storedData()
	grm.reconcile(t, data)
	p := shootPool(t, "default-ipv4-ippool")
	if p == nil || !p.Spec.Disabled {
		t.Fatalf("after calico-pilot's generation: pool = %+v, want kept and disabled", p)
	}
	if _, ok := p.Annotations[annOrigin]; ok {
		t.Errorf("the released pool still carries %s", annOrigin)
	}
	// Hourly resyncs (and another calico-pilot reconcile) keep the disable.
	grm.reconcile(t, data)
	e.reconcileAndWait(log, "reconcile")
	grm.reconcile(t, e.storedData())
	if p := shootPool(t, "default-ipv4-ippool"); !p.Spec.Disabled {
		t.Fatal("the owner's disable was reverted")
	}
	// The owner deletes the pool: the health check does not miss it, nothing re-creates it.
	if err := sc.DeleteAllOf(context.Background(), &calicov1.IPPool{}); err != nil {
		t.Fatal(err)
	}
	if !grm.healthy(t) {
		t.Error("the health check misses a pool calico-pilot released")
	}
	grm.reconcile(t, e.storedData())
	e.reconcileAndWait(log, "reconcile")
	if p := shootPool(t, "default-ipv4-ippool"); p != nil {
		t.Fatalf("the deleted pool came back: %+v", p.Spec)
	}
}

// storedData is the content of the ManagedResource's secret.
func (e *testEnv) storedData() []byte {
	e.t.Helper()
	mr := e.managedResource()
	s := &corev1.Secret{}
	if err := e.c.Get(context.Background(), client.ObjectKey{Namespace: e.ns, Name: mr.Spec.SecretRefs[0].Name}, s); err != nil {
		e.t.Fatal(err)
	}
	return s.Data["config.yaml"]
}
