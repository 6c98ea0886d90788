package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true

// NetworkStatus is the provider status of a Calico Network (Network.status.providerStatus). The
// reference writes only TypeMeta; the optional fields record what this extension applied, so that
// later reconciles decide from status instead of re-parsing rendered manifests.
type NetworkStatus struct {
	metav1.TypeMeta `json:",inline"`

	// OverlayEnabled is whether the applied configuration had the pod overlay on.
	// +optional
	OverlayEnabled *bool `json:"overlayEnabled,omitempty"`
	// Backend is the applied Calico networking backend.
	// +optional
	Backend *Backend `json:"backend,omitempty"`
	// IPFamilies are the IP families ("IPv4", "IPv6") the applied configuration serves.
	// +optional
	IPFamilies []string `json:"ipFamilies,omitempty"`
}
