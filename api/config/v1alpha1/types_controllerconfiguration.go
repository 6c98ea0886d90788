package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	componentbaseconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"
)

// +kubebuilder:object:root=true

// ControllerConfiguration is the operator configuration of the extension's controller.
type ControllerConfiguration struct {
	metav1.TypeMeta `json:",inline"`

	// ClientConnection configures the connection to the seed's kube-apiserver.
	// +optional
	ClientConnection *componentbaseconfigv1alpha1.ClientConnectionConfiguration `json:"clientConnection,omitempty"`
	// FeatureGates switches the extension's feature gates (NonPrivilegedCalicoNode,
	// SeamlessOverlaySwitch); an unknown name is an error.
	// +optional
	FeatureGates map[string]bool `json:"featureGates,omitempty"`
	// KubeAPIServerGlobalNetworkSet is the default for all shoots; a shoot's providerConfig overrides it.
	// +optional
	KubeAPIServerGlobalNetworkSet *KubeAPIServerGlobalNetworkSet `json:"kubeAPIServerGlobalNetworkSet,omitempty"`
	// Compatibility configures how Networks last reconciled by the reference extension are treated.
	// +optional
	Compatibility *Compatibility `json:"compatibility,omitempty"`
}

// Compatibility configures the behaviour for Networks taken over from the reference extension.
type Compatibility struct {
	// HonourIgnoredFields makes calico-pilot honour, for Networks last reconciled by the reference
	// extension, the providerConfig fields the reference ignored or overwrote (explicit CrossSubnet,
	// explicit autodetection, the deprecated ipip and ipAutodetectionMethod, typha requests in vpa
	// mode, ...). The data plane of such shoots may then change on the next reconcile (check with
	// calico-pilot swap-check first). Unset or false keeps what the reference rendered. Networks
	// calico-pilot reconciled from the start always honour every field.
	// +optional
	HonourIgnoredFields *bool `json:"honourIgnoredFields,omitempty"`
}

// KubeAPIServerGlobalNetworkSet is the operator default for the gardener-kube-apiserver GlobalNetworkSet.
type KubeAPIServerGlobalNetworkSet struct {
	// Enabled publishes the set for shoots that do not say otherwise; unset means disabled.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`
}
