// Package framework starts the real control plane (kube-apiserver + etcd built from Go modules
// by hack/tools) that the integration suites under test/integration run against.
//
// Each suite package starts one control plane in its TestMain and shares it between its tests;
// tests isolate themselves with fresh namespaces.
package framework
