package pools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	planPoolIgnored = `{"apiVersion":"crd.projectcalico.org/v1","kind":"IPPool","metadata":{"annotations":{"resources.gardener.cloud/mode":"Ignore"},"name":"default-ipv4-ippool"},"spec":{"blockSize":26,"cidr":"192.168.0.0/16","ipipMode":"Always","natOutgoing":true,"nodeSelector":"all()","vxlanMode":"Never"}}`
	planPoolPlain   = `{"apiVersion":"crd.projectcalico.org/v1","kind":"IPPool","metadata":{"name":"default-ipv4-ippool"},"spec":{"blockSize":26,"cidr":"192.168.0.0/16","ipipMode":"Always","natOutgoing":true,"nodeSelector":"all()","vxlanMode":"Never"}}`
	planOtherConfig = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"kube-system"},"data":{"a":"b"}}`
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlanLiveBlockers: the blockers that need the live cluster, read through --kubeconfig from
// real IPPool and IPAMBlock objects.
func TestPlanLiveBlockers(t *testing.T) {
	kc := kubeconfig(t)
	reset(t)
	create(t, ippool("default-ipv4-ippool", "192.168.0.0/16", true),
		ipamBlock("192-168-1-0-26", "192.168.1.0/26", "node-a", "default/web-1"))

	// A target that lists the owner's disabled pool as a plain resource-manager object.
	code, out, _ := run(t, "plan", "--current", writeFile(t, "cur", planPoolIgnored), "--target", writeFile(t, "tgt", planPoolPlain), "--kubeconfig", kc)
	want := "IP pool default-ipv4-ippool is disabled in the cluster, and the target lists it enabled as a resource-manager object: the next sync would re-enable it; keep the owner's disable (resources.gardener.cloud/mode: Ignore, as calico-pilot renders pools)"
	if code != 1 || !strings.Contains(out, want) {
		t.Fatalf("re-enable: exit %d, out:\n%s", code, out)
	}

	// Removing a plain pool that still holds addresses.
	code, out, _ = run(t, "plan", "--current", writeFile(t, "cur", planPoolPlain), "--target", writeFile(t, "tgt", planOtherConfig), "--kubeconfig", kc, "--allow-disruption")
	want = "IP pool default-ipv4-ippool (192.168.0.0/16) would be deleted by the resource manager but still holds 2 address(es) (1 pod(s), 1 tunnel address(es)) on 1 node(s); drain it first (calico-pilot pools migrate)"
	if code != 1 || !strings.Contains(out, want) {
		t.Fatalf("removal with allocations: exit %d, out:\n%s", code, out)
	}

	// Releasing it (calico-pilot's own rendering) is neither.
	code, out, _ = run(t, "plan", "--current", writeFile(t, "cur", planPoolPlain), "--target", writeFile(t, "tgt", planPoolIgnored), "--kubeconfig", kc)
	if code != 0 || strings.Contains(out, "blockers:") {
		t.Fatalf("release: exit %d, out:\n%s", code, out)
	}
	// Unchanged: no changes.
	code, out, _ = run(t, "plan", "--current", writeFile(t, "cur", planPoolIgnored), "--target", writeFile(t, "tgt", planPoolIgnored), "--kubeconfig", kc)
	if code != 0 || !strings.HasPrefix(out, "no changes") {
		t.Fatalf("unchanged: exit %d, out:\n%s", code, out)
	}
}
