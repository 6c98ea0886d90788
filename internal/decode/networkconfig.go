package decode

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
)

// NetworkConfig strictly decodes a NetworkConfig from YAML or JSON. fldPath is where the document
// sits (nil for a file of its own, spec.networking.providerConfig inside a Shoot); every error path
// is below it. The returned object is nil whenever there are errors, so nothing half-decoded is used.
func NetworkConfig(data []byte, fldPath *field.Path) (*calicov1alpha1.NetworkConfig, field.ErrorList) {
	return newFrom[calicov1alpha1.NetworkConfig](data, fldPath, calicov1alpha1.SchemeGroupVersion.WithKind("NetworkConfig"), strictMode)
}

// ControllerConfiguration strictly decodes the operator configuration from YAML or JSON. Unlike the
// reference loader, unknown fields are errors, so a misspelled setting is not silently dropped.
func ControllerConfiguration(data []byte) (*configv1alpha1.ControllerConfiguration, field.ErrorList) {
	return newFrom[configv1alpha1.ControllerConfiguration](data, nil, configv1alpha1.SchemeGroupVersion.WithKind("ControllerConfiguration"), strictMode)
}
