package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,path=networks
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=".spec.type"
// +kubebuilder:printcolumn:name="Pod CIDR",type=string,JSONPath=".spec.podCIDR"
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=".status.lastOperation.state"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"

// Network is the networking extension object of a shoot. The gardenlet names it after the shoot
// and puts it into the shoot's control-plane namespace.
type Network struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired network of the shoot.
	Spec NetworkSpec `json:"spec"`
	// Status is always written (Gardener's field has no omitempty: "status":{}).
	// +optional
	Status NetworkStatus `json:"status"`
}

// +kubebuilder:object:root=true

// NetworkList is a list of Networks.
type NetworkList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the Networks.
	Items []Network `json:"items"`
}

// NetworkSpec is the desired network of a shoot.
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.class) || (has(self.class) && self.class == oldSelf.class)",message="class is immutable once set"
type NetworkSpec struct {
	DefaultSpec `json:",inline"`

	// PodCIDR is the pod network of the primary IP family.
	PodCIDR string `json:"podCIDR"`
	// ServiceCIDR is the service network of the primary IP family.
	ServiceCIDR string `json:"serviceCIDR"`
	// IPFamilies are the desired IP families, in order.
	// +optional
	IPFamilies []gardencorev1beta1.IPFamily `json:"ipFamilies,omitempty"`
}

// NetworkStatus is the observed state of a Network.
type NetworkStatus struct {
	DefaultStatus `json:",inline"`

	// IPFamilies are the IP families actually in effect; the gardenlet drives the dual-stack
	// migration from them.
	// +optional
	IPFamilies []gardencorev1beta1.IPFamily `json:"ipFamilies,omitempty"`
}
