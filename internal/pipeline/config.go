package pipeline

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/decode"
	"github.com/calico-pilot/calico-pilot/internal/rules"
	"github.com/calico-pilot/calico-pilot/internal/validation"
)

// NetworkProviderConfigPath is where a Network carries its NetworkConfig; every error path of a
// Network's config starts here.
func NetworkProviderConfigPath() *field.Path { return field.NewPath("spec", "providerConfig") }

// ShootConfig validates a Shoot (validation.ValidateShoot: spec.networking, the providerConfig decoded
// once, every rule applied in one place) and returns its NetworkConfig; nil when the Shoot has none
// or it does not decode. The errors carry paths in the Shoot; a caller that goes on after them (a
// ratcheted error) has the decoded config already.
func ShootConfig(shoot *gardencorev1beta1.Shoot) (*calicov1alpha1.NetworkConfig, field.ErrorList) {
	return validation.ValidateShoot(shoot)
}

// ExistingNetworkConfig strictly decodes and validates a Network's providerConfig (an empty
// NetworkConfig when none is set), with paths rooted at spec.providerConfig and the Network's IP
// families (empty means IPv4), as the controller sees it: its config was admitted (or deployed by
// the reference), so rules beyond the reference do not refuse it (DecodeExistingNetworkConfig);
// render it with Settings.Ratchet. A Network's config is only ever read this way: a new config is
// judged on its Shoot (ShootConfig).
func ExistingNetworkConfig(network *extensionsv1alpha1.Network) (*calicov1alpha1.NetworkConfig, field.ErrorList) {
	raw, families := networkConfigInput(network)
	return DecodeExistingNetworkConfig(raw, families)
}

func networkConfigInput(network *extensionsv1alpha1.Network) ([]byte, []string) {
	var raw []byte
	if network.Spec.ProviderConfig != nil {
		raw = network.Spec.ProviderConfig.Raw
	}
	families := make([]string, 0, len(network.Spec.IPFamilies))
	for _, f := range network.Spec.IPFamilies {
		families = append(families, string(f))
	}
	return raw, families
}

// DecodeExistingNetworkConfig is ExistingNetworkConfig for a raw providerConfig and the Network's
// IP families: the errors of rules that go beyond the reference extension are not errors here,
// since the reference deployed such configs; they come back as findings from Options with
// Settings.Ratchet (issue 10, ratcheting).
func DecodeExistingNetworkConfig(raw []byte, ipFamilies []string) (*calicov1alpha1.NetworkConfig, field.ErrorList) {
	path := NetworkProviderConfigPath()
	cfg := &calicov1alpha1.NetworkConfig{}
	if len(raw) > 0 {
		decoded, errs := decode.NetworkConfig(raw, path)
		if len(errs) > 0 {
			return nil, errs
		}
		cfg = decoded
	}
	families := make([]gardencorev1beta1.IPFamily, 0, len(ipFamilies))
	for _, f := range ipFamilies {
		families = append(families, gardencorev1beta1.IPFamily(f))
	}
	errs, _ := rules.Ratchet(validation.ValidateNetworkConfig(cfg, families, path))
	if len(errs) > 0 {
		return nil, errs
	}
	return cfg, nil
}
