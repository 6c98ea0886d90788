// Package v1 holds our own Go types for the 22 kinds of Calico's crd.projectcalico.org/v1 API group
// (Calico v3.31.6). They serve two purposes: the render engine builds Calico objects (IPPool,
// GlobalNetworkSet, FelixConfiguration, ...) from them with compile-time checked structure, and
// controller-gen generates the CustomResourceDefinitions that are installed into the shoot from their
// markers (see api/projectcalico/crds and hack/generate.sh).
//
// The schemas follow Calico v3.31.6's own CRDs exactly (docs/calico-crds.md): field paths,
// types, enums, limits, required fields, scope and plural names. Optional fields are pointers (or
// slices/maps) with omitempty; required fields have no omitempty. The types carry no defaulting logic.
//
// +kubebuilder:object:generate=true
// +groupName=crd.projectcalico.org
// +versionName=v1
package v1
