package validation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
	componentbaseconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"
	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
)

func TestValidateControllerConfiguration(t *testing.T) {
	tests := []struct {
		name string
		cfg  *configv1alpha1.ControllerConfiguration
		want field.ErrorList
	}{
		{name: "nil"},
		{name: "empty", cfg: &configv1alpha1.ControllerConfiguration{}},
		{name: "known gates", cfg: &configv1alpha1.ControllerConfiguration{FeatureGates: map[string]bool{"NonPrivilegedCalicoNode": true, "SeamlessOverlaySwitch": false}}},
		{name: "unknown gates, sorted", cfg: &configv1alpha1.ControllerConfiguration{FeatureGates: map[string]bool{"Zeta": true, "NonPrivilegedCalicoNodes": true, "SeamlessOverlaySwitch": true}},
			want: field.ErrorList{
				field.NotSupported(field.NewPath("featureGates").Key("NonPrivilegedCalicoNodes"), "NonPrivilegedCalicoNodes", []string{"NonPrivilegedCalicoNode", "SeamlessOverlaySwitch"}),
				field.NotSupported(field.NewPath("featureGates").Key("Zeta"), "Zeta", []string{"NonPrivilegedCalicoNode", "SeamlessOverlaySwitch"}),
			}},
		{name: "negative qps and burst", cfg: &configv1alpha1.ControllerConfiguration{ClientConnection: &componentbaseconfigv1alpha1.ClientConnectionConfiguration{QPS: -1, Burst: -2}},
			want: field.ErrorList{
				field.Invalid(field.NewPath("clientConnection", "qps"), float32(-1), "must not be negative"),
				field.Invalid(field.NewPath("clientConnection", "burst"), int32(-2), "must not be negative"),
			}},
		{name: "a supported default line and a valid rollout", cfg: &configv1alpha1.ControllerConfiguration{Calico: &configv1alpha1.CalicoVersions{
			DefaultVersion: ptr.To("v3.31"),
			Rollout:        &configv1alpha1.Rollout{Name: "to-3.32", TargetVersion: "v3.32", Waves: []configv1alpha1.Wave{{Name: "all", Percent: ptr.To[int32](100)}}},
		}}},
		// The same refusals as the controller's (render --controller-config and plan too).
		{name: "an unsupported default line, a rollout to an unsupported line", cfg: &configv1alpha1.ControllerConfiguration{Calico: &configv1alpha1.CalicoVersions{
			DefaultVersion: ptr.To("v3.30"),
			Rollout:        &configv1alpha1.Rollout{Name: "x", TargetVersion: "v3.33", Waves: []configv1alpha1.Wave{{Name: "all", Percent: ptr.To[int32](100)}}},
		}},
			want: field.ErrorList{
				field.Invalid(field.NewPath("calico", "defaultVersion"), "v3.30", `Calico "v3.30" is not supported; accepted: a line (v3.31, v3.32: its newest release) or a release (v3.31.6, v3.31.7, v3.32.1)`),
				field.Invalid(field.NewPath("calico", "rollout", "targetVersion"), "v3.33", `Calico "v3.33" is not supported; accepted: a line (v3.31, v3.32: its newest release) or a release (v3.31.6, v3.31.7, v3.32.1)`),
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ValidateControllerConfiguration(tt.cfg)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
