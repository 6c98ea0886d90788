// Package manifestdiff holds internal/manifestdiff's defaults equal to a real kube-apiserver's: what
// the API server stores for a workload (server-side dry-run) compares equal to the manifest it was
// given, so that swap-check and plan predict only the restarts that happen.
package manifestdiff
