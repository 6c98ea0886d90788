// Package manifestdiff compares two sets of Kubernetes objects — what a ManagedResource holds now and
// what calico-pilot would deploy — and says, object by object and field by field, what would change
// and what each change does to the running cluster. It is pure: no client, no clock, no cluster
// access. swap-check and plan are its callers; docs/manifestdiff.md describes the rules and the JSON
// schema.
//
// The steps are separate so that callers can add their own knowledge:
//
//	parse    (Parser: ManagedResource secret data, a YAML/JSON stream, or typed objects) -> *Set
//	compare  (Compare: identity = group/kind/namespace/name; lists matched by merge key) -> *Diff
//	classify (Classifier with Rules; plan appends rules that add blockers)               -> impacts
//	render   (Diff.WriteText for people, Diff.WriteJSON for scripts)
package manifestdiff
