package validation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
)

func TestValidatePolicyValidation(t *testing.T) {
	tests := []struct {
		name string
		pv   *calicov1alpha1.PolicyValidation
		want field.ErrorList
	}{
		{"unset", nil, nil},
		{"deny", &calicov1alpha1.PolicyValidation{Mode: "Deny"}, nil},
		{"warn", &calicov1alpha1.PolicyValidation{Mode: "Warn"}, nil},
		{"no mode", &calicov1alpha1.PolicyValidation{}, field.ErrorList{
			field.Required(field.NewPath("policyValidation", "mode"), "Deny (reject invalid Calico policies) or Warn (admit them with a warning)").WithOrigin("policyValidation.mode.supported")}},
		{"lower case", &calicov1alpha1.PolicyValidation{Mode: "deny"}, field.ErrorList{
			field.NotSupported(field.NewPath("policyValidation", "mode"), "deny", []string{"Deny", "Warn"}).WithOrigin("policyValidation.mode.supported")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ValidateNetworkConfig(&calicov1alpha1.NetworkConfig{PolicyValidation: tt.pv}, nil, nil)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
