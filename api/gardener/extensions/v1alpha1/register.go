package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is Gardener's extensions API group.
const GroupName = "extensions.gardener.cloud"

// SchemeGroupVersion is the group and version of the types in this package.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

// AddToScheme registers Network, Cluster and DNSRecord (and their lists) with scheme. It is a
// plain function rather than a SchemeBuilder so that no package-level registry is mutated.
func AddToScheme(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion,
		&Network{}, &NetworkList{},
		&Cluster{}, &ClusterList{},
		&DNSRecord{}, &DNSRecordList{},
	)
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}
