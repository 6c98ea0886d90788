// Package v1alpha1 is the operator configuration of the Calico networking extension,
// wire-compatible with calico.networking.extensions.config.gardener.cloud/v1alpha1
// ControllerConfiguration (the controller's --config-file). Unlike the reference, it is decoded
// strictly (internal/decode).
//
// +kubebuilder:object:generate=true
// +groupName=calico.networking.extensions.config.gardener.cloud
package v1alpha1
