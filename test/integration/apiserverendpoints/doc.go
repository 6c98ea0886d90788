// Package apiserverendpoints tests internal/apiserverendpoints end to end: DNSRecords are read from
// a real kube-apiserver (with the Gardener CRDs of test/integration/crds/gardener) and CNAME
// values are resolved against real DNS servers on loopback.
package apiserverendpoints
