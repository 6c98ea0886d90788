package apiserverendpoints

import (
	"net/netip"
	"slices"
)

// Nets returns the GlobalNetworkSet nets of addrs: a /32 per IPv4 and a /128 per IPv6 address,
// sorted (IPv4 first) and de-duplicated. IPv4-mapped IPv6 addresses count as IPv4; zones are
// dropped. Invalid addresses are skipped (Source.Lookup never returns one).
func Nets(addrs []netip.Addr) []netip.Prefix {
	nets := make([]netip.Prefix, 0, len(addrs))
	for _, a := range addrs {
		if !a.IsValid() {
			continue
		}
		a = a.Unmap().WithZone("")
		nets = append(nets, netip.PrefixFrom(a, a.BitLen()))
	}
	slices.SortFunc(nets, func(x, y netip.Prefix) int { return x.Addr().Compare(y.Addr()) })
	return slices.Compact(nets)
}
