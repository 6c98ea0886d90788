package pools

import (
	"context"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
)

// TestPoolsMigrateKeepsAPoolSmallerThanItsBlock is issue 21 finding 1 against a real API server:
// pool "old" 10.0.0.0/28 with blockSize 26, one IPAMBlock 10.0.0.0/26 holding a tunnel address
// (10.0.0.0) and a pod (10.0.0.1). pools migrate --delete-old said "0 block(s)" and deleted it.
func TestPoolsMigrateKeepsAPoolSmallerThanItsBlock(t *testing.T) {
	reset(t)
	kc := kubeconfig(t)
	create(t, ippool("old", "10.0.0.0/28", false), ippool("new-pool", "10.1.0.0/16", false),
		ipamBlock("10-0-0-0-26", "10.0.0.0/26", "node-a", "default/web-1"))
	code, out, errOut := run(t, "pools", "migrate", "--from", "old", "--to", "new-pool", "--kubeconfig", kc, "--delete-old")
	want := `IP pool "old" still holds 2 address(es) (1 pod(s), 1 tunnel address(es)) on 1 node(s)`
	if code != 1 || !strings.Contains(out, "census of old (10.0.0.0/28): 1 block(s), 1 pod(s), 1 tunnel address(es), 0 other\n  node-a: 1 block(s), 1 pod(s), 1 tunnel address(es): default/web-1\n") || !strings.Contains(errOut, want) {
		t.Fatalf("exit %d, out:\n%s\nstderr: %s", code, out, errOut)
	}
	if p := getPool(t, "old"); p == nil || !p.Spec.Disabled {
		t.Fatalf("old pool after the refused delete: %+v (want it kept, disabled)", p)
	}

	// plan's removal blocker sees the same addresses.
	code, out, _ = run(t, "plan", "--current", writeFile(t, "cur", strings.Replace(planPoolPlain, `"name":"default-ipv4-ippool"`, `"name":"old"`, 1)),
		"--target", writeFile(t, "tgt", planOtherConfig), "--kubeconfig", kc, "--allow-disruption")
	if code != 1 || !strings.Contains(out, "IP pool old (10.0.0.0/28) would be deleted by the resource manager but still holds 2 address(es) (1 pod(s), 1 tunnel address(es)) on 1 node(s)") {
		t.Fatalf("plan: exit %d, out:\n%s", code, out)
	}
}

// TestPlanBlocksWhenTheCensusCannotRun is issue 21 finding 2: an unrelated IPAMBlock with
// `cidr: bad` made plan drop the census error and report no blocker, exit 0.
func TestPlanBlocksWhenTheCensusCannotRun(t *testing.T) {
	reset(t)
	kc := kubeconfig(t)
	bad := ipamBlock("broken", "bad", "node-b")
	create(t, ippool("default-ipv4-ippool", "192.168.0.0/16", false), ipamBlock("192-168-1-0-26", "192.168.1.0/26", "node-a", "default/web-1"), bad)
	code, out, _ := run(t, "plan", "--current", writeFile(t, "cur", planPoolPlain), "--target", writeFile(t, "tgt", planOtherConfig), "--kubeconfig", kc, "--allow-disruption")
	want := `IP pool default-ipv4-ippool (192.168.0.0/16) would be deleted by the resource manager, and its allocations could not be counted: IPAM block broken: spec.cidr "bad"`
	if code != 1 || !strings.Contains(out, want) {
		t.Fatalf("exit %d, out:\n%s", code, out)
	}
	// pools migrate refuses the same cluster with exit 2 and writes nothing.
	create(t, ippool("new-pool", "10.1.0.0/16", false))
	code, _, errOut := run(t, "pools", "migrate", "--from", "default-ipv4-ippool", "--to", "new-pool", "--kubeconfig", kc, "--delete-old")
	if code != 2 || !strings.Contains(errOut, `IPAM block broken: spec.cidr "bad"`) {
		t.Fatalf("pools migrate: exit %d, stderr %s", code, errOut)
	}
	if getPool(t, "default-ipv4-ippool").Spec.Disabled {
		t.Fatal("pools migrate wrote although the census could not run")
	}
}

// TestPoolsMigrateRefusesAPoolThatCannotServePods is issue 21 finding 4 against a real API server:
// each of these new pools was accepted and the old pool disabled.
func TestPoolsMigrateRefusesAPoolThatCannotServePods(t *testing.T) {
	kc := kubeconfig(t)
	manual := calicov1.AssignmentModeManual
	tests := []struct {
		name string
		mut  func(*calicov1.IPPool)
		want string
	}{
		{"! all()", func(p *calicov1.IPPool) { p.Spec.NodeSelector = "! all()" }, `spec.nodeSelector "! all()" matches no node`},
		{"(!all())", func(p *calicov1.IPPool) { p.Spec.NodeSelector = "(!all())" }, `spec.nodeSelector "(!all())" matches no node`},
		{"contradiction", func(p *calicov1.IPPool) { p.Spec.NodeSelector = "a == 'x' && a == 'y'" }, `spec.nodeSelector "a == 'x' && a == 'y'" matches no node`},
		{"invalid selector", func(p *calicov1.IPPool) { p.Spec.NodeSelector = "a === 'x'" }, `spec.nodeSelector "a === 'x'" is not a valid selector`},
		{"allowedUses Tunnel", func(p *calicov1.IPPool) { p.Spec.AllowedUses = []calicov1.IPPoolAllowedUse{"Tunnel"} }, `spec.allowedUses [Tunnel] does not include Workload`},
		{"assignmentMode Manual", func(p *calicov1.IPPool) { p.Spec.AssignmentMode = &manual }, `spec.assignmentMode is Manual`},
		{"namespaceSelector !all()", func(p *calicov1.IPPool) { p.Spec.NamespaceSelector = "!all()" }, `spec.namespaceSelector "!all()" matches no namespace`},
		{"/28 with blockSize 26", func(p *calicov1.IPPool) { p.Spec.CIDR = "10.1.0.0/28" }, `spec.cidr 10.1.0.0/28 is smaller than one block (spec.blockSize 26)`},
		{"blockSize 100", func(p *calicov1.IPPool) { p.Spec.BlockSize = 100 }, `spec.blockSize 100 is out of range: Calico accepts 20..32 for an IPv4 pool`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reset(t)
			np := ippool("new-pool", "10.1.0.0/16", false)
			tt.mut(np)
			create(t, ippool("default-ipv4-ippool", "192.168.0.0/16", false), np)
			code, _, errOut := run(t, "pools", "migrate", "--from", "default-ipv4-ippool", "--to", "new-pool", "--kubeconfig", kc)
			if code != 2 || !strings.Contains(errOut, `error: IP pool "new-pool" (--to) cannot take the pods: `+tt.want) {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			if getPool(t, "default-ipv4-ippool").Spec.Disabled {
				t.Fatal("the old pool was disabled although the new one cannot serve pods")
			}
		})
	}
}

// TestPoolsMigrateTypoInFrom is issue 21 finding 5: --from olld (or OLD) printed "nothing left to
// do", exit 0, while the real pool stayed enabled.
func TestPoolsMigrateTypoInFrom(t *testing.T) {
	reset(t)
	kc := kubeconfig(t)
	create(t, ippool("old", "192.168.0.0/16", false), ippool("new-pool", "10.1.0.0/16", false),
		ipamBlock("192-168-1-0-26", "192.168.1.0/26", "node-a", "default/web-1"))
	for _, from := range []string{"olld", "OLD"} {
		code, out, errOut := run(t, "pools", "migrate", "--from", from, "--to", "new-pool", "--kubeconfig", kc, "--delete-old")
		want := `error: IP pool "` + from + `" (--from) does not exist (did you mean "old"?); the cluster's pools: new-pool, old`
		if code != 2 || out != "" || !strings.HasPrefix(errOut, want) {
			t.Fatalf("--from %s: exit %d, out %q, stderr %q", from, code, out, errOut)
		}
	}
	if getPool(t, "old").Spec.Disabled {
		t.Fatal("a typo wrote")
	}
}

// TestPoolsMigrateDeletesAnEnabledEmptyPoolInOneRun is issue 21 finding 6: the delete used the
// resourceVersion read before the run's own disable patch and failed with a conflict, exit 2.
func TestPoolsMigrateDeletesAnEnabledEmptyPoolInOneRun(t *testing.T) {
	reset(t)
	kc := kubeconfig(t)
	create(t, ippool("old", "192.168.0.0/16", false), ippool("new-pool", "10.1.0.0/16", false))
	code, out, errOut := run(t, "pools", "migrate", "--from", "old", "--to", "new-pool", "--kubeconfig", kc, "--delete-old")
	if code != 0 || !strings.Contains(out, "disable old: done\ndelete old: done\n") {
		t.Fatalf("exit %d, out:\n%s\nstderr: %s", code, out, errOut)
	}
	if getPool(t, "old") != nil {
		t.Fatal("old pool still there")
	}
	// The new pool is untouched.
	var np calicov1.IPPool
	if err := clusterClient(t).Get(context.Background(), client.ObjectKey{Name: "new-pool"}, &np); err != nil || np.Spec.Disabled {
		t.Fatalf("new pool: %+v, %v", np.Spec, err)
	}
}
