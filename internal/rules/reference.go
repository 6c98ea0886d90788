package rules

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
)

// ignored records a field ignored for compatibility with the reference.
func (o *overrides) ignored(p *field.Path, value, detail, action string) {
	o.findings = append(o.findings, Ignored(p, value, detail, action))
}

// Ignored is the finding of a field ignored for compatibility with the reference (compatibility
// mode Reference): detail says what the reference did, action what is deployed.
func Ignored(p *field.Path, value, detail, action string) Finding {
	return Finding{
		Kind:   FindingIgnored,
		Field:  p.String(),
		Value:  value,
		Detail: detail,
		Action: action + ", as the reference did; the ControllerConfiguration's compatibility.honourIgnoredFields honours it",
	}
}

// ReferenceOverrides applies to s, in compatibility mode Reference, the reference's silent
// overrides of valid settings (docs/compatibility.md lists them): an explicit overlay decides the
// pool mode, the node network decides the autodetection method, and the deprecated ipip and
// ipAutodetectionMethod are dead. Each override that changes a value becomes a finding naming the
// field (kind Ignored). active are the families in use; specNodeNetwork says whether the shoot's
// spec has a node network, statusNodeNetworks whether its status reports any; nodes are the node
// networks of NetworkConfig's autodetection.
func ReferenceOverrides(cfg *calicov1alpha1.NetworkConfig, active FamilySet, specNodeNetwork, statusNodeNetworks bool, s *Settings, nodes NodeNetworks, path *field.Path) []Finding {
	o := &overrides{}
	o.poolModes(cfg, active.IPv4, active.IPv6, s, path)
	if active.IPv4 {
		o.ipv4Autodetection(cfg, specNodeNetwork, s, nodes, path)
	}
	if active.IPv6 && specNodeNetwork && statusNodeNetworks {
		o.ipv6Autodetection(cfg, s, nodes, path)
	}
	return o.findings
}

// overrides collects the findings of ReferenceOverrides.
type overrides struct {
	findings []Finding
}

// poolModes: the reference wrote the overlay's mode into ipv6.mode on shoots with IPv6 (Never
// without an overlay setting) and into ipv4.mode otherwise, over any explicit value.
func (o *overrides) poolModes(cfg *calicov1alpha1.NetworkConfig, v4, v6 bool, s *Settings, path *field.Path) {
	overlayMode := calicov1alpha1.PoolModeNever
	if cfg.Overlay != nil && cfg.Overlay.Enabled {
		overlayMode = calicov1alpha1.PoolModeAlways
	}
	if v4 && !v6 {
		explicitMode, modePath := cfg.IPv4 != nil && cfg.IPv4.Mode != nil, path.Child("ipv4", "mode")
		switch {
		case cfg.Overlay != nil && explicitMode && s.IPv4Pool.Mode != overlayMode:
			o.ignored(modePath, string(*cfg.IPv4.Mode), "the reference overwrote ipv4.mode with the mode of overlay.enabled",
				"mode "+string(overlayMode)+" is deployed")
			s.IPv4Pool.Mode = overlayMode
		case cfg.IPIP != nil && !explicitMode:
			// The deprecated ipip was dead in the reference: the mode is the default.
			mode := calicov1alpha1.PoolModeAlways
			if cfg.Overlay != nil {
				mode = overlayMode
			} else if s.Backend == calicov1alpha1.BackendNone {
				mode = calicov1alpha1.PoolModeNever
			}
			if s.IPv4Pool.Mode != mode {
				o.ignored(path.Child("ipip"), string(*cfg.IPIP), "the reference ignored the deprecated ipip",
					"mode "+string(mode)+" is deployed")
				s.IPv4Pool.Mode = mode
			}
		}
	}
	if v6 && cfg.IPv6 != nil && cfg.IPv6.Mode != nil && s.IPv6Pool.Mode != overlayMode {
		o.ignored(path.Child("ipv6", "mode"), string(*cfg.IPv6.Mode), "the reference overwrote ipv6.mode with the mode of overlay.enabled (Never without it)",
			"mode "+string(overlayMode)+" is deployed")
		s.IPv6Pool.Mode = overlayMode
	}
}

// ipv4Autodetection: with a node network in the shoot's spec the reference overwrote
// ipv4.autoDetectionMethod with cidr=<node networks>; the deprecated ipAutodetectionMethod was dead.
func (o *overrides) ipv4Autodetection(cfg *calicov1alpha1.NetworkConfig, specNodeNetwork bool, s *Settings, nodes NodeNetworks, path *field.Path) {
	var explicit string
	var p *field.Path
	switch {
	case cfg.IPv4 != nil && cfg.IPv4.AutoDetectionMethod != nil && *cfg.IPv4.AutoDetectionMethod != "":
		explicit, p = *cfg.IPv4.AutoDetectionMethod, path.Child("ipv4", "autoDetectionMethod")
	case cfg.IPAutoDetectionMethod != nil && *cfg.IPAutoDetectionMethod != "":
		explicit, p = *cfg.IPAutoDetectionMethod, path.Child("ipAutodetectionMethod")
	}
	want := ""
	if specNodeNetwork && len(nodes.IPv4) > 0 {
		want = NodeNetworksMethod(nodes.IPv4)
	} else if p != nil && p.String() == path.Child("ipv4", "autoDetectionMethod").String() {
		// Without a node network the explicit ipv4 method survived.
		want = explicit
	}
	if p != nil && s.Autodetection.IPv4 != want {
		action := "calico-node's default method is deployed"
		if want != "" {
			action = "method " + want + " is deployed"
		}
		o.ignored(p, explicit, "the reference overwrote the autodetection method with the shoot's node networks (the deprecated field was never read)", action)
		s.Autodetection.IPv4 = want
	}
}

// ipv6Autodetection: with node networks in the shoot's spec and status, the reference overwrote
// ipv6.autoDetectionMethod with the IPv6 status node networks.
func (o *overrides) ipv6Autodetection(cfg *calicov1alpha1.NetworkConfig, s *Settings, nodes NodeNetworks, path *field.Path) {
	if cfg.IPv6 != nil && cfg.IPv6.AutoDetectionMethod != nil && *cfg.IPv6.AutoDetectionMethod != "" {
		want := ""
		if len(nodes.IPv6) > 0 {
			want = NodeNetworksMethod(nodes.IPv6)
		}
		if s.Autodetection.IPv6 != want {
			action := "calico-node's default method is deployed"
			if want != "" {
				action = "method " + want + " is deployed"
			}
			o.ignored(path.Child("ipv6", "autoDetectionMethod"), *cfg.IPv6.AutoDetectionMethod, "the reference overwrote the autodetection method with the shoot's IPv6 node networks", action)
			s.Autodetection.IPv6 = want
		}
	}
}
