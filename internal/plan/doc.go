// Package plan decides whether a change of calico-pilot's output (a new providerConfig, a new
// calico-pilot or Calico version) is safe for a cluster: the object-by-object diff and its
// restart/disruption classes come from internal/manifestdiff; this package adds the blockers that
// need the live cluster (pools, IPAM blocks, CRDs and their stored versions). It is pure.
package plan
