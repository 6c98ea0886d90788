package network

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/decode"
	"github.com/calico-pilot/calico-pilot/internal/validation"
)

// providerConfigPath is where a Network carries its NetworkConfig; every error path starts here.
func providerConfigPath() *field.Path { return field.NewPath("spec", "providerConfig") }

// NewConfigDecoder returns the production decoder: strict decoding (unknown fields are errors) and
// the same validation the admission webhook runs, with paths rooted at spec.providerConfig.
func NewConfigDecoder() ConfigDecoder {
	return ConfigDecoderFunc(func(raw []byte, ipFamilies []string) (*calicov1alpha1.NetworkConfig, error) {
		cfg := &calicov1alpha1.NetworkConfig{}
		if len(raw) > 0 {
			decoded, errs := decode.NetworkConfig(raw, providerConfigPath())
			if len(errs) > 0 {
				return nil, errs.ToAggregate()
			}
			cfg = decoded
		}
		families := make([]gardencorev1beta1.IPFamily, 0, len(ipFamilies))
		for _, f := range ipFamilies {
			families = append(families, gardencorev1beta1.IPFamily(f))
		}
		if errs := validation.ValidateNetworkConfig(cfg, families, providerConfigPath()); len(errs) > 0 {
			return nil, errs.ToAggregate()
		}
		return cfg, nil
	})
}
