// Package values resolves: it turns a NetworkConfig, the facts of the cluster it is for, the
// feature gates and the operator configuration into a flat, resolved Options struct that
// internal/render turns into objects without deciding anything.
//
// It owns no NetworkConfig rule. What each setting means, which settings contradict each other,
// what the reference extension overrode in compatibility mode Reference (ReferenceOverrides) and
// the derived defaults (such as the cidr= autodetection method) are internal/rules, the functions
// validation reports from; this package adds the cluster facts, feature gates and operator
// configuration, records the rules' findings, and flattens everything into Options. Inputs are
// never mutated.
package values
