// Package v1alpha1 is our own small, wire-compatible subset of Gardener's
// extensions.gardener.cloud/v1alpha1 API: Network (the object this extension reconciles), Cluster
// (the shoot, seed and cloud profile of a control-plane namespace, kept as raw JSON) and DNSRecord
// (where the kube-apiserver addresses are published).
//
// The status building blocks (IPFamily, Condition, LastOperation, LastError, ErrorCode) are not
// defined here: as in Gardener, they live in core.gardener.cloud/v1beta1 (api/gardener/core/v1beta1,
// types_common.go) and the extension types use them from there.
//
// The JSON names follow docs/gardener-api-types.md sections 1.1-1.3 and 1.5; the
// CRDs generated from these types (test/integration/crds/gardener) are for the test control plane
// only, a real seed gets Gardener's own.
//
// +kubebuilder:object:generate=true
// +groupName=extensions.gardener.cloud
package v1alpha1
