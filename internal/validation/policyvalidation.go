package validation

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
)

var supportedPolicyValidationModes = []string{string(calicov1alpha1.PolicyValidationModeDeny), string(calicov1alpha1.PolicyValidationModeWarn)}

// validatePolicyValidation checks policyValidation: when it is written, its mode must be Deny or Warn.
func validatePolicyValidation(pv *calicov1alpha1.PolicyValidation, fldPath *field.Path) field.ErrorList {
	if pv == nil {
		return nil
	}
	modePath := fldPath.Child("mode")
	switch pv.Mode {
	case calicov1alpha1.PolicyValidationModeDeny, calicov1alpha1.PolicyValidationModeWarn:
		return nil
	case "":
		return field.ErrorList{field.Required(modePath, "Deny (reject invalid Calico policies) or Warn (admit them with a warning)")}
	default:
		return field.ErrorList{field.NotSupported(modePath, string(pv.Mode), supportedPolicyValidationModes)}
	}
}
