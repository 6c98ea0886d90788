package pools

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func calicoNode(release string) string {
	return `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"calico-node","namespace":"kube-system"},"spec":{"selector":{"matchLabels":{"k8s-app":"calico-node"}},` +
		`"template":{"metadata":{"labels":{"k8s-app":"calico-node"}},"spec":{"containers":[{"name":"calico-node","image":"quay.io/calico/node:` + release + `"}]}}}}`
}

// TestPlanCalicoMoveLiveChecks: the facts of a move between Calico lines checked against a real API
// server's objects through --kubeconfig: a policy whose stored name puts it in another tier under
// v3.31 blocks going back and is named; a kind the cluster does not serve (ClusterNetworkPolicy, no
// CRD) has no objects rather than failing the plan.
func TestPlanCalicoMoveLiveChecks(t *testing.T) {
	kc := kubeconfig(t)
	c := clusterClient(t)
	ctx := context.Background()
	for _, o := range []map[string]any{
		{"apiVersion": "crd.projectcalico.org/v1", "kind": "Tier", "metadata": map[string]any{"name": "security"}, "spec": map[string]any{"order": 100.0}},
		{"apiVersion": "crd.projectcalico.org/v1", "kind": "GlobalNetworkPolicy", "metadata": map[string]any{"name": "allow-dns"}, "spec": map[string]any{"tier": "security", "selector": "all()"}},
		{"apiVersion": "crd.projectcalico.org/v1", "kind": "GlobalNetworkPolicy", "metadata": map[string]any{"name": "security.allow-ntp"}, "spec": map[string]any{"tier": "security", "selector": "all()"}},
		{"apiVersion": "crd.projectcalico.org/v1", "kind": "NetworkPolicy", "metadata": map[string]any{"name": "default.allow-web", "namespace": "default"}, "spec": map[string]any{"tier": "default", "selector": "all()"}},
	} {
		u := &unstructured.Unstructured{Object: o}
		if err := c.Create(ctx, u); err != nil {
			t.Fatalf("creating %s %s: %v", u.GetKind(), u.GetName(), err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), u) })
	}
	cur, tgt := writeFile(t, "cur", calicoNode("v3.32.1")), writeFile(t, "tgt", calicoNode("v3.31.6"))
	code, out, errOut := run(t, "plan", "--current", cur, "--target", tgt, "--kubeconfig", kc)
	if code != 1 || strings.TrimSpace(errOut) != "error: 1 blocker(s): the change is refused" {
		t.Fatalf("exit %d, %q\n%s", code, errOut, out)
	}
	for _, want := range []string{
		"Calico: v3.32 (v3.32.1) -> v3.31 (v3.31.6) (downgrade)",
		"  Calico down.policy-tiers: policies whose stored name does not start with their tier run in another tier under v3.31: 1 object(s): " +
			"GlobalNetworkPolicy.crd.projectcalico.org allow-dns: in tier security, v3.31 runs it in tier default; recreate each as <tier>.<name>",
		// --target gives no Shoot: the Kubernetes version is not known.
		"[kubernetes-range] (not checked: the shoot's Kubernetes version is unknown)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	for _, absent := range []string{"[down.cluster-network-policy]", "security.allow-ntp", "needs --kubeconfig"} {
		if strings.Contains(out, absent) {
			t.Errorf("plan names %q:\n%s", absent, out)
		}
	}

	// Going up, the default-tier policy stored as default.allow-web will be renamed.
	code, out, errOut = run(t, "plan", "--current", tgt, "--target", cur, "--kubeconfig", kc)
	if code != 0 || !strings.Contains(out, "[up.policy-name-migration]: 1 object(s)\n          NetworkPolicy.crd.projectcalico.org default/default.allow-web: will be renamed to allow-web") {
		t.Errorf("up: exit %d, %q\n%s", code, errOut, out)
	}
}
