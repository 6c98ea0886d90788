package pipeline

import (
	"testing"

	"k8s.io/utils/ptr"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
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
