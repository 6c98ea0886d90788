package rules

import (
	"fmt"
	"net"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
)

var supportedIPAMTypes = []string{"calico-ipam", "host-local"}

// The ipam.cidr keywords; Calico's CNI matches them case-insensitively.
const (
	usePodCIDR     = "usePodCidr"
	usePodCIDRIPv6 = "usePodCidrIPv6"
)

// IPAMSettings is the CNI IPAM configuration.
type IPAMSettings struct {
	// Type is host-local or calico-ipam.
	Type calicov1alpha1.IPAMType
	// Subnet is ipam.subnet on single-stack shoots; empty on dual-stack.
	Subnet string
	// RangeIPv4 and RangeIPv6 are the subnets of the dual-stack ranges; empty on single-stack.
	RangeIPv4, RangeIPv6 string
}

// IPAM returns the CNI IPAM configuration and the errors of the IPAM rules. The type is
// host-local, calico-ipam with vxlan.enabled on IPv4 single-stack shoots (Calico routes VXLAN by
// its IPAM blocks), or ipam.type when set. ipam.cidr is the host-local subnet of its family
// (usePodCidr the node's first pod CIDR, IPv4's on dual-stack; usePodCidrIPv6 the IPv6 one) and is
// written as given. While a dual-stack migration is pending, a cidr of the family that is not
// active yet waits for it.
func IPAM(cfg *calicov1alpha1.NetworkConfig, fam Families, path *field.Path) (IPAMSettings, field.ErrorList) {
	// Judged on the requested families: a shoot migrating to dual-stack keeps the IPAM it will have
	// afterwards (calico-ipam is IPv4 single-stack only).
	vxlanIPAM := cfg.VXLAN != nil && cfg.VXLAN.Enabled && fam.Requested.IPv4 && !fam.Requested.IPv6
	out := IPAMSettings{Type: calicov1alpha1.IPAMHostLocal}
	if vxlanIPAM {
		out.Type = calicov1alpha1.IPAMCalico
	}
	var explicitType calicov1alpha1.IPAMType
	if cfg.IPAM != nil && cfg.IPAM.Type != "" {
		explicitType = cfg.IPAM.Type
		out.Type = explicitType
	}
	if fam.Active.DualStack() {
		out.RangeIPv4, out.RangeIPv6 = usePodCIDR, usePodCIDRIPv6
	} else {
		out.Subnet = usePodCIDR
		if fam.Active.IPv6 {
			out.Subnet = usePodCIDRIPv6
		}
	}
	errs := ipamType(explicitType, vxlanIPAM, fam, path)
	if len(errs) > 0 && errs[0].Origin == string(RuleIPAMTypeVXLANHostLocal) {
		// The reference's choice: vxlan.enabled forced calico-ipam over the user's host-local.
		out.Type = calicov1alpha1.IPAMCalico
	}
	if cfg.IPAM == nil || cfg.IPAM.CIDR == nil {
		return out, errs
	}
	cidrErrs := ipamCIDR(&out, *cfg.IPAM.CIDR, explicitType, vxlanIPAM, fam, path)
	return out, append(errs, cidrErrs...)
}

// ipamType checks an explicit ipam.type ("" when unset).
func ipamType(explicitType calicov1alpha1.IPAMType, vxlanIPAM bool, fam Families, path *field.Path) field.ErrorList {
	typePath := path.Child("ipam", "type")
	switch {
	case explicitType == "":
	case !contains(supportedIPAMTypes, explicitType):
		return field.ErrorList{RuleIPAMTypeSupported.notSupported(typePath, string(explicitType), supportedIPAMTypes)}
	case explicitType == calicov1alpha1.IPAMCalico && fam.Requested.IPv6:
		return field.ErrorList{RuleIPAMTypeCalicoIPAMIPv4.invalid(typePath, string(explicitType), fmt.Sprintf(`IPAM type "calico-ipam" is only supported for IPv4 single-stack shoots, use "host-local" instead (this is %s)`, fam.Requested.describe()))}
	case explicitType == calicov1alpha1.IPAMHostLocal && vxlanIPAM:
		return field.ErrorList{RuleIPAMTypeVXLANHostLocal.invalid(typePath, string(explicitType), fmt.Sprintf(`contradicts %s: true, which needs "calico-ipam" on IPv4 single-stack shoots; use "calico-ipam" or remove ipam.type`, path.Child("vxlan", "enabled")))}
	}
	return nil
}

// ipamCIDR checks ipam.cidr and sets it as the subnet or range of its family in out.
func ipamCIDR(out *IPAMSettings, cidr string, explicitType calicov1alpha1.IPAMType, vxlanIPAM bool, fam Families, path *field.Path) field.ErrorList {
	cidrPath := path.Child("ipam", "cidr")
	switch {
	case explicitType == calicov1alpha1.IPAMCalico:
		return field.ErrorList{RuleIPAMCIDRCalicoIPAM.invalid(cidrPath, cidr, fmt.Sprintf(`contradicts %s: "calico-ipam": the cidr is the host-local subnet; calico-ipam allocates from the IP pools, remove one of the two`, path.Child("ipam", "type")))}
	case explicitType == "" && vxlanIPAM:
		return field.ErrorList{RuleIPAMCIDRVXLAN.invalid(cidrPath, cidr, fmt.Sprintf(`contradicts %s: true, which makes the IPAM "calico-ipam": the cidr is the host-local subnet, remove it`, path.Child("vxlan", "enabled")))}
	}
	var subnetErrs field.ErrorList
	// family is the family whose subnet the cidr is; "" for usePodCidr on single-stack (the node's
	// only pod CIDR, of either family).
	var family gardencorev1beta1.IPFamily
	switch {
	case strings.EqualFold(cidr, usePodCIDR):
		if fam.Requested.DualStack() {
			family = gardencorev1beta1.IPFamilyIPv4
		}
	case strings.EqualFold(cidr, usePodCIDRIPv6):
		family = gardencorev1beta1.IPFamilyIPv6
	default:
		ip, n, err := net.ParseCIDR(cidr)
		if err != nil {
			return field.ErrorList{RuleIPAMCIDRFormat.invalid(cidrPath, cidr, `must be "usePodCidr", "usePodCidrIPv6" or a CIDR such as 100.96.0.0/11`)}
		}
		// Beyond the reference (which passed the cidr on): the value is still set below, so that
		// a caller reporting the error as a warning gets what the reference rendered.
		if err := subnet(cidr, ip, n, cidrPath); err != nil {
			subnetErrs = field.ErrorList{err}
		}
		family = CIDRFamily(n)
	}
	active := fam.Active
	switch {
	case family != "" && !fam.Requested.Has(family):
		if out.Type == calicov1alpha1.IPAMHostLocal && !active.DualStack() {
			// The reference's choice: the cidr as written.
			out.Subnet = cidr
		}
		return field.ErrorList{RuleIPAMCIDRFamily.invalid(cidrPath, cidr, fmt.Sprintf("is an %s subnet, but this is %s", family, fam.Requested.describe()))}
	case strings.EqualFold(cidr, usePodCIDR) && !active.DualStack():
		// The node's first pod CIDR: the only one on a single-stack node, of either family.
		out.Subnet = cidr
	case family != "" && !active.Has(family):
		// Requested but not active yet (dual-stack migration pending): its subnet applies once
		// the nodes are migrated.
	case !active.DualStack():
		out.Subnet = cidr
	case family == gardencorev1beta1.IPFamilyIPv6:
		out.RangeIPv6 = cidr
	default:
		out.RangeIPv4 = cidr
	}
	return subnetErrs
}

// subnet checks that a host-local subnet is one Calico's CNI and the kubelet accept as written: the
// subnet's own address (10.0.0.1/8 has host bits set), not an IPv4-mapped IPv6 CIDR (an IPv4
// subnet in IPv6 notation), and large enough for pods: host-local leaves out the network,
// broadcast and gateway addresses, so a /31 or /32 has none.
func subnet(cidr string, ip net.IP, n *net.IPNet, p *field.Path) *field.Error {
	ones, bits := n.Mask.Size()
	switch {
	case strings.Contains(cidr, ":") && ip.To4() != nil:
		return RuleIPAMCIDRSubnet.invalid(p, cidr, fmt.Sprintf("is an IPv4-mapped IPv6 CIDR; write the IPv4 subnet %s", n))
	case !ip.Equal(n.IP):
		return RuleIPAMCIDRSubnet.invalid(p, cidr, fmt.Sprintf("has host bits set: the subnet is %s", n))
	case bits-ones < 2:
		return RuleIPAMCIDRSubnet.invalid(p, cidr, fmt.Sprintf("leaves no address for pods: host-local needs at most /%d", bits-2))
	}
	return nil
}
