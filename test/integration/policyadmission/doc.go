// Package policyadmission tests the ValidatingAdmissionPolicy of internal/render/policyadmission.go
// against a real kube-apiserver with the Calico CRDs installed: an invalid Calico policy is rejected
// (Deny) or admitted with a warning (Warn) naming the field, a valid one is accepted.
package policyadmission
