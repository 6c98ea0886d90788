// Package demo runs calico-pilot's extension controller end to end on a local control plane: it
// starts a kube-apiserver + etcd playing the seed, installs the Gardener CRDs, creates the Cluster
// (from the example Shoot of the user guide, examples/shoot.yaml), its kube-apiserver DNSRecords
// (an A record and a CNAME answered by a DNS server on loopback) and the Network, runs the real
// controller in-process until the Network reports Succeeded and prints what was deployed.
//
// It is what `make demo` runs (hack/demo).
package demo
