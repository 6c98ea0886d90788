package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of the Calico provider configuration.
const GroupName = "calico.networking.extensions.gardener.cloud"

// NetworkType is the type of the Networks and the spec.networking.type of the Shoots whose
// providerConfig is this API's NetworkConfig: the one type the controller reconciles and the
// webhook validates.
const NetworkType = "calico"

// SchemeGroupVersion is the group and version of the types in this package.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

// AddToScheme registers NetworkConfig and NetworkStatus with scheme. It is a plain function
// rather than a SchemeBuilder so that no package-level registry is mutated.
func AddToScheme(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion,
		&NetworkConfig{},
		&NetworkStatus{},
	)
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}
