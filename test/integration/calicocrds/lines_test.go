package calicocrds

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion/calicoversiontest"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
)

func calicoObject(kind, namespace, name string, spec map[string]any) *unstructured.Unstructured {
	u := unstructuredObject(kind, name, spec)
	u.SetNamespace(namespace)
	return u
}

func get(t *testing.T, u *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(u.GroupVersionKind())
	if err := cl.Get(context.Background(), client.ObjectKeyFromObject(u), got); err != nil {
		t.Fatalf("reading %s %s: %v", u.GetKind(), u.GetName(), err)
	}
	return got
}

func field(t *testing.T, u *unstructured.Unstructured, path ...string) any {
	t.Helper()
	v, _, err := unstructured.NestedFieldNoCopy(u.Object, path...)
	if err != nil {
		t.Fatalf("%s %s: %v", u.GetKind(), strings.Join(path, "."), err)
	}
	return v
}

// refusedWith polls (the API server takes the new schema from its CRD informer) until write fails
// with a message containing msg.
func refusedWith(t *testing.T, what, msg string, write func() error) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		last = write()
		return last != nil && strings.Contains(last.Error(), msg), nil
	})
	if err != nil {
		t.Errorf("%s: got %v, want a refusal saying %q", what, last, msg)
	}
}

// TestV3_32CRDs installs the v3.32 CRDs over the v3.31 ones, as an upgrade does (objects stored under
// v3.31 stay), and checks what the delta facts say about them: stored objects stay readable and get the
// new defaults on read (§2.4), the new CEL rules refuse what they should (§2.3), the
// KubeControllersConfiguration status goes through /status (§0 row 4), ratcheting lets an old value
// through an unrelated update (§2.4), and every Calico object calico-pilot renders at every release of
// the v3.32 line is accepted. The v3.31 CRDs are put back afterwards (the other tests of the suite
// check them).
func TestV3_32CRDs(t *testing.T) {
	ctx := context.Background()
	v331, v332 := calicoversiontest.Newest(t, "v3.31"), calicoversiontest.Newest(t, "v3.32")
	t.Cleanup(func() {
		if err := controlPlane.InstallCalicoCRDs(context.Background(), v331); err != nil {
			t.Errorf("putting the v3.31 CRDs back: %v", err)
		}
	})
	// Stored under v3.31.
	pool := calicoObject("IPPool", "", "upgrade-pool", map[string]any{"cidr": "10.9.0.0/16", "blockSize": int64(26), "ipipMode": "Always", "natOutgoing": true})
	felix := calicoObject("FelixConfiguration", "", "node.upgrade", map[string]any{"iptablesBackend": "auto", "bpfEnabled": false})
	policy := calicoObject("NetworkPolicy", "default", "default.upgrade-allow", map[string]any{"selector": "all()", "types": []any{"Ingress"}})
	kcc := calicoObject("KubeControllersConfiguration", "", "default", map[string]any{"controllers": map[string]any{"node": map[string]any{"syncLabels": "Enabled"}}})
	for _, u := range []*unstructured.Unstructured{pool, felix, policy, kcc} {
		if err := cl.Create(ctx, u); err != nil {
			t.Fatalf("creating %s %s under the v3.31 CRDs: %v", u.GetKind(), u.GetName(), err)
		}
		t.Cleanup(func() { _ = cl.Delete(context.Background(), u) })
	}
	// v3.31 has no status subresource: kube-controllers v3.31 writes status with the object.
	stored := get(t, kcc)
	_ = unstructured.SetNestedField(stored.Object, map[string]any{"logSeverityScreen": "Info", "controllers": map[string]any{}}, "status", "runningConfig")
	if err := cl.Update(ctx, stored); err != nil {
		t.Fatalf("writing KubeControllersConfiguration status under v3.31: %v", err)
	}

	if err := controlPlane.InstallCalicoCRDs(ctx, v332); err != nil {
		t.Fatal(err)
	}

	// §2.4: the objects stay readable, and the new CRD defaults apply on read.
	if got := field(t, get(t, felix), "spec", "nftablesMode"); got != "Auto" {
		t.Errorf("FelixConfiguration stored under v3.31 reads nftablesMode %v, the delta says Auto (§2.4)", got)
	}
	if got := field(t, get(t, policy), "spec", "tier"); got != "default" {
		t.Errorf("NetworkPolicy stored under v3.31 reads tier %v, the delta says default (§2.4)", got)
	}
	gotPool := get(t, pool)
	if field(t, gotPool, "spec", "cidr") != "10.9.0.0/16" || field(t, gotPool, "spec", "assignmentMode") != "Automatic" {
		t.Errorf("IPPool stored under v3.31 reads %v", gotPool.Object["spec"])
	}
	if got := field(t, get(t, kcc), "status", "runningConfig", "logSeverityScreen"); got != "Info" {
		t.Errorf("KubeControllersConfiguration status written under v3.31 reads %v after the upgrade", got)
	}

	// §2.3: cidr and blockSize cannot change; another field can.
	refusedWith(t, "changing an IPPool's cidr", "cidr cannot be changed", func() error {
		u := get(t, pool)
		_ = unstructured.SetNestedField(u.Object, "10.10.0.0/16", "spec", "cidr")
		return cl.Update(ctx, u)
	})
	refusedWith(t, "changing an IPPool's blockSize", "blockSize cannot be changed", func() error {
		u := get(t, pool)
		_ = unstructured.SetNestedField(u.Object, int64(27), "spec", "blockSize")
		return cl.Update(ctx, u)
	})
	u := get(t, pool)
	_ = unstructured.SetNestedField(u.Object, true, "spec", "disabled")
	if err := cl.Update(ctx, u); err != nil {
		t.Errorf("disabling an IPPool (cidr and blockSize unchanged): %v", err)
	}
	refusedWith(t, "an IPPool with ipipMode never (the enum is case-sensitive)", "spec.ipipMode", func() error {
		return cl.Create(ctx, calicoObject("IPPool", "", "lower-case", map[string]any{"cidr": "10.11.0.0/16", "ipipMode": "never"}), client.DryRunAll)
	})
	refusedWith(t, "FelixConfiguration with routeTableRange and routeTableRanges", "routeTableRange and routeTableRanges cannot both be set", func() error {
		return cl.Create(ctx, calicoObject("FelixConfiguration", "", "both-ranges", map[string]any{
			"routeTableRange":  map[string]any{"min": int64(1), "max": int64(250)},
			"routeTableRanges": []any{map[string]any{"min": int64(1), "max": int64(250)}},
		}), client.DryRunAll)
	})
	refusedWith(t, "a NetworkPolicy rule with destination services and ports", "destination services cannot be combined with ports or notPorts", func() error {
		return cl.Create(ctx, calicoObject("NetworkPolicy", "default", "services-and-ports", map[string]any{
			"egress": []any{map[string]any{"action": "Allow", "protocol": "TCP", "destination": map[string]any{
				"services": map[string]any{"name": "kubernetes", "namespace": "default"}, "ports": []any{int64(443)},
			}}},
		}), client.DryRunAll)
	})
	// §2.4 ratcheting: iptablesBackend "auto" (now outside the case-sensitive enum) stays through an
	// update that leaves it alone, and is refused on a new object.
	f := get(t, felix)
	_ = unstructured.SetNestedField(f.Object, true, "spec", "bpfEnabled")
	if err := cl.Update(ctx, f); err != nil {
		t.Errorf("updating a FelixConfiguration that kept v3.31's iptablesBackend \"auto\": %v", err)
	}
	refusedWith(t, "a new FelixConfiguration with iptablesBackend auto", "spec.iptablesBackend", func() error {
		return cl.Create(ctx, calicoObject("FelixConfiguration", "", "node.lower-case", map[string]any{"iptablesBackend": "auto"}), client.DryRunAll)
	})

	// §0 row 4: status goes through /status only.
	k := get(t, kcc)
	_ = unstructured.SetNestedField(k.Object, "Debug", "status", "runningConfig", "logSeverityScreen")
	if err := cl.Update(ctx, k); err != nil {
		t.Fatalf("updating KubeControllersConfiguration: %v", err)
	}
	if got := field(t, get(t, kcc), "status", "runningConfig", "logSeverityScreen"); got != "Info" {
		t.Errorf("a status change through the main resource was stored (%v): the v3.32 CRD must have the status subresource", got)
	}
	k = get(t, kcc)
	_ = unstructured.SetNestedField(k.Object, "Debug", "status", "runningConfig", "logSeverityScreen")
	_ = unstructured.SetNestedField(k.Object, "Enabled", "status", "runningConfig", "controllers", "policyMigration", "enabled")
	if err := cl.Status().Update(ctx, k); err != nil {
		t.Fatalf("updating KubeControllersConfiguration status through /status: %v", err)
	}
	gotK := get(t, kcc)
	if field(t, gotK, "status", "runningConfig", "logSeverityScreen") != "Debug" || field(t, gotK, "status", "runningConfig", "controllers", "policyMigration", "enabled") != "Enabled" {
		t.Errorf("status written through /status reads %v", gotK.Object["status"])
	}

	// Every Calico object calico-pilot renders at a release of the v3.32 line, or in a move step on
	// the v3.32 CRDs, is accepted.
	accepted := 0
	for _, sc := range rendertest.AtEveryRelease() {
		if sc.Deployment().CRDs.Line() != v332.Line() {
			continue
		}
		objs, err := sc.Unstructured()
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			gv, _ := schema.ParseGroupVersion(o.GetAPIVersion())
			if gv.Group != "crd.projectcalico.org" && gv.Group != "policy.networking.k8s.io" {
				continue
			}
			o.SetResourceVersion("")
			if err := cl.Create(ctx, o, client.DryRunAll); err != nil && !apierrors.IsAlreadyExists(err) {
				t.Errorf("scenario %s: %s %s refused: %v", sc.Name, o.GetKind(), o.GetName(), err)
			}
			accepted++
		}
	}
	if accepted == 0 {
		t.Error("no Calico object rendered at v3.32")
	}
	t.Logf("%d rendered Calico objects accepted by the v3.32 CRDs", accepted)
}
