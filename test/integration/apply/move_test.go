package apply

import (
	"context"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
)

func tag(image string) string { return image[strings.LastIndex(image, ":")+1:] }

// TestApplyUpgradeAndDowngradeKeepOwnersDisabledPool is the way back from projectcalico/calico#9100 without deleting
// Calico: the owner disables the pool apply created; an upgrade to the next line and a downgrade
// back move every component in Calico's order, each step waited for, and the pool stays disabled;
// the CRDs stay at the newer line after going down. Without --calico-version nothing moves.
func TestApplyUpgradeAndDowngradeKeepOwnersDisabledPool(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	ctx := context.Background()
	if code, out, errOut := cl.apply(ctx, minimalFile); code != 0 {
		t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
	}
	pool := cl.state().Pools[0].Name
	if err := cl.c.Patch(ctx, &calicov1.IPPool{ObjectMeta: metaName(pool)}, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"disabled":true}}`))); err != nil {
		t.Fatal(err)
	}

	// A plain apply keeps the release and the owner's disable.
	code, out, errOut := cl.apply(ctx, minimalFile)
	if code != 0 || !strings.Contains(out, "PoolDisabledByOwner") && !strings.Contains(out, "disabled") {
		t.Fatalf("re-apply: exit %d\n%s\n%s", code, out, errOut)
	}
	if !cl.pool(pool).Spec.Disabled || cl.state().Release != "v3.31.7" {
		t.Fatalf("re-apply changed the pool or the release: disabled %v, release %s", cl.pool(pool).Spec.Disabled, cl.state().Release)
	}

	// Up a line: calico-node first, then Typha and kube-controllers.
	code, out, errOut = cl.apply(ctx, minimalFile, "--calico-version", "v3.32")
	if code != 0 {
		t.Fatalf("upgrade: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"step First of the move v3.31.7 -> v3.32.1: calico-node",
		"step Complete of the move v3.31.7 -> v3.32.1: every component",
		"applied: Calico v3.32.1 runs on every component (CRDs of v3.32.1)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("upgrade output lacks %q:\n%s", want, out)
		}
	}
	if i, j := strings.Index(out, "step First"), strings.Index(out, "step Complete"); i < 0 || j < i || !strings.Contains(out[i:j], "rolled out: calico-node") {
		t.Errorf("the first step was not waited for before the second:\n%s", out)
	}
	if got := tag(cl.image("DaemonSet", "calico-node", "calico-node")); got != "v3.32.1" {
		t.Errorf("calico-node runs %s after the upgrade", got)
	}
	if got := tag(cl.image("Deployment", "calico-typha-deploy", "calico-typha")); got != "v3.32.1" {
		t.Errorf("typha runs %s after the upgrade", got)
	}
	if !cl.pool(pool).Spec.Disabled {
		t.Fatal("the upgrade re-enabled the owner's disabled pool")
	}
	crdsAfterUp := crdNames(t, cl)

	// A ClusterNetworkPolicy, which v3.31 does not enforce, blocks the way back until accepted.
	cnp := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "policy.networking.k8s.io/v1alpha2", "kind": "ClusterNetworkPolicy",
		"metadata": map[string]any{"name": "deny-all-admin"},
		"spec":     map[string]any{"tier": "Admin", "priority": int64(10), "subject": map[string]any{"namespaces": map[string]any{}}},
	}}
	if err := cl.c.Create(ctx, cnp); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = cl.apply(ctx, minimalFile, "--calico-version", "v3.31.7")
	if code != 1 || !strings.Contains(out, "Calico down.cluster-network-policy: ClusterNetworkPolicy objects are not enforced by v3.31") ||
		!strings.Contains(errOut, `1 blocker(s) refuse the apply (listed above): nothing was changed; after reading them, accept one with --accept-blocker "Calico down.cluster-network-policy"`) {
		t.Fatalf("blocked downgrade: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if got := tag(cl.image("Deployment", "calico-typha-deploy", "calico-typha")); got != "v3.32.1" {
		t.Fatalf("the refused downgrade moved typha to %s", got)
	}

	// Down again, the blocker accepted: Typha and kube-controllers first, then calico-node; the
	// CRDs stay.
	code, out, errOut = cl.apply(ctx, minimalFile, "--calico-version", "v3.31.7", "--accept-blocker", "Calico down.cluster-network-policy")
	if code != 0 {
		t.Fatalf("downgrade: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"step First of the move v3.32.1 -> v3.31.7: calico-typha and calico-kube-controllers",
		"applied: Calico v3.31.7 runs on every component (CRDs of v3.32.1)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("downgrade output lacks %q:\n%s", want, out)
		}
	}
	if got := tag(cl.image("DaemonSet", "calico-node", "calico-node")); got != "v3.31.7" {
		t.Errorf("calico-node runs %s after the downgrade", got)
	}
	if !cl.pool(pool).Spec.Disabled {
		t.Fatal("the downgrade re-enabled the owner's disabled pool")
	}
	if st := cl.state(); st.Release != "v3.31.7" || st.CRDRelease != "v3.32.1" || st.Move != nil {
		t.Errorf("state after the downgrade: %+v", st)
	}
	if got := crdNames(t, cl); len(got) < len(crdsAfterUp) {
		t.Errorf("the downgrade removed CRDs: %d before, %d after", len(crdsAfterUp), len(got))
	}
}

func crdNames(t *testing.T, cl *cluster) []string {
	t.Helper()
	var list apiextensionsv1.CustomResourceDefinitionList
	if err := cl.c.List(context.Background(), &list); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range list.Items {
		out = append(out, c.Name)
	}
	return out
}
