package pools

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
)

// NodeCensus counts what one node holds in a pool.
type NodeCensus struct {
	Node      string   `json:"node"`
	Blocks    int      `json:"blocks"`
	Workloads int      `json:"workloads"`
	Tunnels   int      `json:"tunnels"`
	Pods      []string `json:"pods,omitempty"`
}

// Census is the allocation state of one pool, read from the IPAM blocks that share an address with
// its CIDR. Blocks do not name their pool: an address belongs to the pool whose CIDR holds it. A
// block usually lies inside its pool, but a pool smaller than its block size (a /28 with blockSize
// 26), a pool whose CIDR was narrowed or a block left from another pool can hold a block larger than
// the pool: then only the block's addresses inside the pool's CIDR count.
type Census struct {
	Pool      string       `json:"pool"`
	CIDR      string       `json:"cidr"`
	Blocks    int          `json:"blocks"`
	Workloads int          `json:"workloads"`
	Tunnels   int          `json:"tunnels"`
	Other     int          `json:"other"`
	Nodes     []NodeCensus `json:"nodes,omitempty"`
}

// Allocations is the number of addresses still held from the pool.
func (c Census) Allocations() int { return c.Workloads + c.Tunnels + c.Other }

// TakeCensus counts the allocations of pool from blocks: every allocated ordinal of every block that
// overlaps the pool's CIDR and whose address lies inside it. Blocks outside the pool are skipped. A
// block whose CIDR does not parse is an error, whichever pool it belongs to: the census cannot say
// that it holds nothing from this pool.
func TakeCensus(pool *calicov1.IPPool, blocks []calicov1.IPAMBlock) (Census, error) {
	c := Census{Pool: pool.Name, CIDR: pool.Spec.CIDR}
	pp, err := netip.ParsePrefix(pool.Spec.CIDR)
	if err != nil {
		return c, fmt.Errorf("IP pool %s: spec.cidr %q: %w", pool.Name, pool.Spec.CIDR, err)
	}
	pp = pp.Masked()
	nodes := map[string]*NodeCensus{}
	for i := range blocks {
		b := &blocks[i]
		bp, err := netip.ParsePrefix(b.Spec.CIDR)
		if err != nil {
			return c, fmt.Errorf("IPAM block %s: spec.cidr %q: %w; the census cannot tell which pool it belongs to (fix or delete the block by hand)", b.Name, b.Spec.CIDR, err)
		}
		bp = bp.Masked()
		if !overlaps(bp, pp) {
			continue
		}
		// Prefixes that overlap nest: either the block lies inside the pool (every ordinal counts) or
		// the pool lies inside the block (only the ordinals whose address is in the pool count).
		whole := within(bp, pp)
		node := "(no affinity)"
		if b.Spec.Affinity != nil {
			node = strings.TrimPrefix(*b.Spec.Affinity, "host:")
		}
		n := nodes[node]
		if n == nil {
			n = &NodeCensus{Node: node}
			nodes[node] = n
		}
		n.Blocks++
		c.Blocks++
		for ord, idx := range b.Spec.Allocations {
			if idx == nil {
				continue
			}
			if !whole && !pp.Contains(nth(bp.Addr(), ord)) {
				continue
			}
			var sec map[string]string
			if *idx >= 0 && *idx < len(b.Spec.Attributes) {
				sec = b.Spec.Attributes[*idx].Secondary
			}
			switch {
			case strings.HasSuffix(sec["type"], "TunnelAddress"):
				c.Tunnels++
				n.Tunnels++
			case sec["pod"] != "":
				c.Workloads++
				n.Workloads++
				n.Pods = append(n.Pods, sec["namespace"]+"/"+sec["pod"])
			default:
				c.Other++
			}
		}
	}
	for _, n := range nodes {
		sort.Strings(n.Pods)
		c.Nodes = append(c.Nodes, *n)
	}
	sort.Slice(c.Nodes, func(i, j int) bool { return c.Nodes[i].Node < c.Nodes[j].Node })
	return c, nil
}

// nth is the address ord places after base (Calico's ordinal: the offset from the block's first
// address). An offset past the end of the address space wraps; such an ordinal lies outside any
// block that a pool could be inside, so it is never counted for one.
func nth(base netip.Addr, ord int) netip.Addr {
	b := base.As16()
	carry := uint64(ord)
	for i := 15; i >= 0 && carry > 0; i-- {
		s := uint64(b[i]) + carry&0xff
		b[i] = byte(s)
		carry = carry>>8 + s>>8
	}
	a := netip.AddrFrom16(b)
	if base.Is4() {
		return a.Unmap()
	}
	return a
}

// within says whether inner lies inside outer.
func within(inner, outer netip.Prefix) bool {
	return inner.Addr().Is4() == outer.Addr().Is4() && inner.Bits() >= outer.Bits() && outer.Contains(inner.Masked().Addr())
}

// overlaps says whether two prefixes share an address.
func overlaps(a, b netip.Prefix) bool {
	return a.Addr().Is4() == b.Addr().Is4() && a.Overlaps(b)
}
