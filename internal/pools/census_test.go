package pools

import (
	"encoding/binary"
	"math/big"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
)

// allocBlock is a block of node whose ordinals ords are allocated to pods named after the ordinal
// (ordinal 0 is the node's tunnel address when tunnel0 is set).
func allocBlock(name, cidr, node string, tunnel0 bool, ords ...int) calicov1.IPAMBlock {
	aff := "host:" + node
	b := calicov1.IPAMBlock{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: calicov1.IPAMBlockSpec{CIDR: cidr, Affinity: &aff}}
	maxOrd := 0
	for _, o := range ords {
		maxOrd = max(maxOrd, o)
	}
	b.Spec.Allocations = make([]*int, maxOrd+1)
	for _, o := range ords {
		sec := map[string]string{"namespace": "default", "pod": "pod-" + itoa(o), "node": node}
		if o == 0 && tunnel0 {
			sec = map[string]string{"node": node, "type": "vxlanTunnelAddress"}
		}
		b.Spec.Attributes = append(b.Spec.Attributes, calicov1.AllocationAttribute{Secondary: sec})
		b.Spec.Allocations[o] = ip(len(b.Spec.Attributes) - 1)
	}
	return b
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }

// TestTakeCensusPoolSmallerThanBlock is issue 21 finding 1: pool "old" 10.0.0.0/28 with blockSize
// 26 has its addresses in the /26 block 10.0.0.0/26, which is larger than the pool. The census
// said "0 block(s)" and pools migrate --delete-old deleted the pool under a running pod.
func TestTakeCensusPoolSmallerThanBlock(t *testing.T) {
	tests := []struct {
		name   string
		pool   string
		blocks []calicov1.IPAMBlock
		want   Census
	}{{
		name:   "a /28 pool in a /26 block: the pod at .1 and the tunnel address at .0 count",
		pool:   "10.0.0.0/28",
		blocks: []calicov1.IPAMBlock{allocBlock("b", "10.0.0.0/26", "node-a", true, 0, 1)},
		want: Census{Pool: "old", CIDR: "10.0.0.0/28", Blocks: 1, Workloads: 1, Tunnels: 1, Nodes: []NodeCensus{
			{Node: "node-a", Blocks: 1, Workloads: 1, Tunnels: 1, Pods: []string{"default/pod-1"}}}},
	}, {
		name:   "addresses of the block outside the pool's CIDR do not count",
		pool:   "10.0.0.16/28",
		blocks: []calicov1.IPAMBlock{allocBlock("b", "10.0.0.0/26", "node-a", true, 0, 1, 16, 31, 32)},
		want: Census{Pool: "old", CIDR: "10.0.0.16/28", Blocks: 1, Workloads: 2, Nodes: []NodeCensus{
			{Node: "node-a", Blocks: 1, Workloads: 2, Pods: []string{"default/pod-16", "default/pod-31"}}}},
	}, {
		name:   "IPv6: a /124 pool in a /122 block",
		pool:   "fd00::10/124",
		blocks: []calicov1.IPAMBlock{allocBlock("b", "fd00::/122", "node-a", false, 3, 17)},
		want: Census{Pool: "old", CIDR: "fd00::10/124", Blocks: 1, Workloads: 1, Nodes: []NodeCensus{
			{Node: "node-a", Blocks: 1, Workloads: 1, Pods: []string{"default/pod-17"}}}},
	}, {
		name:   "a block of another family or range is skipped",
		pool:   "10.0.0.0/28",
		blocks: []calicov1.IPAMBlock{allocBlock("b", "fd00::/122", "node-a", false, 1), allocBlock("c", "10.0.1.0/26", "node-a", false, 1)},
		want:   Census{Pool: "old", CIDR: "10.0.0.0/28"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pool("old", tt.pool)
			got, err := TakeCensus(&p, tt.blocks)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("census (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPlanMigrationRefusesDeleteOfPoolSmallerThanBlock: the migration of finding 1 end to end in
// the planner (the envtest suite runs it against a real API server).
func TestPlanMigrationRefusesDeleteOfPoolSmallerThanBlock(t *testing.T) {
	old := pool("old", "10.0.0.0/28")
	old.Spec.Disabled = true
	plan, err := PlanMigration(MigrationInput{From: "old", To: "new", DeleteOld: true,
		Pools:  []calicov1.IPPool{old, pool("new", "10.1.0.0/16")},
		Blocks: []calicov1.IPAMBlock{allocBlock("b", "10.0.0.0/26", "node-a", true, 0, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Steps) != 0 || !strings.Contains(plan.Blocked, "still holds 2 address(es)") {
		t.Fatalf("steps %v, blocked %q: want no delete and a refusal for 2 addresses", plan.Steps, plan.Blocked)
	}
}

func TestTakeCensusMalformedBlock(t *testing.T) {
	p := pool("old", "10.0.0.0/16")
	_, err := TakeCensus(&p, []calicov1.IPAMBlock{allocBlock("broken", "bad", "n", false, 1)})
	want := `IPAM block broken: spec.cidr "bad": netip.ParsePrefix("bad"): no '/'; the census cannot tell which pool it belongs to (fix or delete the block by hand)`
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %q", err, want)
	}
}

func TestNth(t *testing.T) {
	for _, tt := range []struct {
		base string
		ord  int
		want string
	}{
		{"10.0.0.0", 0, "10.0.0.0"}, {"10.0.0.0", 255, "10.0.0.255"}, {"10.0.0.192", 64, "10.0.1.0"},
		{"10.255.255.255", 1, "11.0.0.0"}, {"fd00::", 17, "fd00::11"}, {"fd00::ff", 1, "fd00::100"},
	} {
		if got := nth(netip.MustParseAddr(tt.base), tt.ord); got.String() != tt.want {
			t.Errorf("nth(%s, %d) = %s, want %s", tt.base, tt.ord, got, tt.want)
		}
	}
	// Past the end of IPv4: not an IPv4 address any more, so no IPv4 pool contains it.
	if got := nth(netip.MustParseAddr("255.255.255.255"), 1); got.Is4() {
		t.Errorf("nth(255.255.255.255, 1) = %s, want an address outside IPv4", got)
	}
}

// FuzzCensus: whatever the pools and blocks (nested, disjoint, larger or smaller than the pool,
// IPv4 or IPv6, ordinals past the block's end), pools migrate --delete-old never plans a delete while
// any address in the old pool's CIDR is allocated, and the census counts exactly those addresses.
// The oracle computes each ordinal's address with math/big, independently of the census.
func FuzzCensus(f *testing.F) {
	// v4 pool 10.0.0.0/28, one /26 block at 10.0.0.0 with ordinals 0 (tunnel) and 1 (finding 1).
	f.Add([]byte{0, 0, 0, 4, 0, 1, 0, 0, 6, 2, 0, 0, 1, 0, 0, 0})
	// v6 pool fd00::/124, one /122 block with ordinals 3 and 17 (only 3 is in the pool).
	f.Add([]byte{1, 0, 0, 4, 0, 1, 0, 0, 6, 2, 3, 0, 17, 0, 0, 1})
	// a /16 pool with blocks inside, outside and across it.
	f.Add([]byte{0, 1, 0, 16, 1, 3, 1, 2, 6, 3, 0, 0, 5, 0, 63, 0, 0, 2, 0, 0, 8, 1, 200, 1, 2, 0, 2, 0, 9, 1, 255, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := byteReader{data: data}
		v6 := r.next()%2 == 1
		bitsMax := 32
		if v6 {
			bitsMax = 128
		}
		// Pools and blocks live in a small window so that they overlap often.
		window := func(off uint16, bits int) netip.Prefix {
			var a netip.Addr
			if v6 {
				var b [16]byte
				b[0] = 0xfd
				binary.BigEndian.PutUint16(b[14:], off)
				a = netip.AddrFrom16(b)
			} else {
				a = netip.AddrFrom4([4]byte{10, 0, byte(off >> 8), byte(off)})
			}
			return netip.PrefixFrom(a, bits).Masked()
		}
		clampBits := func(b byte) int { return bitsMax - int(b)%17 } // the last 16 bits, the window's size
		poolPrefix := window(uint16(r.next())<<8|uint16(r.next()), clampBits(r.next()))
		old := pool("old", poolPrefix.String())
		old.Spec.Disabled = r.next()%2 == 0
		var blocks []calicov1.IPAMBlock
		for n := int(r.next() % 6); n > 0 && !r.done(); n-- {
			bp := window(uint16(r.next())<<8|uint16(r.next()), clampBits(r.next()))
			var ords []int
			for k := int(r.next() % 8); k > 0; k-- {
				ords = append(ords, int(r.next())|int(r.next()&1)<<8)
			}
			blocks = append(blocks, allocBlock("b"+itoa(len(blocks)), bp.String(), "node-"+itoa(int(r.next()%3)), r.next()%2 == 0, ords...))
		}
		// held: allocated addresses inside the pool's CIDR. malformed: allocations at an ordinal past
		// the end of a block that overlaps the pool (Calico never writes one); the census may count
		// them, erring on the side of keeping the pool.
		held, malformed := 0, 0
		for _, b := range blocks {
			bp := netip.MustParsePrefix(b.Spec.CIDR)
			base := new(big.Int).SetBytes(bp.Addr().AsSlice())
			size := 1 << (bitsMax - bp.Bits())
			for ord, idx := range b.Spec.Allocations {
				if idx == nil {
					continue
				}
				if ord >= size {
					if bp.Overlaps(poolPrefix) {
						malformed++
					}
					continue
				}
				addr := new(big.Int).Add(base, big.NewInt(int64(ord)))
				raw := addr.FillBytes(make([]byte, 17)) // one spare byte: an overflow lands there
				if raw[0] != 0 {
					continue
				}
				if v6 {
					a := netip.AddrFrom16([16]byte(raw[1:]))
					if poolPrefix.Contains(a) {
						held++
					}
				} else if addr.BitLen() <= 32 && poolPrefix.Contains(netip.AddrFrom4([4]byte(raw[13:]))) {
					held++
				}
			}
		}
		c, err := TakeCensus(&old, blocks)
		if err != nil {
			t.Fatal(err)
		}
		if c.Allocations() < held || c.Allocations() > held+malformed {
			t.Fatalf("census of %s counts %d allocation(s), the oracle %d (+%d past a block's end)", poolPrefix, c.Allocations(), held, malformed)
		}
		newPool := pool("new", "192.168.0.0/16")
		if v6 {
			newPool = pool("new", "fd01::/48", noEncap, func(s *calicov1.IPPoolSpec) { s.BlockSize = 122 })
		}
		plan, err := PlanMigration(MigrationInput{From: "old", To: "new", DeleteOld: true, Pools: []calicov1.IPPool{old, newPool}, Blocks: blocks})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range plan.Steps {
			if s == StepDeleteOld && held > 0 {
				t.Fatalf("a delete of %s is planned while %d address(es) in it are allocated", poolPrefix, held)
			}
		}
		if held > 0 && plan.Blocked == "" {
			t.Fatalf("%d address(es) held in %s but the delete is not refused", held, poolPrefix)
		}
	})
}

type byteReader struct {
	data []byte
	pos  int
}

func (r *byteReader) next() byte {
	if r.pos >= len(r.data) {
		return 0
	}
	r.pos++
	return r.data[r.pos-1]
}

func (r *byteReader) done() bool { return r.pos >= len(r.data) }
