package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=globalnetworksets,singular=globalnetworkset

// GlobalNetworkSet is a cluster-wide named set of CIDRs that policies select by its labels
// (calico-pilot puts the shoot's kube-apiserver addresses into one).
type GlobalNetworkSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec holds the networks.
	// +optional
	Spec GlobalNetworkSetSpec `json:"spec,omitempty"`
}

// GlobalNetworkSetSpec holds the networks of a GlobalNetworkSet.
type GlobalNetworkSetSpec struct {
	// Nets are IP addresses or CIDRs.
	// +optional
	Nets []string `json:"nets,omitempty"`
}

// +kubebuilder:object:root=true

// GlobalNetworkSetList is a list of GlobalNetworkSet.
type GlobalNetworkSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the network sets.
	Items []GlobalNetworkSet `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,path=networksets,singular=networkset

// NetworkSet is a namespaced named set of CIDRs that policies select by its labels.
type NetworkSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec holds the networks.
	// +optional
	Spec NetworkSetSpec `json:"spec,omitempty"`
}

// NetworkSetSpec holds the networks of a NetworkSet.
type NetworkSetSpec struct {
	// Nets are IP addresses or CIDRs.
	// +optional
	Nets []string `json:"nets,omitempty"`
}

// +kubebuilder:object:root=true

// NetworkSetList is a list of NetworkSet.
type NetworkSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the network sets.
	Items []NetworkSet `json:"items"`
}
