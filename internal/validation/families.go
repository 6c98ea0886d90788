package validation

import (
	"net"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
)

// families summarises a shoot's IP families; empty families mean IPv4 single-stack (Gardener's default).
type families struct {
	ipv4, ipv6 bool
}

func familiesOf(ipFamilies []gardencorev1beta1.IPFamily) families {
	if len(ipFamilies) == 0 {
		return families{ipv4: true}
	}
	var f families
	for _, family := range ipFamilies {
		switch family {
		case gardencorev1beta1.IPFamilyIPv4:
			f.ipv4 = true
		case gardencorev1beta1.IPFamilyIPv6:
			f.ipv6 = true
		}
	}
	return f
}

func (f families) dualStack() bool { return f.ipv4 && f.ipv6 }

// describe names the families for messages.
func (f families) describe() string {
	switch {
	case f.dualStack():
		return "a dual-stack shoot"
	case f.ipv6:
		return "an IPv6 single-stack shoot"
	default:
		return "an IPv4 single-stack shoot"
	}
}

// cidrFamily returns "IPv4" or "IPv6" for a parsed network.
func cidrFamily(n *net.IPNet) gardencorev1beta1.IPFamily {
	if n.IP.To4() != nil {
		return gardencorev1beta1.IPFamilyIPv4
	}
	return gardencorev1beta1.IPFamilyIPv6
}

// singleFamily returns the only family of a single-stack shoot, or "" for dual-stack.
func (f families) singleFamily() gardencorev1beta1.IPFamily {
	switch {
	case f.dualStack():
		return ""
	case f.ipv6:
		return gardencorev1beta1.IPFamilyIPv6
	default:
		return gardencorev1beta1.IPFamilyIPv4
	}
}
