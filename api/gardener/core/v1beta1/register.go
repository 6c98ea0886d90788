package v1beta1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is Gardener's core API group.
const GroupName = "core.gardener.cloud"

// SchemeGroupVersion is the group and version of the types in this package.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1beta1"}
