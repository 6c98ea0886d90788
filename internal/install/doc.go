// Package install reads the Calico a cluster already runs into one value, an Install: where it
// lives (namespace, workloads), which release every component runs, the CNI IPAM and its settings,
// the backend, the MTU, Typha, the IP pools as their owner has them, the IPAM blocks, the release of
// the CRDs the cluster holds, and who manages it (calico-pilot, upstream's manifest, the tigera
// operator). apply, its --dry-run and plan's live checks read the cluster through it once; every
// decision after that is a pure function of the Install and the user's file (Keep, Contradictions,
// ReleaseOf, CRDFloor). docs/standalone.md "Adopt an upstream install" says what is read and why.
package install
