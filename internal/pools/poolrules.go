package pools

import (
	"fmt"
	"net/netip"
	"strings"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/selector"
)

// Block sizes Calico's IP pool validation accepts (libcalico-go's validator), and the sizes
// calico-node gives the pools it creates (CALICO_IPV4POOL_BLOCK_SIZE's default and IPv6's).
const (
	minBlockSizeV4, maxBlockSizeV4 = 20, 32
	minBlockSizeV6, maxBlockSizeV6 = 116, 128
)

// Ranges no pool can hand out to pods: Calico refuses pools overlapping link-local ranges, and
// loopback and multicast addresses cannot be a pod's address.
var reservedRanges = []struct {
	prefix netip.Prefix
	what   string
}{
	{netip.MustParsePrefix("169.254.0.0/16"), "the IPv4 link-local range 169.254.0.0/16"},
	{netip.MustParsePrefix("127.0.0.0/8"), "the IPv4 loopback range 127.0.0.0/8"},
	{netip.MustParsePrefix("224.0.0.0/4"), "the IPv4 multicast range 224.0.0.0/4"},
	{netip.MustParsePrefix("fe80::/10"), "the IPv6 link-local range fe80::/10"},
	{netip.MustParsePrefix("::1/128"), "the IPv6 loopback address ::1"},
	{netip.MustParsePrefix("ff00::/8"), "the IPv6 multicast range ff00::/8"},
}

// CheckServesPods says why Calico would not assign pod addresses from p automatically, or nil:
// what Calico's own IP pool validation rejects (block size out of range or larger than the pool,
// IPIP on IPv6, IPIP and VXLAN together, an invalid selector, a reserved range), and what it accepts
// but never uses for pods (allowedUses without Workload, assignmentMode Manual, a node or namespace
// selector that can never match, by the selector package's analysis). The crd.projectcalico.org/v1
// API stores pools without that validation and without defaults, so a pool created with kubectl
// can be any of these. cidr is p's parsed spec.cidr.
func CheckServesPods(p *calicov1.IPPool, cidr netip.Prefix) error {
	s := &p.Spec
	for _, check := range []func(*calicov1.IPPoolSpec, netip.Prefix) error{
		checkBlockSize, checkReserved, checkEncapsulation, checkAllowedUses, checkAssignmentMode, checkSelectors,
	} {
		if err := check(s, cidr); err != nil {
			return err
		}
	}
	return nil
}

// checkBlockSize: the block size is set, in the family's range and fits the pool.
func checkBlockSize(s *calicov1.IPPoolSpec, cidr netip.Prefix) error {
	v4 := cidr.Addr().Is4()
	lo, hi, def := minBlockSizeV4, maxBlockSizeV4, 26
	if !v4 {
		lo, hi, def = minBlockSizeV6, maxBlockSizeV6, 122
	}
	switch {
	case s.BlockSize == 0:
		return fmt.Errorf("spec.blockSize is not set, and crd.projectcalico.org/v1 applies no default; set it (%d..%d for this family, Calico's default is %d)", lo, hi, def)
	case s.BlockSize < lo || s.BlockSize > hi:
		return fmt.Errorf("spec.blockSize %d is out of range: Calico accepts %d..%d for an IPv%d pool", s.BlockSize, lo, hi, ipVersion(v4))
	case cidr.Bits() > s.BlockSize:
		return fmt.Errorf("spec.cidr %s is smaller than one block (spec.blockSize %d): Calico IPAM needs a pool of at least /%d; use a larger CIDR or a smaller block", s.CIDR, s.BlockSize, s.BlockSize)
	}
	return nil
}

// checkReserved: the pool overlaps no range that cannot hold pod addresses.
func checkReserved(s *calicov1.IPPoolSpec, cidr netip.Prefix) error {
	for _, r := range reservedRanges {
		if r.prefix.Addr().Is4() == cidr.Addr().Is4() && r.prefix.Overlaps(cidr) {
			return fmt.Errorf("spec.cidr %s overlaps %s, which cannot hold pod addresses", s.CIDR, r.what)
		}
	}
	return nil
}

// checkEncapsulation: IPIP on IPv4 only, at most one encapsulation.
func checkEncapsulation(s *calicov1.IPPoolSpec, cidr netip.Prefix) error {
	ipip := s.IPIPMode != "" && s.IPIPMode != "Never"
	vxlan := s.VXLANMode != "" && s.VXLANMode != "Never"
	switch {
	case ipip && !cidr.Addr().Is4():
		return fmt.Errorf("spec.ipipMode %s on an IPv6 pool: Calico supports IPIP for IPv4 only; use Never (or vxlanMode)", s.IPIPMode)
	case ipip && vxlan:
		return fmt.Errorf("spec.ipipMode %s and spec.vxlanMode %s: Calico allows at most one encapsulation per pool; set the other to Never", s.IPIPMode, s.VXLANMode)
	}
	return nil
}

// checkAllowedUses: known uses, Workload among them (unset: every use).
func checkAllowedUses(s *calicov1.IPPoolSpec, _ netip.Prefix) error {
	if len(s.AllowedUses) == 0 {
		return nil
	}
	workload := false
	for _, u := range s.AllowedUses {
		switch u {
		case calicov1.IPPoolAllowedUseWorkload:
			workload = true
		case calicov1.IPPoolAllowedUseTunnel, calicov1.IPPoolAllowedUseLoadBalancer:
		default:
			return fmt.Errorf("spec.allowedUses: %q is not a use Calico knows; accepted are Workload, Tunnel and LoadBalancer", u)
		}
	}
	if !workload {
		return fmt.Errorf("spec.allowedUses %s does not include Workload: Calico gives pods no address from it; add Workload (or leave allowedUses unset)", allowedUses(s.AllowedUses))
	}
	return nil
}

// checkAssignmentMode: Automatic (or unset).
func checkAssignmentMode(s *calicov1.IPPoolSpec, _ netip.Prefix) error {
	if s.AssignmentMode == nil {
		return nil
	}
	switch *s.AssignmentMode {
	case calicov1.AssignmentModeAutomatic:
		return nil
	case calicov1.AssignmentModeManual:
		return fmt.Errorf("spec.assignmentMode is Manual: Calico assigns from it only to pods that name the pool in an annotation; set Automatic (or leave it unset)")
	}
	return fmt.Errorf("spec.assignmentMode %q: accepted are Automatic and Manual", *s.AssignmentMode)
}

// checkSelectors: the node and namespace selectors are valid and can match.
func checkSelectors(s *calicov1.IPPoolSpec, _ netip.Prefix) error {
	for _, sel := range []struct{ field, expr, who string }{
		{"spec.nodeSelector", s.NodeSelector, "node"},
		{"spec.namespaceSelector", s.NamespaceSelector, "namespace"},
	} {
		if strings.TrimSpace(sel.expr) == "" {
			continue // unset: every node or namespace
		}
		n, err := selector.Parse(sel.expr)
		if err != nil {
			return fmt.Errorf("%s %q is not a valid selector (%v): Calico rejects the pool", sel.field, sel.expr, err)
		}
		if never, why := selector.NeverMatches(n); never {
			return fmt.Errorf("%s %q matches no %s (%s): no pod gets an address from it", sel.field, sel.expr, sel.who, why)
		}
	}
	return nil
}

func ipVersion(v4 bool) int {
	if v4 {
		return 4
	}
	return 6
}

func allowedUses(uses []calicov1.IPPoolAllowedUse) string {
	s := make([]string, len(uses))
	for i, u := range uses {
		s[i] = string(u)
	}
	return "[" + strings.Join(s, ", ") + "]"
}
