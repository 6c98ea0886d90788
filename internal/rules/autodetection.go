package rules

import (
	"fmt"
	"net"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
)

// autoDetectionOptions are calico-node's address autodetection methods, sorted (the reference
// printed them in random order).
var autoDetectionOptions = []string{"can-reach", "cidr", "first-found", "interface", "kubernetes-internal-ip", "skip-interface"}

// AutoDetectionMethod checks a calico-node address autodetection method ("option" or
// "option=parameter") for the given family. The cidr option takes one CIDR or a comma-separated
// list (as calico-node does); interface and skip-interface take comma-separated Go regular
// expressions.
func AutoDetectionMethod(method string, family gardencorev1beta1.IPFamily, fldPath *field.Path) field.ErrorList {
	id := RuleAutodetectionMethod
	if method == "" {
		return field.ErrorList{id.invalid(fldPath, method, "method cannot be empty; remove the field to use calico-node's default")}
	}
	option, param, hasParam := strings.Cut(method, "=")
	requireParam := func(example string) *field.Error {
		if !hasParam || param == "" {
			return id.invalid(fldPath, method, fmt.Sprintf("option %s requires a parameter, e.g. %s", option, example))
		}
		return nil
	}
	switch option {
	case "first-found", "kubernetes-internal-ip":
		if hasParam {
			return field.ErrorList{id.invalid(fldPath, method, fmt.Sprintf("option %s does not take a parameter", option))}
		}
	case "cidr":
		example := "cidr=10.250.0.0/16"
		if family == gardencorev1beta1.IPFamilyIPv6 {
			example = "cidr=2001:db8::/64"
		}
		if err := requireParam(example); err != nil {
			return field.ErrorList{err}
		}
		for _, c := range strings.Split(param, ",") {
			_, n, err := net.ParseCIDR(strings.TrimSpace(c))
			if err != nil {
				return field.ErrorList{id.invalid(fldPath, method, fmt.Sprintf("parameter %q of option cidr is not a valid CIDR", c))}
			}
			if CIDRFamily(n) != family {
				return field.ErrorList{RuleAutodetectionFamily.invalid(fldPath, method, fmt.Sprintf("parameter %q of option cidr is not an %s CIDR", c, family))}
			}
		}
	case "can-reach":
		if err := requireParam("can-reach=8.8.8.8"); err != nil {
			return field.ErrorList{err}
		}
		if ip := net.ParseIP(param); ip != nil {
			isV4 := ip.To4() != nil
			if isV4 != (family == gardencorev1beta1.IPFamilyIPv4) {
				return field.ErrorList{RuleAutodetectionFamily.invalid(fldPath, method, fmt.Sprintf("parameter of can-reach must be an %s address or a DNS name", family))}
			}
		} else if errs := validation.IsDNS1123Subdomain(param); len(errs) > 0 {
			return field.ErrorList{id.invalid(fldPath, method, fmt.Sprintf("parameter of can-reach must be a valid IP address or DNS name: %s", strings.Join(errs, "; ")))}
		}
	case "interface", "skip-interface":
		if err := requireParam(option + "=eth.*"); err != nil {
			return field.ErrorList{err}
		}
		for _, expr := range strings.Split(param, ",") {
			if _, err := regexp.Compile(expr); err != nil {
				return field.ErrorList{id.invalid(fldPath, method, fmt.Sprintf("invalid regex for option %s: %v", option, err))}
			}
		}
	default:
		return field.ErrorList{id.invalid(fldPath, method, fmt.Sprintf("invalid option %q, supported options: %s", option, strings.Join(autoDetectionOptions, ", ")))}
	}
	return nil
}

// NodeNetworks are the shoot's node networks by family, masked (the defaults of autodetection).
type NodeNetworks struct {
	IPv4, IPv6 []string
}

// NodeNetworksMethod is the autodetection method that picks the node's address in the given node
// networks (cidr=<networks>): the derived default, and what the reference forced in Reference mode.
func NodeNetworksMethod(cidrs []string) string { return "cidr=" + strings.Join(cidrs, ",") }

// AutodetectionMethods are calico-node's address autodetection methods; empty means not rendered.
type AutodetectionMethods struct {
	IPv4, IPv6 string
}

// Autodetection returns the autodetection methods of the active families and the errors of the
// autodetection rules. An explicit method wins (ipv4.autoDetectionMethod, else the deprecated
// ipAutodetectionMethod; an empty ipv4/ipv6 method means unset); otherwise cidr=<the node networks
// of the family>, if known. The rules are judged on the requested families (IPv4Family and
// IPv6Family report blocks of a family the shoot does not request).
func Autodetection(cfg *calicov1alpha1.NetworkConfig, fam Families, nodes NodeNetworks, path *field.Path) (AutodetectionMethods, field.ErrorList) {
	var explicit4, explicit6 string
	if cfg.IPv4 != nil && cfg.IPv4.AutoDetectionMethod != nil {
		explicit4 = *cfg.IPv4.AutoDetectionMethod
	}
	if cfg.IPv6 != nil && cfg.IPv6.AutoDetectionMethod != nil {
		explicit6 = *cfg.IPv6.AutoDetectionMethod
	}
	deprecated := cfg.IPAutoDetectionMethod

	var out AutodetectionMethods
	if fam.Active.IPv4 {
		switch {
		case explicit4 != "":
			out.IPv4 = explicit4
		case deprecated != nil && *deprecated != "":
			out.IPv4 = *deprecated
		case len(nodes.IPv4) > 0:
			out.IPv4 = NodeNetworksMethod(nodes.IPv4)
		}
	}
	if fam.Active.IPv6 {
		switch {
		case explicit6 != "":
			out.IPv6 = explicit6
		case len(nodes.IPv6) > 0:
			out.IPv6 = NodeNetworksMethod(nodes.IPv6)
		}
	}

	var errs field.ErrorList
	if fam.Requested.IPv4 {
		newPath := path.Child("ipv4", "autoDetectionMethod")
		if explicit4 != "" {
			errs = append(errs, AutoDetectionMethod(explicit4, gardencorev1beta1.IPFamilyIPv4, newPath)...)
		}
		if deprecated != nil {
			oldPath := path.Child("ipAutodetectionMethod")
			methodErrs := AutoDetectionMethod(*deprecated, gardencorev1beta1.IPFamilyIPv4, oldPath)
			errs = append(errs, methodErrs...)
			if len(methodErrs) == 0 && explicit4 != "" && explicit4 != *deprecated {
				errs = append(errs, RuleAutodetectionDeprecated.invalid(oldPath, *deprecated, fmt.Sprintf("contradicts %s: %q; the deprecated ipAutodetectionMethod is only a fallback for %s, remove it", newPath, explicit4, newPath)))
			}
		}
	}
	if fam.Requested.IPv6 && explicit6 != "" {
		errs = append(errs, AutoDetectionMethod(explicit6, gardencorev1beta1.IPFamilyIPv6, path.Child("ipv6", "autoDetectionMethod"))...)
	}
	return out, errs
}
