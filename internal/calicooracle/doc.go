// Package calicooracle holds what Calico's own components ask of the Kubernetes API server, per
// Calico version, as data (calico-<version>.yaml: one row per request, citing the component, the
// step and what Calico needs the answer for), and replays it against a real API server under the
// RBAC calico-pilot renders: every request authenticated as the ServiceAccount of the rendered pod
// that runs the component, every answer checked against what Calico tolerates (never a 403 where
// Calico needs an answer), every write read back to show the CRD schema kept what Calico wrote.
//
// Calico's binaries cannot be built here (the module proxy serves only Calico 3.28 without its api
// module), so the tables stand in for them: one per release they were read from (v3.31.6's source,
// docs/calico-components.md; v3.32.1's, docs/calico-v3.32.md), and LoadFor picks the one that holds
// for a release (docs/calico-oracle.md). They also carry the start-up facts that do not need an API
// server (which flag clears NetworkUnavailable, which environment values terminate start-up, which
// FELIX_ names Felix reads); CheckStartup checks a render against them.
package calicooracle
