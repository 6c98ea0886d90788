package values

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/rules"
)

// ruleErrors records the errors of the NetworkConfig rules: all as errors, or, when ratcheting,
// those of rules beyond the reference as findings (the rules return the reference's value with
// them, so what is deployed is what the reference deployed).
func (r *resolver) ruleErrors(errs field.ErrorList) {
	if !r.in.Ratchet {
		r.errs = append(r.errs, errs...)
		return
	}
	hard, findings := rules.Ratchet(errs)
	r.errs = append(r.errs, hard...)
	r.out.Findings = append(r.out.Findings, findings...)
}

// ignored records a field ignored for compatibility with the reference.
func (r *resolver) ignored(p *field.Path, value, detail, action string) {
	r.out.Findings = append(r.out.Findings, rules.Finding{
		Kind:   rules.FindingIgnored,
		Field:  p.String(),
		Value:  value,
		Detail: detail,
		Action: action + ", as the reference did; the ControllerConfiguration's compatibility.honourIgnoredFields honours it",
	})
}

// referenceOverrides applies, in compatibility mode Reference, the reference's silent overrides of
// valid settings (docs/compatibility.md lists them): an explicit overlay decides the pool mode, the
// node network decides the autodetection method, and the deprecated ipip and ipAutodetectionMethod
// are dead. Each override that changes a value becomes a finding naming the field.
func (r *resolver) referenceOverrides(s *rules.Settings, nodes rules.NodeNetworks) {
	cfg := r.cfg
	c := r.in.Cluster
	v4, v6 := r.out.IPv4, r.out.IPv6

	// Pool modes. The reference wrote the overlay's mode into ipv6.mode on shoots with IPv6 (Never
	// without an overlay setting) and into ipv4.mode otherwise, over any explicit value.
	overlayMode := calicov1alpha1.PoolModeNever
	if cfg.Overlay != nil && cfg.Overlay.Enabled {
		overlayMode = calicov1alpha1.PoolModeAlways
	}
	if v4 && !v6 {
		explicitMode, modePath := cfg.IPv4 != nil && cfg.IPv4.Mode != nil, r.path.Child("ipv4", "mode")
		switch {
		case cfg.Overlay != nil && explicitMode && s.IPv4Pool.Mode != overlayMode:
			r.ignored(modePath, string(*cfg.IPv4.Mode), "the reference overwrote ipv4.mode with the mode of overlay.enabled",
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
				r.ignored(r.path.Child("ipip"), string(*cfg.IPIP), "the reference ignored the deprecated ipip",
					"mode "+string(mode)+" is deployed")
				s.IPv4Pool.Mode = mode
			}
		}
	}
	if v6 && cfg.IPv6 != nil && cfg.IPv6.Mode != nil && s.IPv6Pool.Mode != overlayMode {
		r.ignored(r.path.Child("ipv6", "mode"), string(*cfg.IPv6.Mode), "the reference overwrote ipv6.mode with the mode of overlay.enabled (Never without it)",
			"mode "+string(overlayMode)+" is deployed")
		s.IPv6Pool.Mode = overlayMode
	}

	// Autodetection. With a node network in the shoot's spec the reference overwrote
	// ipv4.autoDetectionMethod with cidr=<node networks> (and ipv6's with the IPv6 status node
	// networks, when the status has any); the deprecated ipAutodetectionMethod was dead.
	if v4 {
		var explicit string
		var p *field.Path
		switch {
		case cfg.IPv4 != nil && cfg.IPv4.AutoDetectionMethod != nil && *cfg.IPv4.AutoDetectionMethod != "":
			explicit, p = *cfg.IPv4.AutoDetectionMethod, r.path.Child("ipv4", "autoDetectionMethod")
		case cfg.IPAutoDetectionMethod != nil && *cfg.IPAutoDetectionMethod != "":
			explicit, p = *cfg.IPAutoDetectionMethod, r.path.Child("ipAutodetectionMethod")
		}
		want := ""
		if c.NodeCIDR != "" && len(nodes.IPv4) > 0 {
			want = "cidr=" + strings.Join(nodes.IPv4, ",")
		} else if p != nil && p.String() == r.path.Child("ipv4", "autoDetectionMethod").String() {
			// Without a node network the explicit ipv4 method survived.
			want = explicit
		}
		if p != nil && s.Autodetection.IPv4 != want {
			action := "calico-node's default method is deployed"
			if want != "" {
				action = "method " + want + " is deployed"
			}
			r.ignored(p, explicit, "the reference overwrote the autodetection method with the shoot's node networks (the deprecated field was never read)", action)
			s.Autodetection.IPv4 = want
		}
	}
	if v6 && c.NodeCIDR != "" && len(c.StatusNodeCIDRs) > 0 && cfg.IPv6 != nil && cfg.IPv6.AutoDetectionMethod != nil && *cfg.IPv6.AutoDetectionMethod != "" {
		want := ""
		if len(nodes.IPv6) > 0 {
			want = "cidr=" + strings.Join(nodes.IPv6, ",")
		}
		if s.Autodetection.IPv6 != want {
			action := "calico-node's default method is deployed"
			if want != "" {
				action = "method " + want + " is deployed"
			}
			r.ignored(r.path.Child("ipv6", "autoDetectionMethod"), *cfg.IPv6.AutoDetectionMethod, "the reference overwrote the autodetection method with the shoot's IPv6 node networks", action)
			s.Autodetection.IPv6 = want
		}
	}
}
