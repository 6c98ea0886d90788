// Package values is the one place that derives calico-pilot's decisions: it turns a NetworkConfig,
// the facts of the cluster it is for, the feature gates and the operator configuration into a flat,
// resolved Options struct that internal/render turns into objects without deciding anything.
//
// Rules (DESIGN.md decision 3): an explicit user value wins over a derived default; a deprecated
// field is used when its replacement is unset; two explicit values that contradict each other are
// an error naming both fields. Inputs are never mutated. The NetworkConfig's own decisions and
// errors come from internal/rules (the functions validation reports from); this package adds the
// cluster facts, feature gates and operator configuration and flattens everything into Options.
package values
