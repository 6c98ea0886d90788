package validation

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
)

var (
	supportedBackends              = []string{"bird", "none", "vxlan"}
	supportedIPAMTypes             = []string{"calico-ipam", "host-local"}
	supportedPools                 = []string{"ipip", "vxlan"}
	supportedIPv6Pools             = []string{"vxlan"}
	supportedPoolModes             = []string{"Always", "Never", "CrossSubnet", "Off"}
	supportedVXLANPoolModes        = []string{"Always", "Never"}
	supportedAutoScalingModes      = []string{"cluster-proportional", "vpa", "static"}
	supportedServiceLoopPrevention = []string{"Disabled", "Drop", "Reject"}
	supportedResources             = []string{"cpu", "memory"}
)

func contains[T ~string](list []string, v T) bool {
	for _, s := range list {
		if s == string(v) {
			return true
		}
	}
	return false
}

// ValidateNetworkConfig validates a NetworkConfig for a shoot with the given IP families (empty means
// IPv4). fldPath is where the NetworkConfig sits: nil for a file of its own, spec.networking.providerConfig
// in a Shoot, spec.providerConfig in a Network.
func ValidateNetworkConfig(cfg *calicov1alpha1.NetworkConfig, ipFamilies []gardencorev1beta1.IPFamily, fldPath *field.Path) field.ErrorList {
	if cfg == nil {
		return nil
	}
	fam := familiesOf(ipFamilies)
	var allErrs field.ErrorList

	if cfg.Backend != nil && !contains(supportedBackends, *cfg.Backend) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("backend"), string(*cfg.Backend), supportedBackends))
	}
	allErrs = append(allErrs, validateIPAM(cfg, fam, fldPath)...)
	allErrs = append(allErrs, validateIPv4(cfg, fam, fldPath)...)
	allErrs = append(allErrs, validateIPv6(cfg, fam, fldPath)...)
	if cfg.VethMTU != nil {
		allErrs = append(allErrs, validateMTU(*cfg.VethMTU, fldPath.Child("vethMTU"))...)
	}
	if cfg.AutoScaling != nil {
		allErrs = append(allErrs, validateAutoScaling(cfg.AutoScaling, fldPath.Child("autoScaling"))...)
	}
	if cfg.ServiceLoopPrevention != nil && !contains(supportedServiceLoopPrevention, *cfg.ServiceLoopPrevention) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("serviceLoopPrevention"), string(*cfg.ServiceLoopPrevention), supportedServiceLoopPrevention))
	}
	allErrs = append(allErrs, validateContradictions(cfg, fam, fldPath)...)
	allErrs = append(allErrs, validatePolicyValidation(cfg.PolicyValidation, fldPath.Child("policyValidation"))...)
	return allErrs
}

func validateIPAM(cfg *calicov1alpha1.NetworkConfig, fam families, fldPath *field.Path) field.ErrorList {
	if cfg.IPAM == nil {
		return nil
	}
	var allErrs field.ErrorList
	typePath := fldPath.Child("ipam", "type")
	ipamType := cfg.IPAM.Type
	if ipamType != "" && !contains(supportedIPAMTypes, ipamType) {
		allErrs = append(allErrs, field.NotSupported(typePath, string(ipamType), supportedIPAMTypes))
	}
	if ipamType == calicov1alpha1.IPAMCalico && fam.ipv6 {
		allErrs = append(allErrs, field.Invalid(typePath, string(ipamType), fmt.Sprintf(`IPAM type "calico-ipam" is only supported for IPv4 single-stack shoots, use "host-local" instead (this is %s)`, fam.describe())))
	}
	if cfg.IPAM.CIDR == nil {
		return allErrs
	}
	cidrPath := fldPath.Child("ipam", "cidr")
	cidr := *cfg.IPAM.CIDR
	vxlanPath := fldPath.Child("vxlan", "enabled")
	switch {
	case ipamType == calicov1alpha1.IPAMCalico:
		allErrs = append(allErrs, field.Invalid(cidrPath, cidr, fmt.Sprintf(`contradicts %s: "calico-ipam": the cidr is the host-local subnet; calico-ipam allocates from the IP pools, remove one of the two`, typePath)))
	case ipamType == "" && fam.ipv4 && !fam.ipv6 && cfg.VXLAN != nil && cfg.VXLAN.Enabled:
		allErrs = append(allErrs, field.Invalid(cidrPath, cidr, fmt.Sprintf(`contradicts %s: true, which makes the IPAM "calico-ipam": the cidr is the host-local subnet, remove it`, vxlanPath)))
	default:
		// The cidr is the host-local subnet of its family: usePodCidr is the node's first pod CIDR
		// (IPv4's on dual-stack), usePodCidrIPv6 the IPv6 one. Calico matches them case-insensitively.
		var family gardencorev1beta1.IPFamily
		switch {
		case strings.EqualFold(cidr, "usePodCidr"):
			if fam.dualStack() {
				family = gardencorev1beta1.IPFamilyIPv4
			}
		case strings.EqualFold(cidr, "usePodCidrIPv6"):
			family = gardencorev1beta1.IPFamilyIPv6
		default:
			_, n, err := net.ParseCIDR(cidr)
			if err != nil {
				allErrs = append(allErrs, field.Invalid(cidrPath, cidr, `must be "usePodCidr", "usePodCidrIPv6" or a CIDR such as 100.96.0.0/11`))
				return allErrs
			}
			family = cidrFamily(n)
		}
		if family == gardencorev1beta1.IPFamilyIPv4 && !fam.ipv4 || family == gardencorev1beta1.IPFamilyIPv6 && !fam.ipv6 {
			allErrs = append(allErrs, field.Invalid(cidrPath, cidr, fmt.Sprintf("is an %s subnet, but this is %s", family, fam.describe())))
		}
	}
	return allErrs
}

// ipv4Mode returns the effective explicit IPv4 pool mode and the path it was written at: ipv4.mode,
// else the deprecated ipip, else nil.
func ipv4Mode(cfg *calicov1alpha1.NetworkConfig, fldPath *field.Path) (*calicov1alpha1.PoolMode, *field.Path) {
	if cfg.IPv4 != nil && cfg.IPv4.Mode != nil {
		return cfg.IPv4.Mode, fldPath.Child("ipv4", "mode")
	}
	if cfg.IPIP != nil {
		return cfg.IPIP, fldPath.Child("ipip")
	}
	return nil, nil
}

func validateIPv4(cfg *calicov1alpha1.NetworkConfig, fam families, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	notIPv4 := func(p *field.Path) *field.Error {
		return field.Forbidden(p, fmt.Sprintf("IPv4 configuration must not be specified if the shoot does not use IPv4 networking (this is %s)", fam.describe()))
	}
	ipv4Path := fldPath.Child("ipv4")
	ipipPath := fldPath.Child("ipip")
	autoPath := fldPath.Child("ipAutodetectionMethod")

	if cfg.IPv4 != nil {
		if !fam.ipv4 {
			allErrs = append(allErrs, notIPv4(ipv4Path))
		} else {
			if p := cfg.IPv4.Pool; p != nil && !contains(supportedPools, *p) {
				allErrs = append(allErrs, field.NotSupported(ipv4Path.Child("pool"), string(*p), supportedPools))
			}
			if m := cfg.IPv4.Mode; m != nil && !contains(supportedPoolModes, *m) {
				allErrs = append(allErrs, field.NotSupported(ipv4Path.Child("mode"), string(*m), supportedPoolModes))
			}
			if a := cfg.IPv4.AutoDetectionMethod; a != nil && *a != "" {
				allErrs = append(allErrs, ValidateIPAutoDetectionMethod(*a, gardencorev1beta1.IPFamilyIPv4, ipv4Path.Child("autoDetectionMethod"))...)
			}
		}
	}
	if cfg.IPIP != nil {
		switch {
		case !fam.ipv4:
			allErrs = append(allErrs, notIPv4(ipipPath))
		case !contains(supportedPoolModes, *cfg.IPIP):
			allErrs = append(allErrs, field.NotSupported(ipipPath, string(*cfg.IPIP), supportedPoolModes))
		case cfg.IPv4 != nil && cfg.IPv4.Mode != nil && *cfg.IPv4.Mode != *cfg.IPIP:
			allErrs = append(allErrs, field.Invalid(ipipPath, string(*cfg.IPIP), fmt.Sprintf("contradicts %s: %q; the deprecated ipip is only a fallback for %s, remove it", ipv4Path.Child("mode"), *cfg.IPv4.Mode, ipv4Path.Child("mode"))))
		}
	}
	if cfg.IPAutoDetectionMethod != nil {
		switch {
		case !fam.ipv4:
			allErrs = append(allErrs, notIPv4(autoPath))
		default:
			errs := ValidateIPAutoDetectionMethod(*cfg.IPAutoDetectionMethod, gardencorev1beta1.IPFamilyIPv4, autoPath)
			allErrs = append(allErrs, errs...)
			if len(errs) == 0 && cfg.IPv4 != nil && cfg.IPv4.AutoDetectionMethod != nil && *cfg.IPv4.AutoDetectionMethod != "" && *cfg.IPv4.AutoDetectionMethod != *cfg.IPAutoDetectionMethod {
				newPath := ipv4Path.Child("autoDetectionMethod")
				allErrs = append(allErrs, field.Invalid(autoPath, *cfg.IPAutoDetectionMethod, fmt.Sprintf("contradicts %s: %q; the deprecated ipAutodetectionMethod is only a fallback for %s, remove it", newPath, *cfg.IPv4.AutoDetectionMethod, newPath)))
			}
		}
	}
	// Calico VXLAN pools only encapsulate Always or Never (reference rule), whichever field set the
	// mode and whether the pool is vxlan explicitly or because vxlan.enabled is true.
	if fam.ipv4 {
		explicitVXLAN := cfg.IPv4 != nil && cfg.IPv4.Pool != nil && *cfg.IPv4.Pool == calicov1alpha1.PoolVXLAN
		derivedVXLAN := (cfg.IPv4 == nil || cfg.IPv4.Pool == nil) && cfg.VXLAN != nil && cfg.VXLAN.Enabled
		if mode, modePath := ipv4Mode(cfg, fldPath); mode != nil && contains(supportedPoolModes, *mode) && !contains(supportedVXLANPoolModes, *mode) {
			switch {
			case explicitVXLAN:
				allErrs = append(allErrs, field.Invalid(modePath, string(*mode), fmt.Sprintf(`not supported with %s: "vxlan", supported values: "Always", "Never"`, ipv4Path.Child("pool"))))
			case derivedVXLAN:
				allErrs = append(allErrs, field.Invalid(modePath, string(*mode), fmt.Sprintf(`not supported with %s: true (a VXLAN pool), supported values: "Always", "Never"`, fldPath.Child("vxlan", "enabled"))))
			}
		}
	}
	return allErrs
}

func validateIPv6(cfg *calicov1alpha1.NetworkConfig, fam families, fldPath *field.Path) field.ErrorList {
	if cfg.IPv6 == nil {
		return nil
	}
	ipv6Path := fldPath.Child("ipv6")
	if !fam.ipv6 {
		return field.ErrorList{field.Forbidden(ipv6Path, fmt.Sprintf("IPv6 configuration must not be specified if the shoot does not use IPv6 networking (this is %s)", fam.describe()))}
	}
	var allErrs field.ErrorList
	// Calico's IPv6 pools are VXLAN only, so the VXLAN mode rule applies to every IPv6 pool. The
	// reference accepted ipip and Off here and then failed at chart generation.
	if p := cfg.IPv6.Pool; p != nil && !contains(supportedIPv6Pools, *p) {
		allErrs = append(allErrs, field.NotSupported(ipv6Path.Child("pool"), string(*p), supportedIPv6Pools))
	}
	if m := cfg.IPv6.Mode; m != nil && !contains(supportedVXLANPoolModes, *m) {
		allErrs = append(allErrs, field.NotSupported(ipv6Path.Child("mode"), string(*m), supportedVXLANPoolModes))
	}
	if a := cfg.IPv6.AutoDetectionMethod; a != nil && *a != "" {
		allErrs = append(allErrs, ValidateIPAutoDetectionMethod(*a, gardencorev1beta1.IPFamilyIPv6, ipv6Path.Child("autoDetectionMethod"))...)
	}
	return allErrs
}

// validateMTU accepts "0" (auto-detect) or an MTU between 68 (the IPv4 minimum) and 65535.
func validateMTU(mtu string, fldPath *field.Path) field.ErrorList {
	if mtu == "" {
		return field.ErrorList{field.Invalid(fldPath, mtu, `MTU cannot be empty; use "0" to auto-detect`)}
	}
	n, err := strconv.Atoi(mtu)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(fldPath, mtu, `must be an integer such as "1440", or "0" to auto-detect`)}
	case n < 0:
		return field.ErrorList{field.Invalid(fldPath, mtu, `MTU must be a positive integer, or "0" to auto-detect`)}
	case strconv.Itoa(n) != mtu:
		return field.ErrorList{field.Invalid(fldPath, mtu, fmt.Sprintf("must be written as a plain integer: %q", strconv.Itoa(n)))}
	case n != 0 && (n < 68 || n > 65535):
		return field.ErrorList{field.Invalid(fldPath, mtu, `must be between 68 and 65535, or "0" to auto-detect`)}
	}
	return nil
}

func validateAutoScaling(as *calicov1alpha1.AutoScaling, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if !contains(supportedAutoScalingModes, as.Mode) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("mode"), string(as.Mode), supportedAutoScalingModes))
	}
	if as.Resources != nil {
		if as.Resources.Node != nil {
			allErrs = append(allErrs, validateResources(*as.Resources.Node, fldPath.Child("resources", "node"))...)
		}
		if as.Resources.Typha != nil {
			allErrs = append(allErrs, validateResources(*as.Resources.Typha, fldPath.Child("resources", "typha"))...)
		}
	}
	return allErrs
}

// validateResources accepts cpu and memory with positive amounts. A negative amount is one error
// (the reference reported it twice).
func validateResources(list corev1.ResourceList, fldPath *field.Path) field.ErrorList {
	names := make([]string, 0, len(list))
	for name := range list {
		names = append(names, string(name))
	}
	sort.Strings(names)
	var allErrs field.ErrorList
	for _, name := range names {
		p := fldPath.Key(name)
		if !contains(supportedResources, name) {
			allErrs = append(allErrs, field.NotSupported(p, name, supportedResources))
			continue
		}
		q := list[corev1.ResourceName(name)]
		switch q.Sign() {
		case 0:
			allErrs = append(allErrs, field.Invalid(p, q.String(), "must be specified and cannot be zero"))
		case -1:
			allErrs = append(allErrs, field.Invalid(p, q.String(), "must be positive"))
		}
	}
	return allErrs
}

// validateContradictions rejects explicit settings that ask for opposite things. The reference
// silently let one win; here the user decides. Each error sits on the field that has to change
// and names the field it contradicts.
func validateContradictions(cfg *calicov1alpha1.NetworkConfig, fam families, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	overlayPath := fldPath.Child("overlay", "enabled")
	vxlanPath := fldPath.Child("vxlan", "enabled")
	backendPath := fldPath.Child("backend")
	vxlanOn := cfg.VXLAN != nil && cfg.VXLAN.Enabled
	vxlanOff := cfg.VXLAN != nil && !cfg.VXLAN.Enabled
	mode4, mode4Path := ipv4Mode(cfg, fldPath)
	if !fam.ipv4 {
		mode4 = nil
	}
	var mode6 *calicov1alpha1.PoolMode
	if fam.ipv6 && cfg.IPv6 != nil {
		mode6 = cfg.IPv6.Mode
	}
	encapsulates := func(m calicov1alpha1.PoolMode) bool {
		return m == calicov1alpha1.PoolModeAlways || m == calicov1alpha1.PoolModeCrossSubnet
	}
	isOff := func(m calicov1alpha1.PoolMode) bool {
		return m == calicov1alpha1.PoolModeNever || m == calicov1alpha1.PoolModeOff
	}

	if cfg.Overlay != nil {
		on := cfg.Overlay.Enabled
		if mode4 != nil && on && isOff(*mode4) {
			allErrs = append(allErrs, field.Invalid(mode4Path, string(*mode4), fmt.Sprintf(`contradicts %s: true; an overlay encapsulates, use "Always" or "CrossSubnet" or remove the mode`, overlayPath)))
		}
		if mode4 != nil && !on && encapsulates(*mode4) {
			allErrs = append(allErrs, field.Invalid(mode4Path, string(*mode4), fmt.Sprintf(`contradicts %s: false; without an overlay nothing is encapsulated, use "Never" or remove the mode`, overlayPath)))
		}
		if mode6 != nil && on && *mode6 == calicov1alpha1.PoolModeNever {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("ipv6", "mode"), string(*mode6), fmt.Sprintf(`contradicts %s: true; an overlay encapsulates, use "Always" or remove the mode`, overlayPath)))
		}
		if mode6 != nil && !on && *mode6 == calicov1alpha1.PoolModeAlways {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("ipv6", "mode"), string(*mode6), fmt.Sprintf(`contradicts %s: false; without an overlay nothing is encapsulated, use "Never" or remove the mode`, overlayPath)))
		}
		if vxlanOn && !on {
			allErrs = append(allErrs, field.Invalid(vxlanPath, true, fmt.Sprintf("contradicts %s: false; VXLAN is an overlay encapsulation", overlayPath)))
		}
		if cfg.Backend != nil && contains(supportedBackends, *cfg.Backend) {
			implied, why := impliedBackend(cfg, fam, fldPath)
			if *cfg.Backend != implied {
				allErrs = append(allErrs, field.Invalid(backendPath, string(*cfg.Backend), fmt.Sprintf("contradicts %s, which implies backend %q; remove backend", why, implied)))
			}
		}
	} else if cfg.Backend != nil && *cfg.Backend == calicov1alpha1.BackendNone && mode4 != nil && encapsulates(*mode4) {
		allErrs = append(allErrs, field.Invalid(mode4Path, string(*mode4), fmt.Sprintf(`contradicts %s: "none"; backend none does not encapsulate, use "Never" or remove the mode`, backendPath)))
	}
	if cfg.Backend != nil && *cfg.Backend == calicov1alpha1.BackendVXLAN && vxlanOff && cfg.Overlay == nil {
		allErrs = append(allErrs, field.Invalid(backendPath, string(*cfg.Backend), fmt.Sprintf("contradicts %s: false", vxlanPath)))
	}

	if fam.ipv4 && cfg.IPv4 != nil && cfg.IPv4.Pool != nil {
		poolPath := fldPath.Child("ipv4", "pool")
		switch {
		case *cfg.IPv4.Pool == calicov1alpha1.PoolIPIP && vxlanOn:
			allErrs = append(allErrs, field.Invalid(poolPath, string(*cfg.IPv4.Pool), fmt.Sprintf(`contradicts %s: true, which makes the IPv4 pool "vxlan"`, vxlanPath)))
		case *cfg.IPv4.Pool == calicov1alpha1.PoolVXLAN && vxlanOff:
			allErrs = append(allErrs, field.Invalid(poolPath, string(*cfg.IPv4.Pool), fmt.Sprintf(`contradicts %s: false; set vxlan.enabled: true or use pool "ipip"`, vxlanPath)))
		}
	}
	// Calico routes VXLAN traffic by IPAM block affinities, which host-local IPAM does not create.
	if vxlanOn && fam.ipv4 && !fam.ipv6 && cfg.IPAM != nil && cfg.IPAM.Type == calicov1alpha1.IPAMHostLocal {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("ipam", "type"), string(cfg.IPAM.Type), fmt.Sprintf(`contradicts %s: true, which needs "calico-ipam" on IPv4 single-stack shoots; use "calico-ipam" or remove ipam.type`, vxlanPath)))
	}
	return allErrs
}

// impliedBackend is the backend an explicit overlay setting implies, and the settings that imply it.
// vxlan.enabled is IPv4 configuration: on an IPv6 single-stack shoot the overlay implies bird.
func impliedBackend(cfg *calicov1alpha1.NetworkConfig, fam families, fldPath *field.Path) (calicov1alpha1.Backend, string) {
	overlayPath := fldPath.Child("overlay", "enabled")
	if cfg.Overlay.Enabled {
		if cfg.VXLAN != nil && cfg.VXLAN.Enabled && fam.ipv4 {
			return calicov1alpha1.BackendVXLAN, fmt.Sprintf("%s: true with %s: true", overlayPath, fldPath.Child("vxlan", "enabled"))
		}
		return calicov1alpha1.BackendBird, fmt.Sprintf("%s: true", overlayPath)
	}
	if cfg.Overlay.CreatePodRoutes != nil && *cfg.Overlay.CreatePodRoutes {
		return calicov1alpha1.BackendBird, fmt.Sprintf("%s: false with %s: true", overlayPath, fldPath.Child("overlay", "createPodRoutes"))
	}
	return calicov1alpha1.BackendNone, fmt.Sprintf("%s: false", overlayPath)
}
