// Package v1alpha1 is the provider configuration API of the Calico networking extension,
// wire-compatible with calico.networking.extensions.gardener.cloud/v1alpha1: NetworkConfig (the
// user's Shoot.spec.networking.providerConfig) and NetworkStatus (what the extension applied,
// written to Network.status.providerStatus).
//
// The types carry no defaulting: defaults are derived once in internal/values. Decoding is strict
// (internal/decode) and validation lives in internal/validation.
//
// +kubebuilder:object:generate=true
// +groupName=calico.networking.extensions.gardener.cloud
package v1alpha1
