package pipeline

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/component-base/featuregate"
	"k8s.io/utils/ptr"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/features"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

func TestGlobalNetworkSetEnabled(t *testing.T) {
	cfg := func(v *bool) *calicov1alpha1.NetworkConfig {
		if v == nil {
			return &calicov1alpha1.NetworkConfig{}
		}
		return &calicov1alpha1.NetworkConfig{KubeAPIServerGlobalNetworkSet: &calicov1alpha1.KubeAPIServerGlobalNetworkSet{Enabled: v}}
	}
	op := func(v *bool) *configv1alpha1.ControllerConfiguration {
		return &configv1alpha1.ControllerConfiguration{KubeAPIServerGlobalNetworkSet: &configv1alpha1.KubeAPIServerGlobalNetworkSet{Enabled: v}}
	}
	tests := []struct {
		name     string
		cfg      *calicov1alpha1.NetworkConfig
		operator *configv1alpha1.ControllerConfiguration
		want     bool
	}{
		{name: "nothing set", cfg: cfg(nil), operator: &configv1alpha1.ControllerConfiguration{}, want: false},
		{name: "nil config and operator config", cfg: nil, operator: nil, want: false},
		{name: "operator on", cfg: cfg(nil), operator: op(ptr.To(true)), want: true},
		{name: "operator on, block without enabled", cfg: &calicov1alpha1.NetworkConfig{KubeAPIServerGlobalNetworkSet: &calicov1alpha1.KubeAPIServerGlobalNetworkSet{}}, operator: op(ptr.To(true)), want: true},
		{name: "shoot opts out", cfg: cfg(ptr.To(false)), operator: op(ptr.To(true)), want: false},
		{name: "shoot opts in", cfg: cfg(ptr.To(true)), operator: op(ptr.To(false)), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := GlobalNetworkSetEnabled(tt.cfg, tt.operator); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestOperatorSettings(t *testing.T) {
	gates := func(m map[string]bool) featuregate.FeatureGate {
		g, err := features.FromMap(m)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	tests := []struct {
		name     string
		operator *configv1alpha1.ControllerConfiguration
		gates    featuregate.FeatureGate
		want     values.Settings
	}{
		{name: "nil config and gates", want: values.Settings{}},
		{name: "empty config, default gates", operator: &configv1alpha1.ControllerConfiguration{}, gates: gates(nil), want: values.Settings{}},
		{
			name:     "GlobalNetworkSet default and NonPrivilegedCalicoNode",
			operator: &configv1alpha1.ControllerConfiguration{KubeAPIServerGlobalNetworkSet: &configv1alpha1.KubeAPIServerGlobalNetworkSet{Enabled: ptr.To(true)}},
			gates:    gates(map[string]bool{"NonPrivilegedCalicoNode": true}),
			want: values.Settings{
				Operator:     values.OperatorConfig{KubeAPIServerGlobalNetworkSet: ptr.To(true)},
				FeatureGates: values.FeatureGates{NonPrivilegedCalicoNode: true},
			},
		},
		{
			name:     "GlobalNetworkSet block without enabled",
			operator: &configv1alpha1.ControllerConfiguration{KubeAPIServerGlobalNetworkSet: &configv1alpha1.KubeAPIServerGlobalNetworkSet{}},
			want:     values.Settings{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Every field, the Calico deployment's unexported ones too: nothing but these two is set.
			all := cmp.Exporter(func(reflect.Type) bool { return true })
			if diff := cmp.Diff(tt.want, OperatorSettings(tt.operator, tt.gates), all); diff != "" {
				t.Errorf("OperatorSettings (-want +got):\n%s", diff)
			}
		})
	}
}
