package validation

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/rules"
)

// ValidateNetworkConfig validates a NetworkConfig for a shoot with the given IP families (empty means
// IPv4). fldPath is where the NetworkConfig sits: nil for a file of its own, spec.networking.providerConfig
// in a Shoot, spec.providerConfig in a Network. The rules live in internal/rules, where rendering
// derives its values from the same functions; each error names its rule in field.Error.Origin.
func ValidateNetworkConfig(cfg *calicov1alpha1.NetworkConfig, ipFamilies []gardencorev1beta1.IPFamily, fldPath *field.Path) field.ErrorList {
	if cfg == nil {
		return nil
	}
	_, errs := rules.NetworkConfig(cfg, rules.FamiliesOf(ipFamilies), rules.NodeNetworks{}, fldPath)
	return errs
}
