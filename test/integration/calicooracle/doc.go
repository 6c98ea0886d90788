// Package calicooracle replays what Calico v3.31.6's components ask of the API server
// (internal/calicooracle's table) against a real kube-apiserver loaded with calico-pilot's render
// of each scenario family, every request authenticated as the ServiceAccount of the pod that runs
// the component, under the rendered RBAC. It stands in for Calico's binaries, which cannot be built
// from the module proxy (docs/calico-components.md §5).
package calicooracle
