package decode

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
)

// Shoot decodes a core.gardener.cloud/v1beta1 Shoot from YAML or JSON. Fields this project does not
// model are ignored (a Shoot has many); a wrong apiVersion or kind, or a modelled field of the wrong
// type, is an error. The providerConfig is kept raw; decode it with ShootNetworkConfig.
func Shoot(data []byte) (*gardencorev1beta1.Shoot, field.ErrorList) {
	return newFrom[gardencorev1beta1.Shoot](data, nil, gardencorev1beta1.SchemeGroupVersion.WithKind("Shoot"), lenientMode)
}

// ProviderConfigPath is where a Shoot holds its NetworkConfig.
func ProviderConfigPath() *field.Path {
	return field.NewPath("spec", "networking", "providerConfig")
}

// ShootNetworkConfig strictly decodes the NetworkConfig in shoot.spec.networking.providerConfig,
// with error paths below spec.networking.providerConfig. It returns nil and no errors when the
// Shoot has no providerConfig.
func ShootNetworkConfig(shoot *gardencorev1beta1.Shoot) (*calicov1alpha1.NetworkConfig, field.ErrorList) {
	if shoot == nil || shoot.Spec.Networking == nil || shoot.Spec.Networking.ProviderConfig == nil {
		return nil, nil
	}
	raw := shoot.Spec.Networking.ProviderConfig.Raw
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	return NetworkConfig(raw, ProviderConfigPath())
}
