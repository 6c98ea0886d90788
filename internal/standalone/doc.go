// Package standalone runs calico-pilot's pipeline against a plain Kubernetes cluster (no Gardener):
// `calico-pilot apply`. It reads the cluster file (a NetworkConfig and the facts Gardener would
// otherwise give), completes and checks the facts against the cluster, renders through
// internal/pipeline, decides the Calico release with the catalogue (calicoversion.Decide and Plan),
// keeps IP pools the owner's through internal/pools, and applies with server-side apply in Calico's
// order. What it applied is recorded in one ConfigMap in kube-system; a Lease keeps two applies
// apart. docs/standalone.md is the walk-through.
package standalone
