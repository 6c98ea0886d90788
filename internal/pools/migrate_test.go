package pools

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
)

func ip(i int) *int { return &i }

// block builds an IPAM block with a pod per entry of pods ("ns/name") and optionally a tunnel address.
func block(cidr, node string, tunnel bool, pods ...string) calicov1.IPAMBlock {
	aff := "host:" + node
	b := calicov1.IPAMBlock{ObjectMeta: metav1.ObjectMeta{Name: node + "-" + cidr}, Spec: calicov1.IPAMBlockSpec{CIDR: cidr, Affinity: &aff}}
	b.Spec.Allocations = make([]*int, 4)
	n := 0
	if tunnel {
		b.Spec.Attributes = append(b.Spec.Attributes, calicov1.AllocationAttribute{Secondary: map[string]string{"node": node, "type": "ipipTunnelAddress"}})
		b.Spec.Allocations[n] = ip(n)
		n++
	}
	for _, p := range pods {
		ns, name, _ := cut(p)
		b.Spec.Attributes = append(b.Spec.Attributes, calicov1.AllocationAttribute{Secondary: map[string]string{"namespace": ns, "pod": name, "node": node}})
		b.Spec.Allocations[n] = ip(n)
		n++
	}
	return b
}

func cut(s string) (string, string, bool) {
	for i := range s {
		if s[i] == '/' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func TestTakeCensus(t *testing.T) {
	old := pool("old", "192.168.0.0/16")
	blocks := []calicov1.IPAMBlock{
		block("192.168.1.0/26", "node-a", true, "default/web-1", "kube-system/dns-0"),
		block("192.168.2.0/26", "node-b", false, "default/web-2"),
		block("10.244.0.0/26", "node-a", true, "default/web-3"), // the new pool's block
	}
	got, err := TakeCensus(&old, blocks)
	if err != nil {
		t.Fatal(err)
	}
	want := Census{Pool: "old", CIDR: "192.168.0.0/16", Blocks: 2, Workloads: 3, Tunnels: 1, Nodes: []NodeCensus{
		{Node: "node-a", Blocks: 1, Workloads: 2, Tunnels: 1, Pods: []string{"default/web-1", "kube-system/dns-0"}},
		{Node: "node-b", Blocks: 1, Workloads: 1, Pods: []string{"default/web-2"}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("census (-want +got):\n%s", diff)
	}
}

func TestPlanMigration(t *testing.T) {
	oldPool := pool("default-ipv4-ippool", "192.168.0.0/16")
	newPool := pool("new-pool", "10.244.0.0/16")
	busy := []calicov1.IPAMBlock{block("192.168.1.0/26", "node-a", true, "default/web-1")}
	tests := []struct {
		name      string
		in        MigrationInput
		wantSteps []MigrationStep
		wantDone  bool
		blocked   string
		inputErr  string
	}{{
		name:      "first run disables the old pool",
		in:        MigrationInput{From: "default-ipv4-ippool", To: "new-pool", Pools: []calicov1.IPPool{oldPool, newPool}, Blocks: busy, ClusterCIDRs: []string{"10.0.0.0/8", "192.168.0.0/16"}},
		wantSteps: []MigrationStep{StepDisableOld},
	}, {
		name:     "second run after the disable has nothing left",
		in:       MigrationInput{From: "default-ipv4-ippool", To: "new-pool", Pools: []calicov1.IPPool{pool("default-ipv4-ippool", "192.168.0.0/16", disabled), newPool}, Blocks: busy},
		wantDone: true,
	}, {
		name:      "delete with allocations left is refused, the disable still happens",
		in:        MigrationInput{From: "default-ipv4-ippool", To: "new-pool", Pools: []calicov1.IPPool{oldPool, newPool}, Blocks: busy, DeleteOld: true},
		wantSteps: []MigrationStep{StepDisableOld},
		blocked:   `IP pool "default-ipv4-ippool" still holds 2 address(es) (1 pod(s), 1 tunnel address(es)) on 1 node(s): recreate those pods (and let calico-node move its tunnel address) and run again; it is not deleted`,
	}, {
		name:      "delete of an empty disabled pool",
		in:        MigrationInput{From: "default-ipv4-ippool", To: "new-pool", Pools: []calicov1.IPPool{pool("default-ipv4-ippool", "192.168.0.0/16", disabled), newPool}, DeleteOld: true},
		wantSteps: []MigrationStep{StepDeleteOld},
	}, {
		name:     "old pool gone: done",
		in:       MigrationInput{From: "default-ipv4-ippool", To: "new-pool", Pools: []calicov1.IPPool{newPool}, DeleteOld: true},
		wantDone: true,
	}, {
		name:     "new pool missing",
		in:       MigrationInput{From: "default-ipv4-ippool", To: "new-pool", Pools: []calicov1.IPPool{oldPool}},
		inputErr: `IP pool "new-pool" (--to) does not exist: create the new pool first (kubectl apply), then run pools migrate`,
	}, {
		name:     "new pool overlaps another pool",
		in:       MigrationInput{From: "default-ipv4-ippool", To: "new-pool", Pools: []calicov1.IPPool{oldPool, pool("new-pool", "192.168.128.0/17")}},
		inputErr: `IP pool "new-pool" (192.168.128.0/17) overlaps IP pool "default-ipv4-ippool" (192.168.0.0/16): pools must not overlap`,
	}, {
		name:     "new pool outside the cluster's pod range",
		in:       MigrationInput{From: "default-ipv4-ippool", To: "new-pool", Pools: []calicov1.IPPool{oldPool, newPool}, ClusterCIDRs: []string{"192.168.0.0/16", "fd00::/48"}},
		inputErr: `IP pool "new-pool" (10.244.0.0/16) is not inside the cluster's pod range 192.168.0.0/16: traffic from its pods would be NATed or dropped; choose a CIDR inside it`,
	}, {
		name:     "new pool disabled",
		in:       MigrationInput{From: "default-ipv4-ippool", To: "new-pool", Pools: []calicov1.IPPool{oldPool, pool("new-pool", "10.244.0.0/16", disabled)}},
		inputErr: `IP pool "new-pool" (--to) is disabled: new pods could get no address; enable it first`,
	}, {
		name:     "different families",
		in:       MigrationInput{From: "default-ipv4-ippool", To: "v6", Pools: []calicov1.IPPool{oldPool, pool("v6", "fd00::/48", noEncap)}},
		inputErr: `IP pool "default-ipv4-ippool" (192.168.0.0/16) and "v6" (fd00::/48) are of different IP families: a migration moves pods within one family`,
	}, {
		name:     "same pool twice",
		in:       MigrationInput{From: "a", To: "a"},
		inputErr: `--from and --to are both "a": name two different IP pools`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := PlanMigration(tt.in)
			if tt.inputErr != "" {
				var ie *InputError
				if !errors.As(err, &ie) || err.Error() != tt.inputErr {
					t.Fatalf("error = %v, want input error %q", err, tt.inputErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantSteps, plan.Steps); diff != "" {
				t.Errorf("steps (-want +got):\n%s", diff)
			}
			if plan.Done != tt.wantDone || plan.Blocked != tt.blocked {
				t.Errorf("done=%v blocked=%q, want done=%v blocked=%q", plan.Done, plan.Blocked, tt.wantDone, tt.blocked)
			}
		})
	}
}
