package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=clusters
// +kubebuilder:subresource:status

// Cluster carries the Shoot, Seed and CloudProfile of one control-plane namespace; its name is that
// namespace. The three objects are kept as raw JSON and decoded leniently by their readers, because
// Gardener adds fields to them all the time.
type Cluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec holds the embedded objects.
	Spec ClusterSpec `json:"spec"`
	// Status is unused; Gardener's Cluster has an empty status.
	// +optional
	Status ClusterStatus `json:"status"`
}

// +kubebuilder:object:root=true

// ClusterList is a list of Clusters.
type ClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the Clusters.
	Items []Cluster `json:"items"`
}

// ClusterSpec holds the embedded Gardener objects.
type ClusterSpec struct {
	// CloudProfile is the whole core.gardener.cloud/v1beta1 CloudProfile.
	// +kubebuilder:pruning:PreserveUnknownFields
	CloudProfile runtime.RawExtension `json:"cloudProfile"`
	// Seed is the whole core.gardener.cloud/v1beta1 Seed; absent for self-hosted shoots.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	Seed *runtime.RawExtension `json:"seed,omitempty"`
	// Shoot is the whole core.gardener.cloud/v1beta1 Shoot, including its status.
	// +kubebuilder:pruning:PreserveUnknownFields
	Shoot runtime.RawExtension `json:"shoot"`
}

// ClusterStatus is empty: Gardener's Cluster has a status subresource but writes nothing to it.
type ClusterStatus struct{}
