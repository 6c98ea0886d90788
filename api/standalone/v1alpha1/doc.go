// Package v1alpha1 is the API of calico-pilot outside Gardener (standalone.calico-pilot.dev/v1alpha1):
// the Cluster, which is both the cluster file of `calico-pilot apply -f` and, as a cluster-scoped
// object named default, what the in-cluster controller `calico-pilot manage` reconciles.
//
// Its top-level fields are the cluster file's (networkConfig, cluster, components; no spec wrapper),
// so that the file of `apply -f` with metadata.name default is also the object. The NetworkConfig is
// kept as raw JSON: its strict decoding and validation stay in Go (internal/decode,
// internal/validation), with the same field paths for the file and the object. Decoding is strict
// (internal/standalone.ReadFile); the CRD's CEL rules repeat the file's simple rules so that the API
// server refuses what `apply -f` would.
//
// +kubebuilder:object:generate=true
// +groupName=standalone.calico-pilot.dev
package v1alpha1
