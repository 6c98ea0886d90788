// Package pools runs `calico-pilot pools migrate` and `calico-pilot plan --kubeconfig` against a real
// kube-apiserver holding Calico's CRDs and real IPPool, IPAMBlock and BlockAffinity objects.
package pools
