// Package v1beta1 is the small, wire-compatible subset of Gardener's core.gardener.cloud/v1beta1
// Shoot that the Calico networking extension reads. Fields it does not use are not modelled, so
// Shoots are decoded leniently; only the embedded providerConfig is decoded strictly.
//
// It also holds, as Gardener's core API does, the building blocks the other Gardener APIs share
// (types_common.go): IPFamily, Condition, LastOperation, LastError and ErrorCode, used by the Shoot
// and by the extensions.gardener.cloud and resources.gardener.cloud statuses.
//
// +kubebuilder:object:generate=true
// +groupName=core.gardener.cloud
package v1beta1
