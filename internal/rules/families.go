package rules

import (
	"net"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
)

// FamilySet says which IP families are on.
type FamilySet struct {
	IPv4, IPv6 bool
}

// DualStack is true when both families are on.
func (f FamilySet) DualStack() bool { return f.IPv4 && f.IPv6 }

// Single returns the only family of a single-stack set, or "" for dual-stack.
func (f FamilySet) Single() gardencorev1beta1.IPFamily {
	switch {
	case f.DualStack():
		return ""
	case f.IPv6:
		return gardencorev1beta1.IPFamilyIPv6
	default:
		return gardencorev1beta1.IPFamilyIPv4
	}
}

// Has says whether the family is on.
func (f FamilySet) Has(family gardencorev1beta1.IPFamily) bool {
	switch family {
	case gardencorev1beta1.IPFamilyIPv4:
		return f.IPv4
	case gardencorev1beta1.IPFamilyIPv6:
		return f.IPv6
	}
	return false
}

// describe names the families for messages.
func (f FamilySet) describe() string {
	switch {
	case f.DualStack():
		return "a dual-stack shoot"
	case f.IPv6:
		return "an IPv6 single-stack shoot"
	default:
		return "an IPv4 single-stack shoot"
	}
}

// Families are a shoot's IP families. Rules judge the configuration against the requested
// families; values are derived for the active ones. They differ only while a dual-stack migration
// is pending (the nodes are not ready for the second family yet): a block for the second family is
// valid and waits for it.
type Families struct {
	// Requested are the families the shoot asks for (spec.networking.ipFamilies).
	Requested FamilySet
	// Active are the families in use now: the first requested one while the migration is pending.
	Active FamilySet
}

// FamilySetOf summarises a list of families; an empty list means IPv4 (Gardener's default).
// Unknown entries are ignored.
func FamilySetOf(ipFamilies []gardencorev1beta1.IPFamily) FamilySet {
	if len(ipFamilies) == 0 {
		return FamilySet{IPv4: true}
	}
	var f FamilySet
	for _, family := range ipFamilies {
		switch family {
		case gardencorev1beta1.IPFamilyIPv4:
			f.IPv4 = true
		case gardencorev1beta1.IPFamilyIPv6:
			f.IPv6 = true
		}
	}
	return f
}

// FamiliesOf returns the families of a shoot without a pending migration: requested = active.
func FamiliesOf(ipFamilies []gardencorev1beta1.IPFamily) Families {
	f := FamilySetOf(ipFamilies)
	return Families{Requested: f, Active: f}
}

// CIDRFamily returns the family of a parsed network.
func CIDRFamily(n *net.IPNet) gardencorev1beta1.IPFamily {
	if n.IP.To4() != nil {
		return gardencorev1beta1.IPFamilyIPv4
	}
	return gardencorev1beta1.IPFamilyIPv6
}

func contains[T ~string](list []string, v T) bool {
	for _, s := range list {
		if s == string(v) {
			return true
		}
	}
	return false
}
