package values

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/calico-pilot/calico-pilot/internal/rules"
)

// ruleErrors records the errors of the NetworkConfig rules: all as errors, or, when ratcheting,
// those of rules beyond the reference as findings (the rules return the reference's value with
// them, so what is deployed is what the reference deployed).
func (r *resolver) ruleErrors(errs field.ErrorList) {
	if !r.in.Ratchet {
		r.errs = append(r.errs, errs...)
		return
	}
	hard, findings := rules.Ratchet(errs)
	r.errs = append(r.errs, hard...)
	r.out.Findings = append(r.out.Findings, findings...)
}
