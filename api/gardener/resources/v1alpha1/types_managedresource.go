package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,path=managedresources,shortName=mr
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Class",type=string,JSONPath=".spec.class"
// +kubebuilder:printcolumn:name="Applied",type=string,JSONPath=".status.conditions[?(@.type==\"ResourcesApplied\")].status"
// +kubebuilder:printcolumn:name="Healthy",type=string,JSONPath=".status.conditions[?(@.type==\"ResourcesHealthy\")].status"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"

// ManagedResource is a set of manifests, held in Secrets, that a gardener-resource-manager applies
// and keeps applied.
type ManagedResource struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state. Gardener's tag says omitempty, but a struct is always written.
	Spec ManagedResourceSpec `json:"spec"`
	// Status is the resource manager's view.
	// +optional
	Status ManagedResourceStatus `json:"status"`
}

// +kubebuilder:object:root=true

// ManagedResourceList is a list of ManagedResources.
type ManagedResourceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the ManagedResources.
	Items []ManagedResource `json:"items"`
}

// ManagedResourceSpec is the desired state of a ManagedResource.
type ManagedResourceSpec struct {
	// Class picks the resource-manager instance; unset means the shoot's own resource manager (which
	// applies to the shoot), "seed" the seed's.
	// +optional
	Class *string `json:"class,omitempty"`
	// SecretRefs are Secrets in the same namespace whose data hold the manifests.
	SecretRefs []corev1.LocalObjectReference `json:"secretRefs"`
	// InjectLabels are merged into every applied object (and its pod template and volume claim
	// templates).
	// +optional
	InjectLabels map[string]string `json:"injectLabels,omitempty"`
	// ForceOverwriteLabels replaces all labels of existing objects instead of merging.
	// +optional
	ForceOverwriteLabels *bool `json:"forceOverwriteLabels,omitempty"`
	// ForceOverwriteAnnotations replaces all annotations of existing objects instead of merging.
	// +optional
	ForceOverwriteAnnotations *bool `json:"forceOverwriteAnnotations,omitempty"`
	// KeepObjects leaves the applied objects in place when the ManagedResource is deleted.
	// +optional
	KeepObjects *bool `json:"keepObjects,omitempty"`
	// Equivalences are sets of group/kinds treated as the same object across API moves.
	// +optional
	Equivalences [][]metav1.GroupKind `json:"equivalences,omitempty"`
	// DeletePersistentVolumeClaims also deletes the PVCs of deleted StatefulSets.
	// +optional
	DeletePersistentVolumeClaims *bool `json:"deletePersistentVolumeClaims,omitempty"`
}

// ManagedResourceStatus is the resource manager's view of a ManagedResource.
type ManagedResourceStatus struct {
	// Conditions are ResourcesApplied, ResourcesHealthy and ResourcesProgressing.
	// +optional
	Conditions []gardencorev1beta1.Condition `json:"conditions,omitempty"`
	// ObservedGeneration is the generation the resource manager processed.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Resources are the applied objects.
	// +optional
	Resources []ObjectReference `json:"resources,omitempty"`
	// SecretsDataChecksum is the hex sha256 over the referenced secrets' data, as the resource
	// manager computed it.
	// +optional
	SecretsDataChecksum *string `json:"secretsDataChecksum,omitempty"`
}

// ObjectReference is an applied object: the keys of a core/v1 ObjectReference plus the labels and
// annotations the resource manager applied.
type ObjectReference struct {
	corev1.ObjectReference `json:",inline"`

	// Labels are the labels the resource manager applied.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// Annotations are the annotations the resource manager applied.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}
