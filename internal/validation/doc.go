// Package validation checks NetworkConfigs, the networking part of Shoots and the operator's
// ControllerConfiguration, returning field.ErrorList with paths rooted where the user wrote the
// value. The same functions serve the admission webhook, the controller and `calico-pilot validate`.
//
// It implements every rule of the reference extension and closes its gaps: validation accepts
// exactly what rendering accepts (IPv6 pool ipip and mode Off are rejected here, not at rendering),
// contradictory explicit settings are rejected with an error naming both fields, and family-specific
// blocks on a shoot without that family are rejected. docs/validation.md lists every rule.
//
// The NetworkConfig rules live in internal/rules, which values.Resolve derives from as well; this
// package checks the Shoot's spec.networking and the ControllerConfiguration itself and reports the
// rules' errors for NetworkConfigs and Shoots.
package validation
