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
// families (empty means IPv4), as the controller sees it. A Network's config was admitted (or
// deployed by the reference), so the errors of rules that go beyond the reference extension are not
// errors here: they come back as findings from Options with values.Settings.Ratchet
// (ratcheting). A Network's config is only ever read this way (the controller, render --network,
// swap-check): a new config is judged on its Shoot (ShootConfig).
func ExistingNetworkConfig(network *extensionsv1alpha1.Network) (*calicov1alpha1.NetworkConfig, field.ErrorList) {
	path := NetworkProviderConfigPath()
	cfg := &calicov1alpha1.NetworkConfig{}
	if pc := network.Spec.ProviderConfig; pc != nil && len(pc.Raw) > 0 {
		decoded, errs := decode.NetworkConfig(pc.Raw, path)
		if len(errs) > 0 {
			return nil, errs
		}
		cfg = decoded
	}
	errs, _ := rules.Ratchet(validation.ValidateNetworkConfig(cfg, network.Spec.IPFamilies, path))
	if len(errs) > 0 {
		return nil, errs
	}
	return cfg, nil
}
