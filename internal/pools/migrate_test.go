package pools

import (
	"errors"
	"net/netip"
	"strings"
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
		name:     "old pool gone: bad input that says an earlier delete finished the migration",
		in:       MigrationInput{From: "default-ipv4-ippool", To: "new-pool", Pools: []calicov1.IPPool{newPool}, DeleteOld: true},
		inputErr: `IP pool "default-ipv4-ippool" (--from) does not exist; the cluster's pools: new-pool (if an earlier pools migrate --delete-old deleted it, the migration is finished)`,
	}, {
		// Issue 21 finding 5: a typo was "nothing left to do", exit 0.
		name:     "a typo in --from",
		in:       MigrationInput{From: "olld", To: "new-pool", Pools: []calicov1.IPPool{pool("old", "192.168.0.0/16"), newPool}},
		inputErr: `IP pool "olld" (--from) does not exist (did you mean "old"?); the cluster's pools: new-pool, old (if an earlier pools migrate --delete-old deleted it, the migration is finished)`,
	}, {
		name:     "another case in --from",
		in:       MigrationInput{From: "OLD", To: "new-pool", Pools: []calicov1.IPPool{pool("old", "192.168.0.0/16"), newPool}},
		inputErr: `IP pool "OLD" (--from) does not exist (did you mean "old"?); the cluster's pools: new-pool, old (if an earlier pools migrate --delete-old deleted it, the migration is finished)`,
	}, {
		name:     "a typo in --to",
		in:       MigrationInput{From: "default-ipv4-ippool", To: "new-pol", Pools: []calicov1.IPPool{oldPool, newPool}},
		inputErr: `IP pool "new-pol" (--to) does not exist (did you mean "new-pool"?): create the new pool first (kubectl apply), then run pools migrate`,
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

// TestCheckServesPods is issue 21 finding 4: pools migrate accepted a --to pool that cannot serve
// pods (only the exact string "!all()" was refused) and then disabled the old one.
func TestCheckServesPods(t *testing.T) {
	manual, bogus := calicov1.AssignmentModeManual, calicov1.AssignmentMode("Sometimes")
	tests := []struct {
		name string
		cidr string
		mut  func(*calicov1.IPPoolSpec)
		want string // "" = accepted
	}{
		{"a plain pool", "10.244.0.0/16", func(*calicov1.IPPoolSpec) {}, ""},
		{"a node selector for some nodes", "10.244.0.0/16", func(s *calicov1.IPPoolSpec) { s.NodeSelector = "zone == 'a'" }, ""},
		{"unset selectors, allowedUses with Workload, Automatic", "10.244.0.0/16", func(s *calicov1.IPPoolSpec) {
			s.NodeSelector, s.AllowedUses = "", []calicov1.IPPoolAllowedUse{"Tunnel", "Workload"}
			a := calicov1.AssignmentModeAutomatic
			s.AssignmentMode = &a
		}, ""},
		{"an IPv6 pool", "fd00:10::/64", func(s *calicov1.IPPoolSpec) { s.BlockSize, s.IPIPMode, s.VXLANMode = 122, "Never", "Always" }, ""},
		{"!all() with spaces", "10.244.0.0/16", func(s *calicov1.IPPoolSpec) { s.NodeSelector = " ! all( ) " },
			`spec.nodeSelector " ! all( ) " matches no node (!all() matches nothing): no pod gets an address from it`},
		{"(!all())", "10.244.0.0/16", func(s *calicov1.IPPoolSpec) { s.NodeSelector = "(!all())" },
			`spec.nodeSelector "(!all())" matches no node (!all() matches nothing): no pod gets an address from it`},
		{"a contradiction", "10.244.0.0/16", func(s *calicov1.IPPoolSpec) { s.NodeSelector = "a == 'x' && a == 'y'" },
			`spec.nodeSelector "a == 'x' && a == 'y'" matches no node (a == 'x' && a == 'y' cannot all hold (no value of label a satisfies them)): no pod gets an address from it`},
		{"an invalid selector", "10.244.0.0/16", func(s *calicov1.IPPoolSpec) { s.NodeSelector = "a == " },
			`spec.nodeSelector "a == " is not a valid selector (column 6: unexpected end of selector, expected a quoted value after ==): Calico rejects the pool`},
		{"namespaceSelector !all()", "10.244.0.0/16", func(s *calicov1.IPPoolSpec) { s.NamespaceSelector = "!all()" },
			`spec.namespaceSelector "!all()" matches no namespace (!all() matches nothing): no pod gets an address from it`},
		{"allowedUses Tunnel only", "10.244.0.0/16", func(s *calicov1.IPPoolSpec) { s.AllowedUses = []calicov1.IPPoolAllowedUse{"Tunnel"} },
			`spec.allowedUses [Tunnel] does not include Workload: Calico gives pods no address from it; add Workload (or leave allowedUses unset)`},
		{"an unknown use", "10.244.0.0/16", func(s *calicov1.IPPoolSpec) { s.AllowedUses = []calicov1.IPPoolAllowedUse{"Workload", "Pods"} },
			`spec.allowedUses: "Pods" is not a use Calico knows; accepted are Workload, Tunnel and LoadBalancer`},
		{"assignmentMode Manual", "10.244.0.0/16", func(s *calicov1.IPPoolSpec) { s.AssignmentMode = &manual },
			`spec.assignmentMode is Manual: Calico assigns from it only to pods that name the pool in an annotation; set Automatic (or leave it unset)`},
		{"an unknown assignmentMode", "10.244.0.0/16", func(s *calicov1.IPPoolSpec) { s.AssignmentMode = &bogus },
			`spec.assignmentMode "Sometimes": accepted are Automatic and Manual`},
		{"a /28 with blockSize 26", "10.244.0.0/28", func(*calicov1.IPPoolSpec) {},
			`spec.cidr 10.244.0.0/28 is smaller than one block (spec.blockSize 26): Calico IPAM needs a pool of at least /26; use a larger CIDR or a smaller block`},
		{"blockSize 100", "10.244.0.0/16", func(s *calicov1.IPPoolSpec) { s.BlockSize = 100 },
			`spec.blockSize 100 is out of range: Calico accepts 20..32 for an IPv4 pool`},
		{"blockSize unset", "10.244.0.0/16", func(s *calicov1.IPPoolSpec) { s.BlockSize = 0 },
			`spec.blockSize is not set, and crd.projectcalico.org/v1 applies no default; set it (20..32 for this family, Calico's default is 26)`},
		{"IPv6 blockSize 26", "fd00:10::/64", func(s *calicov1.IPPoolSpec) { s.IPIPMode = "Never" },
			`spec.blockSize 26 is out of range: Calico accepts 116..128 for an IPv6 pool`},
		{"IPIP on IPv6", "fd00:10::/64", func(s *calicov1.IPPoolSpec) { s.BlockSize = 122 },
			`spec.ipipMode Always on an IPv6 pool: Calico supports IPIP for IPv4 only; use Never (or vxlanMode)`},
		{"IPIP and VXLAN", "10.244.0.0/16", func(s *calicov1.IPPoolSpec) { s.VXLANMode = "CrossSubnet" },
			`spec.ipipMode Always and spec.vxlanMode CrossSubnet: Calico allows at most one encapsulation per pool; set the other to Never`},
		{"link-local", "169.254.0.0/16", func(*calicov1.IPPoolSpec) {},
			`spec.cidr 169.254.0.0/16 overlaps the IPv4 link-local range 169.254.0.0/16, which cannot hold pod addresses`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pool("new-pool", tt.cidr, tt.mut)
			err := CheckServesPods(&p, netip.MustParsePrefix(tt.cidr))
			if got := errString(err); got != tt.want {
				t.Errorf("CheckServesPods =\n  %s\nwant\n  %s", got, tt.want)
			}
			if tt.want == "" {
				return
			}
			// And the migration refuses it before any step, naming the pool.
			oldPool := pool("old", "192.168.0.0/16")
			if strings.Contains(tt.cidr, ":") {
				oldPool = pool("old", "fd00:20::/64", noEncap, func(s *calicov1.IPPoolSpec) { s.BlockSize = 122 })
			}
			_, err = PlanMigration(MigrationInput{From: "old", To: "new-pool", Pools: []calicov1.IPPool{oldPool, p}})
			var ie *InputError
			if !errors.As(err, &ie) || ie.Msg != `IP pool "new-pool" (--to) cannot take the pods: `+tt.want {
				t.Errorf("PlanMigration error = %v", err)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
