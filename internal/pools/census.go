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

// Census is the allocation state of one pool, read from the IPAM blocks inside its CIDR (blocks do
// not name their pool: a block belongs to the pool whose CIDR holds it).
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

// TakeCensus counts the allocations of pool from blocks. Blocks outside the pool are skipped.
func TakeCensus(pool *calicov1.IPPool, blocks []calicov1.IPAMBlock) (Census, error) {
	c := Census{Pool: pool.Name, CIDR: pool.Spec.CIDR}
	pp, err := netip.ParsePrefix(pool.Spec.CIDR)
	if err != nil {
		return c, fmt.Errorf("IP pool %s: spec.cidr %q: %w", pool.Name, pool.Spec.CIDR, err)
	}
	nodes := map[string]*NodeCensus{}
	for i := range blocks {
		b := &blocks[i]
		bp, err := netip.ParsePrefix(b.Spec.CIDR)
		if err != nil {
			return c, fmt.Errorf("IPAM block %s: spec.cidr %q: %w", b.Name, b.Spec.CIDR, err)
		}
		if !within(bp, pp) {
			continue
		}
		c.Blocks++
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
		for _, idx := range b.Spec.Allocations {
			if idx == nil {
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

// within says whether inner lies inside outer.
func within(inner, outer netip.Prefix) bool {
	return inner.Addr().Is4() == outer.Addr().Is4() && inner.Bits() >= outer.Bits() && outer.Contains(inner.Masked().Addr())
}

// overlaps says whether two prefixes share an address.
func overlaps(a, b netip.Prefix) bool {
	return a.Addr().Is4() == b.Addr().Is4() && a.Overlaps(b)
}
