// Package apply tests `calico-pilot apply` on a real API server. The package shares one envtest
// control plane: apply is cluster-wide (CRDs, kube-system's objects, cluster-scoped RBAC, the state
// and a Lease), so newCluster hands it to one test at a time, reset to the objects the API server
// made itself (controlplane_test.go); a test that changes the API server itself takes
// newOwnCluster. The tests play the DaemonSet and Deployment controllers by writing their status
// (playControllers). The tigera operator's install is recorded YAML under
// testdata/tigera-operator-v1.40, loaded by operatorInstall.
package apply
