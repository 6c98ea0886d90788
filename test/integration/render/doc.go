// Package render is the real-API-server acceptance suite of internal/render: every golden
// scenario's objects, the static CRDs and the seed-side monitoring objects are server-side
// dry-run applied to a real kube-apiserver, with the CRDs they need installed first: every scenario
// at Calico v3.31 on the v3.31 CRDs, and again at v3.32 on the v3.32 CRDs.
package render
