package v1alpha1

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/runtime"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
)

// ExtensionClass says which kind of cluster an extension object belongs to.
// +kubebuilder:validation:Enum=shoot;seed;garden
type ExtensionClass string

const (
	// ExtensionClassShoot is an object of a shoot cluster; an unset class means the same.
	ExtensionClassShoot ExtensionClass = "shoot"
	// ExtensionClassSeed is an object of a seed cluster.
	ExtensionClassSeed ExtensionClass = "seed"
	// ExtensionClassGarden is an object of the garden cluster.
	ExtensionClassGarden ExtensionClass = "garden"
)

// DefaultSpec holds the spec fields every extension object has; it is inlined into each spec.
type DefaultSpec struct {
	// Type is the extension type the object is for (for a Network: "calico").
	Type string `json:"type"`
	// Class is the kind of cluster the object belongs to; unset means shoot. Immutable once set
	// (enforced by a rule on the enclosing spec, so that removing it is refused too).
	// +optional
	Class *ExtensionClass `json:"class,omitempty"`
	// ProviderConfig is the extension's own configuration, copied unchanged from the Shoot.
	// +optional
	ProviderConfig *runtime.RawExtension `json:"providerConfig,omitempty"`
}

// DefaultStatus holds the status fields every extension object has; it is inlined into each status.
type DefaultStatus struct {
	// ProviderStatus is the extension's own status object.
	// +optional
	ProviderStatus *runtime.RawExtension `json:"providerStatus,omitempty"`
	// Conditions are observations; any controller may add some.
	// +optional
	Conditions []gardencorev1beta1.Condition `json:"conditions,omitempty"`
	// LastError is the last error; the gardenlet considers the object ready only without one.
	// +optional
	LastError *gardencorev1beta1.LastError `json:"lastError,omitempty"`
	// LastOperation is the type, state and progress of the last operation.
	// +optional
	LastOperation *gardencorev1beta1.LastOperation `json:"lastOperation,omitempty"`
	// ObservedGeneration is the metadata.generation seen by the last finished operation.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// State is free-form state kept for control-plane migration.
	// +optional
	State *runtime.RawExtension `json:"state,omitempty"`
	// Resources are named references (to Secrets and the like) that State may refer to.
	// +optional
	Resources []NamedResourceReference `json:"resources,omitempty"`
}

// NamedResourceReference is a named reference to a resource.
type NamedResourceReference struct {
	// Name is the name of the reference.
	Name string `json:"name"`
	// ResourceRef points to the resource.
	ResourceRef autoscalingv1.CrossVersionObjectReference `json:"resourceRef"`
}
