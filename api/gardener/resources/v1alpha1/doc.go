// Package v1alpha1 is our own small, wire-compatible subset of Gardener's
// resources.gardener.cloud/v1alpha1 API: the ManagedResource through which the extension hands its
// rendered shoot objects to the gardener-resource-manager, plus the well-known keys the resource
// manager reads (names.go).
//
// The JSON names follow docs/gardener-api-types.md sections 1.4, 3.5 and 3.6. The
// status conditions use the Condition type of api/gardener/core/v1beta1, as Gardener's
// ManagedResource uses core.gardener.cloud/v1beta1 Condition.
//
// +kubebuilder:object:generate=true
// +groupName=resources.gardener.cloud
package v1alpha1
