// Package lint checks Calico policies and network sets of the crd.projectcalico.org/v1 API
// (NetworkPolicy, GlobalNetworkPolicy, StagedNetworkPolicy, StagedGlobalNetworkPolicy, NetworkSet,
// GlobalNetworkSet) before they reach a cluster.
//
// Shoot clusters have no Calico API server, so these objects go through the CRDs, which neither
// default nor validate them: a missing spec.types, spec.selector or spec.order, or a selector with a
// syntax error, is stored as written and only fails later in calico-node or typha. Lint reports
// what Calico would reject or silently ignore as errors, and the traps of the Gardener
// kube-apiserver GlobalNetworkSet and selectors that can never match as warnings.
//
// Lint is pure: bytes in, findings out. Formatting lives here too (WriteText, WriteJSON) so that
// the golden files of testdata/ show exactly what `calico-pilot lint` prints.
package lint
