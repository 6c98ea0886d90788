package rules

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
)

// PolicyValidationModes are the values of policyValidation.mode: the API's enum.
func PolicyValidationModes() []calicov1alpha1.PolicyValidationMode {
	return []calicov1alpha1.PolicyValidationMode{calicov1alpha1.PolicyValidationModeDeny, calicov1alpha1.PolicyValidationModeWarn}
}

// PolicyValidation returns the errors of the policyValidation rule: when the block is written, its
// mode must be Deny or Warn (render's policyadmission component takes the mode as it is).
func PolicyValidation(cfg *calicov1alpha1.NetworkConfig, path *field.Path) field.ErrorList {
	pv := cfg.PolicyValidation
	if pv == nil {
		return nil
	}
	modePath := path.Child("policyValidation", "mode")
	supported := PolicyValidationModes()
	if slices.Contains(supported, pv.Mode) {
		return nil
	}
	if pv.Mode == "" {
		return field.ErrorList{field.Required(modePath, "Deny (reject invalid Calico policies) or Warn (admit them with a warning)").WithOrigin(string(RulePolicyValidationMode))}
	}
	names := make([]string, 0, len(supported))
	for _, m := range supported {
		names = append(names, string(m))
	}
	return field.ErrorList{RulePolicyValidationMode.notSupported(modePath, string(pv.Mode), names)}
}
