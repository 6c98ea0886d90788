package rules

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
)

var (
	supportedPools          = []string{"ipip", "vxlan"}
	supportedIPv6Pools      = []string{"vxlan"}
	supportedPoolModes      = []string{"Always", "Never", "CrossSubnet", "Off"}
	supportedVXLANPoolModes = []string{"Always", "Never"}
)

// Pool is a default IP pool's encapsulation and mode.
type Pool struct {
	// Encapsulation is ipip or vxlan.
	Encapsulation calicov1alpha1.Pool
	// Mode is Always, Never or CrossSubnet ("Off" is the API's old spelling of Never).
	Mode calicov1alpha1.PoolMode
}

// Encapsulates says whether the mode encapsulates any traffic (calicov1alpha1.PoolMode.Encapsulates).
func (p Pool) Encapsulates() bool { return p.Mode.Encapsulates() }

// explicitIPv4Mode returns the explicit IPv4 pool mode and the path it was written at: ipv4.mode,
// else the deprecated ipip (its fallback), else nil.
func explicitIPv4Mode(cfg *calicov1alpha1.NetworkConfig, path *field.Path) (*calicov1alpha1.PoolMode, *field.Path) {
	if cfg.IPv4 != nil && cfg.IPv4.Mode != nil {
		return cfg.IPv4.Mode, path.Child("ipv4", "mode")
	}
	if cfg.IPIP != nil {
		return cfg.IPIP, path.Child("ipip")
	}
	return nil, nil
}

// notEncapsulating is true for a supported mode that does not encapsulate (an unsupported one is
// reported by its own rule, not as a contradiction).
func notEncapsulating(m calicov1alpha1.PoolMode) bool {
	return m == calicov1alpha1.PoolModeNever || m == calicov1alpha1.PoolModeOff
}

// IPv4Pool returns the IPv4 default pool and the errors of the IPv4 pool rules. backend is the
// result of Backend. The encapsulation is ipip, vxlan with vxlan.enabled, or ipv4.pool when set;
// the mode is Always, Never when the overlay is off or backend is none, or the explicit mode
// (ipv4.mode, else the deprecated ipip). The rules are judged only on shoots that request IPv4
// (IPv4Family reports the block otherwise).
func IPv4Pool(cfg *calicov1alpha1.NetworkConfig, fam Families, backend calicov1alpha1.Backend, path *field.Path) (Pool, field.ErrorList) {
	pool := Pool{Encapsulation: calicov1alpha1.PoolIPIP, Mode: calicov1alpha1.PoolModeAlways}
	if cfg.VXLAN != nil && cfg.VXLAN.Enabled {
		pool.Encapsulation = calicov1alpha1.PoolVXLAN
	}
	if cfg.IPv4 != nil && cfg.IPv4.Pool != nil {
		pool.Encapsulation = calicov1alpha1.PoolIPIP
		if *cfg.IPv4.Pool == calicov1alpha1.PoolVXLAN {
			pool.Encapsulation = calicov1alpha1.PoolVXLAN
		}
	}
	if backend == calicov1alpha1.BackendNone || (cfg.Overlay != nil && !cfg.Overlay.Enabled) {
		pool.Mode = calicov1alpha1.PoolModeNever
	}
	if mode, _ := explicitIPv4Mode(cfg, path); mode != nil {
		pool.Mode = *mode
		if pool.Mode == calicov1alpha1.PoolModeOff {
			pool.Mode = calicov1alpha1.PoolModeNever
		}
	}
	if !fam.Requested.IPv4 {
		return pool, nil
	}
	errs := ipv4PoolValues(cfg, path)
	errs = append(errs, ipv4VXLANMode(cfg, path)...)
	modeErrs := ipv4ModeContradictions(cfg, path)
	if len(modeErrs) > 0 {
		// The reference's choice: the overlay setting (or backend none) decided the mode.
		pool.Mode = calicov1alpha1.PoolModeNever
		if cfg.Overlay != nil && cfg.Overlay.Enabled {
			pool.Mode = calicov1alpha1.PoolModeAlways
		}
	}
	errs = append(errs, modeErrs...)
	return pool, append(errs, ipv4PoolContradictions(cfg, path)...)
}

// ipv4PoolValues checks ipv4.pool, ipv4.mode and the deprecated ipip on their own, and ipip
// against ipv4.mode (it is only the fallback).
func ipv4PoolValues(cfg *calicov1alpha1.NetworkConfig, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	ipv4Path := path.Child("ipv4")
	if cfg.IPv4 != nil {
		if p := cfg.IPv4.Pool; p != nil && !contains(supportedPools, *p) {
			errs = append(errs, RuleIPv4PoolSupported.notSupported(ipv4Path.Child("pool"), string(*p), supportedPools))
		}
		if m := cfg.IPv4.Mode; m != nil && !contains(supportedPoolModes, *m) {
			errs = append(errs, RuleIPv4ModeSupported.notSupported(ipv4Path.Child("mode"), string(*m), supportedPoolModes))
		}
	}
	if cfg.IPIP != nil {
		switch {
		case !contains(supportedPoolModes, *cfg.IPIP):
			errs = append(errs, RuleIPIPSupported.notSupported(path.Child("ipip"), string(*cfg.IPIP), supportedPoolModes))
		case cfg.IPv4 != nil && cfg.IPv4.Mode != nil && *cfg.IPv4.Mode != *cfg.IPIP:
			newPath := ipv4Path.Child("mode")
			errs = append(errs, RuleIPIPIPv4Mode.invalid(path.Child("ipip"), string(*cfg.IPIP), fmt.Sprintf("contradicts %s: %q; the deprecated ipip is only a fallback for %s, remove it", newPath, *cfg.IPv4.Mode, newPath)))
		}
	}
	return errs
}

// ipv4VXLANMode: Calico VXLAN pools only encapsulate Always or Never (a reference rule for
// ipv4.pool: vxlan), whichever field set the mode and whether the pool is vxlan explicitly or from
// vxlan.enabled.
func ipv4VXLANMode(cfg *calicov1alpha1.NetworkConfig, path *field.Path) field.ErrorList {
	mode, modePath := explicitIPv4Mode(cfg, path)
	if mode == nil || !contains(supportedPoolModes, *mode) || contains(supportedVXLANPoolModes, *mode) {
		return nil
	}
	explicitPool := cfg.IPv4 != nil && cfg.IPv4.Pool != nil
	switch {
	case explicitPool && *cfg.IPv4.Pool == calicov1alpha1.PoolVXLAN:
		id := RuleIPv4ModeVXLANPool
		if cfg.IPv4.Mode == nil {
			// The reference ignored the deprecated ipip.
			id = RuleIPv4ModeVXLANDerived
		}
		return field.ErrorList{id.invalid(modePath, string(*mode), fmt.Sprintf(`not supported with %s: "vxlan", supported values: "Always", "Never"`, path.Child("ipv4", "pool")))}
	case !explicitPool && cfg.VXLAN != nil && cfg.VXLAN.Enabled:
		return field.ErrorList{RuleIPv4ModeVXLANDerived.invalid(modePath, string(*mode), fmt.Sprintf(`not supported with %s: true (a VXLAN pool), supported values: "Always", "Never"`, path.Child("vxlan", "enabled")))}
	}
	return nil
}

// ipv4ModeContradictions: an explicit mode must agree with an explicit overlay, and not encapsulate
// with backend none.
func ipv4ModeContradictions(cfg *calicov1alpha1.NetworkConfig, path *field.Path) field.ErrorList {
	mode, modePath := explicitIPv4Mode(cfg, path)
	if mode == nil {
		return nil
	}
	overlayPath := path.Child("overlay", "enabled")
	switch {
	case cfg.Overlay != nil && cfg.Overlay.Enabled && notEncapsulating(*mode):
		return field.ErrorList{RuleIPv4ModeOverlay.invalid(modePath, string(*mode), fmt.Sprintf(`contradicts %s: true; an overlay encapsulates, use "Always" or "CrossSubnet" or remove the mode`, overlayPath))}
	case cfg.Overlay != nil && !cfg.Overlay.Enabled && mode.Encapsulates():
		return field.ErrorList{RuleIPv4ModeOverlay.invalid(modePath, string(*mode), fmt.Sprintf(`contradicts %s: false; without an overlay nothing is encapsulated, use "Never" or remove the mode`, overlayPath))}
	case cfg.Overlay == nil && cfg.Backend != nil && *cfg.Backend == calicov1alpha1.BackendNone && mode.Encapsulates():
		return field.ErrorList{RuleIPv4ModeBackendNone.invalid(modePath, string(*mode), fmt.Sprintf(`contradicts %s: "none"; backend none does not encapsulate, use "Never" or remove the mode`, path.Child("backend")))}
	}
	return nil
}

// ipv4PoolContradictions: an explicit pool must agree with an explicit vxlan.enabled.
func ipv4PoolContradictions(cfg *calicov1alpha1.NetworkConfig, path *field.Path) field.ErrorList {
	if cfg.IPv4 == nil || cfg.IPv4.Pool == nil || cfg.VXLAN == nil {
		return nil
	}
	pool := *cfg.IPv4.Pool
	poolPath := path.Child("ipv4", "pool")
	vxlanPath := path.Child("vxlan", "enabled")
	switch {
	case pool == calicov1alpha1.PoolIPIP && cfg.VXLAN.Enabled:
		return field.ErrorList{RuleIPv4PoolVXLANEnabled.invalid(poolPath, string(pool), fmt.Sprintf(`contradicts %s: true, which makes the IPv4 pool "vxlan"`, vxlanPath))}
	case pool == calicov1alpha1.PoolVXLAN && !cfg.VXLAN.Enabled:
		return field.ErrorList{RuleIPv4PoolVXLANDisabled.invalid(poolPath, string(pool), fmt.Sprintf(`contradicts %s: false; set vxlan.enabled: true or use pool "ipip"`, vxlanPath))}
	}
	return nil
}

// IPv6Pool returns the IPv6 default pool and the errors of the IPv6 pool rules. Calico's IPv6
// pools are VXLAN only, so the VXLAN mode rule applies to every IPv6 pool; the mode is Never
// unless set (the reference accepted ipip and Off here and then failed at chart generation). The
// rules are judged only on shoots that request IPv6 (IPv6Family reports the block otherwise).
func IPv6Pool(cfg *calicov1alpha1.NetworkConfig, fam Families, path *field.Path) (Pool, field.ErrorList) {
	pool := Pool{Encapsulation: calicov1alpha1.PoolVXLAN, Mode: calicov1alpha1.PoolModeNever}
	if cfg.IPv6 == nil {
		return pool, nil
	}
	if cfg.IPv6.Mode != nil {
		pool.Mode = *cfg.IPv6.Mode
	}
	if !fam.Requested.IPv6 {
		return pool, nil
	}
	var errs field.ErrorList
	ipv6Path := path.Child("ipv6")
	if p := cfg.IPv6.Pool; p != nil && !contains(supportedIPv6Pools, *p) {
		errs = append(errs, RuleIPv6PoolSupported.notSupported(ipv6Path.Child("pool"), string(*p), supportedIPv6Pools))
	}
	m := cfg.IPv6.Mode
	if m == nil {
		return pool, errs
	}
	modePath := ipv6Path.Child("mode")
	overlayPath := path.Child("overlay", "enabled")
	// overlayMode is the reference's choice where it overwrote the mode.
	overlayMode := calicov1alpha1.PoolModeNever
	if cfg.Overlay != nil && cfg.Overlay.Enabled {
		overlayMode = calicov1alpha1.PoolModeAlways
	}
	switch {
	case !contains(supportedVXLANPoolModes, *m):
		id := RuleIPv6ModeSupported
		if *m == calicov1alpha1.PoolModeCrossSubnet && cfg.IPv6.Pool == nil {
			// The reference accepted CrossSubnet without an explicit pool (and overwrote it).
			id = RuleIPv6ModeCrossSubnet
		}
		errs = append(errs, id.notSupported(modePath, string(*m), supportedVXLANPoolModes))
	case cfg.Overlay != nil && cfg.Overlay.Enabled && *m == calicov1alpha1.PoolModeNever:
		errs = append(errs, RuleIPv6ModeOverlay.invalid(modePath, string(*m), fmt.Sprintf(`contradicts %s: true; an overlay encapsulates, use "Always" or remove the mode`, overlayPath)))
	case cfg.Overlay != nil && !cfg.Overlay.Enabled && *m == calicov1alpha1.PoolModeAlways:
		errs = append(errs, RuleIPv6ModeOverlay.invalid(modePath, string(*m), fmt.Sprintf(`contradicts %s: false; without an overlay nothing is encapsulated, use "Never" or remove the mode`, overlayPath)))
	}
	for _, e := range errs {
		if e.Origin == string(RuleIPv6ModeCrossSubnet) || e.Origin == string(RuleIPv6ModeOverlay) {
			pool.Mode = overlayMode
		}
	}
	return pool, errs
}
