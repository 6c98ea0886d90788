package validation

import (
	"fmt"
	"net"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
)

// autoDetectionOptions are calico-node's address autodetection methods, sorted (the reference
// printed them in random order).
var autoDetectionOptions = []string{"can-reach", "cidr", "first-found", "interface", "kubernetes-internal-ip", "skip-interface"}

// ValidateIPAutoDetectionMethod checks a calico-node address autodetection method ("option" or
// "option=parameter") for the given family. The cidr option takes one CIDR or a comma-separated
// list (as calico-node does); interface and skip-interface take comma-separated Go regular expressions.
func ValidateIPAutoDetectionMethod(method string, family gardencorev1beta1.IPFamily, fldPath *field.Path) field.ErrorList {
	if method == "" {
		return field.ErrorList{field.Invalid(fldPath, method, "method cannot be empty; remove the field to use calico-node's default")}
	}
	option, param, hasParam := strings.Cut(method, "=")
	requireParam := func(example string) *field.Error {
		if !hasParam || param == "" {
			return field.Invalid(fldPath, method, fmt.Sprintf("option %s requires a parameter, e.g. %s", option, example))
		}
		return nil
	}
	switch option {
	case "first-found", "kubernetes-internal-ip":
		if hasParam {
			return field.ErrorList{field.Invalid(fldPath, method, fmt.Sprintf("option %s does not take a parameter", option))}
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
				return field.ErrorList{field.Invalid(fldPath, method, fmt.Sprintf("parameter %q of option cidr is not a valid CIDR", c))}
			}
			if cidrFamily(n) != family {
				return field.ErrorList{field.Invalid(fldPath, method, fmt.Sprintf("parameter %q of option cidr is not an %s CIDR", c, family))}
			}
		}
	case "can-reach":
		if err := requireParam("can-reach=8.8.8.8"); err != nil {
			return field.ErrorList{err}
		}
		if ip := net.ParseIP(param); ip != nil {
			isV4 := ip.To4() != nil
			if isV4 != (family == gardencorev1beta1.IPFamilyIPv4) {
				return field.ErrorList{field.Invalid(fldPath, method, fmt.Sprintf("parameter of can-reach must be an %s address or a DNS name", family))}
			}
		} else if errs := validation.IsDNS1123Subdomain(param); len(errs) > 0 {
			return field.ErrorList{field.Invalid(fldPath, method, fmt.Sprintf("parameter of can-reach must be a valid IP address or DNS name: %s", strings.Join(errs, "; ")))}
		}
	case "interface", "skip-interface":
		if err := requireParam(option + "=eth.*"); err != nil {
			return field.ErrorList{err}
		}
		for _, expr := range strings.Split(param, ",") {
			if _, err := regexp.Compile(expr); err != nil {
				return field.ErrorList{field.Invalid(fldPath, method, fmt.Sprintf("invalid regex for option %s: %v", option, err))}
			}
		}
	default:
		return field.ErrorList{field.Invalid(fldPath, method, fmt.Sprintf("invalid option %q, supported options: %s", option, strings.Join(autoDetectionOptions, ", ")))}
	}
	return nil
}
