package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of calico-pilot's standalone API.
const GroupName = "standalone.calico-pilot.dev"

// SchemeGroupVersion is the group and version of the types in this package.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

// Kind is the kind of the cluster file and of the object `calico-pilot manage` reconciles.
const Kind = "Cluster"

// AddToScheme registers Cluster and ClusterList with scheme. It is a plain function rather than a
// SchemeBuilder so that no package-level registry is mutated.
func AddToScheme(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &Cluster{}, &ClusterList{})
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}
