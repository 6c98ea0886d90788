// Package rules is the one home of calico-pilot's NetworkConfig semantics: what each setting
// means for a shoot (the value derived from it) and which settings contradict each other or the
// shoot (the errors). Every rule is a small pure function returning (value, field.ErrorList) with
// paths rooted where the user wrote the value; internal/validation calls them for its errors and
// internal/values for its derivations, so the two cannot disagree. The reference extension's silent
// overrides (compatibility mode Reference: ReferenceOverrides, Ignored) and the derived defaults
// are rules too; internal/values only flattens what this package decides.
//
// Every error carries the identity of the rule that produced it in field.Error.Origin, and the
// catalogue (Catalogue, Of) says for each rule whether the reference extension enforced it too.
// Rules that go beyond the reference can thus be told apart from the reference's own rules without
// parsing messages (existing shoots get those as conditions rather than errors). Every
// function returns a value even when it returns errors, for callers that go on after such an error.
//
// The package depends on the API types and apimachinery only; it holds no state.
package rules
