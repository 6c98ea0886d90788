package validation

import (
	"fmt"
	"net"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/decode"
	"github.com/calico-pilot/calico-pilot/internal/rules"
)

var supportedIPFamilies = []string{"IPv4", "IPv6"}

// ValidateShoot validates what the Calico extension needs from a Shoot, as one sequence: it checks
// spec.networking (ValidateNetworking), gathers the Shoot's facts, decodes the NetworkConfig in
// spec.networking.providerConfig once (strictly, paths below it), then applies every rule to it in
// one place (rules.Shoot: the NetworkConfig rules with the Shoot's families, the kube-proxy rule, the
// VPA prerequisite of autoScaling.mode vpa and the Kubernetes range of a pinned Calico release).
// Workerless Shoots (rules.NetworkingOf) get no Network and are not validated (as in the reference
// webhook).
//
// It hands back the decoded NetworkConfig whenever the providerConfig decodes, also when other
// rules fail, so callers that go on after an error (ratcheting, validate's notes on a pin) decode it
// once; it is nil when the Shoot has none, is not a calico Shoot, or its providerConfig does not
// decode.
func ValidateShoot(shoot *gardencorev1beta1.Shoot) (*calicov1alpha1.NetworkConfig, field.ErrorList) {
	if shoot == nil {
		return nil, nil
	}
	networking := rules.NetworkingOf(shoot)
	if networking == rules.NetworkingWorkerless {
		return nil, nil
	}
	netPath := field.NewPath("spec", "networking")
	if shoot.Spec.Networking == nil {
		return nil, field.ErrorList{field.Required(netPath.Child("type"), fmt.Sprintf("networking type is required, it must be %q", calicov1alpha1.NetworkType))}
	}
	allErrs := ValidateNetworking(shoot.Spec.Networking, netPath)
	if networking != rules.NetworkingCalico {
		// A providerConfig of another plugin is not a NetworkConfig.
		return nil, allErrs
	}

	facts := shootFacts(shoot)
	cfg, decodeErrs := decode.ShootNetworkConfig(shoot)
	if len(decodeErrs) > 0 {
		// The rules need the decoded config; judging a half-understood config would mislead.
		return nil, append(allErrs, decodeErrs...)
	}
	return cfg, append(allErrs, rules.Shoot(cfg, facts, decode.ProviderConfigPath())...)
}

// shootFacts gathers what the rules judge a Shoot's NetworkConfig against. Unknown IP families are
// left out (ValidateNetworking reports them), so that one wrong family does not also produce errors
// about family-specific NetworkConfig blocks.
func shootFacts(shoot *gardencorev1beta1.Shoot) rules.ShootFacts {
	k := shoot.Spec.Kubernetes
	facts := rules.ShootFacts{
		Families:          rules.FamiliesOf(validFamilies(shoot.Spec.Networking.IPFamilies)),
		VPAEnabled:        k.VerticalPodAutoscaler != nil && k.VerticalPodAutoscaler.Enabled,
		KubernetesVersion: k.Version,
	}
	if k.KubeProxy != nil {
		facts.KubeProxyEnabled = k.KubeProxy.Enabled
	}
	return facts
}

// ValidateNetworking validates a Shoot's spec.networking as the reference webhook does (type, CIDRs,
// ipFamilies), and additionally that single-stack CIDRs are of the shoot's family.
func ValidateNetworking(networking *gardencorev1beta1.Networking, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	switch {
	case networking.Type == nil || *networking.Type == "":
		allErrs = append(allErrs, field.Required(fldPath.Child("type"), fmt.Sprintf("networking type is required, it must be %q", calicov1alpha1.NetworkType)))
	case *networking.Type != calicov1alpha1.NetworkType:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("type"), *networking.Type, []string{calicov1alpha1.NetworkType}))
	}

	familyErrs := ValidateIPFamilies(networking.IPFamilies, fldPath.Child("ipFamilies"))
	allErrs = append(allErrs, familyErrs...)

	single := rules.FamilySetOf(validFamilies(networking.IPFamilies)).Single()
	for _, c := range []struct {
		name  string
		value *string
	}{{"pods", networking.Pods}, {"nodes", networking.Nodes}, {"services", networking.Services}} {
		if c.value == nil {
			continue
		}
		p := fldPath.Child(c.name)
		_, n, err := net.ParseCIDR(*c.value)
		if err != nil {
			allErrs = append(allErrs, field.Invalid(p, *c.value, fmt.Sprintf("%s is not a valid CIDR", c.name)))
			continue
		}
		if len(familyErrs) == 0 && single != "" && rules.CIDRFamily(n) != single {
			allErrs = append(allErrs, field.Invalid(p, *c.value, fmt.Sprintf("must be an %s CIDR, the shoot's only IP family", single)))
		}
	}
	return allErrs
}

// validFamilies drops unknown entries.
func validFamilies(in []gardencorev1beta1.IPFamily) []gardencorev1beta1.IPFamily {
	var out []gardencorev1beta1.IPFamily
	for _, f := range in {
		if slices.Contains(supportedIPFamilies, string(f)) {
			out = append(out, f)
		}
	}
	return out
}

// ValidateIPFamilies checks a list of IP families: each IPv4 or IPv6, at most two, no duplicates.
func ValidateIPFamilies(ipFamilies []gardencorev1beta1.IPFamily, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, family := range ipFamilies {
		if !slices.Contains(supportedIPFamilies, string(family)) {
			allErrs = append(allErrs, field.NotSupported(fldPath.Index(i), string(family), supportedIPFamilies))
		}
	}
	switch n := len(ipFamilies); {
	case n > 2:
		allErrs = append(allErrs, field.TooMany(fldPath, n, 2))
	case n == 2 && ipFamilies[0] == ipFamilies[1]:
		allErrs = append(allErrs, field.Duplicate(fldPath.Index(1), string(ipFamilies[1])))
	}
	return allErrs
}
