package rules

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
)

// FamilyBlocks returns the errors of the family rules: IPv4 configuration (ipv4 and the deprecated
// ipip and ipAutodetectionMethod) only on shoots that request IPv4, ipv6 only on shoots that
// request IPv6. While a dual-stack migration is pending the second family's block is valid and
// waits for it.
func FamilyBlocks(cfg *calicov1alpha1.NetworkConfig, fam Families, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if !fam.Requested.IPv4 {
		detail := fmt.Sprintf("IPv4 configuration must not be specified if the shoot does not use IPv4 networking (this is %s)", fam.Requested.describe())
		if cfg.IPv4 != nil {
			errs = append(errs, RuleIPv4Family.forbidden(path.Child("ipv4"), detail))
		}
		if cfg.IPIP != nil {
			errs = append(errs, RuleIPv4Family.forbidden(path.Child("ipip"), detail))
		}
		if cfg.IPAutoDetectionMethod != nil {
			errs = append(errs, RuleIPv4Family.forbidden(path.Child("ipAutodetectionMethod"), detail))
		}
	}
	if !fam.Requested.IPv6 && cfg.IPv6 != nil {
		errs = append(errs, RuleIPv6Family.forbidden(path.Child("ipv6"), fmt.Sprintf("IPv6 configuration must not be specified if the shoot does not use IPv6 networking (this is %s)", fam.Requested.describe())))
	}
	return errs
}
