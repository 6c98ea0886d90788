// Command crdpatch applies the few schema properties that controller-gen cannot express with markers
// to a generated CRD manifest, in place. hack/generate.sh runs it right after controller-gen, so the
// manifests stay generated (never edited by hand) and `make verify` still catches drift.
//
// Usage:
//
//	go run ./hack/crdpatch -nullable-items spec.allocations api/projectcalico/crds/crd.projectcalico.org_ipamblocks.yaml
//
// -nullable-items marks the items of the array at the given field path (dot-separated, from the
// top of openAPIV3Schema) as nullable in every version. controller-gen has no items-level nullable
// marker, and Calico IPAM stores free ordinals of IPAMBlock.spec.allocations as null.
package main
