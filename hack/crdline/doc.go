// Command crdline derives the CRDs of a newer Calico line from the generated v3.31 CRDs by applying a
// data-driven list of schema changes, each tagged with the row of the facts file it comes from
// (docs/calico-v3.32.md). hack/generate.sh runs it after controller-gen and
// crdpatch, so the derived manifests stay generated and `make verify` catches drift.
//
// Usage:
//
//	go run ./hack/crdline -changes hack/crdline/v3.32.yaml -from api/projectcalico/crds -out api/projectcalico/crds/v3.32
//
// Every crd.projectcalico.org manifest of -from is copied to -out with the changes for its CRD applied
// (a CRD without changes is copied as it is: the set is complete). A change names the CRD by its
// plural and one or more field paths (dot-separated from the top of openAPIV3Schema, "x[]" steps into
// the items of array x, "" is the root) and does one of:
//
//	remove: true        the property is dropped (it must exist)
//	add: {schema}       a new property (it must not exist)
//	set: {keywords}     schema keywords merged into the existing property (enum, default, maxLength, ...)
//	unset: [keywords]   schema keywords dropped from the existing property
//	cel: [{rule, message}]  x-kubernetes-validations appended to the property
//	required: [names]   names appended to the object's required list
//	statusSubresource: true  the CRD's version gets the status subresource (no path)
//
// A change that does not find what it expects is an error: the list cannot silently rot when the
// v3.31 types change.
package main
