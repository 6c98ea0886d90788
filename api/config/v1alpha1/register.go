package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of the operator configuration.
const GroupName = "calico.networking.extensions.config.gardener.cloud"

// SchemeGroupVersion is the group and version of the types in this package.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}
