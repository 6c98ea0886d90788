// Package apply tests `calico-pilot apply` on real API servers: each test starts its own envtest
// control plane (apply is cluster-wide: CRDs, kube-system state, a Lease) and plays the DaemonSet and
// Deployment controllers by writing their status.
package apply
