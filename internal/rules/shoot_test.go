package rules_test

import (
	"testing"

	"k8s.io/utils/ptr"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/rules"
)

func TestNetworkingOf(t *testing.T) {
	shoot := func(networkingType *string, workers int) *gardencorev1beta1.Shoot {
		s := &gardencorev1beta1.Shoot{}
		if networkingType != nil {
			s.Spec.Networking = &gardencorev1beta1.Networking{Type: networkingType}
		}
		for range workers {
			s.Spec.Provider.Workers = append(s.Spec.Provider.Workers, gardencorev1beta1.Worker{Name: "w"})
		}
		return s
	}
	for _, tt := range []struct {
		name  string
		shoot *gardencorev1beta1.Shoot
		want  rules.ShootNetworking
	}{
		{name: "calico with workers", shoot: shoot(ptr.To("calico"), 2), want: rules.NetworkingCalico},
		{name: "calico without workers", shoot: shoot(ptr.To("calico"), 0), want: rules.NetworkingWorkerless},
		{name: "another type without workers is workerless", shoot: shoot(ptr.To("cilium"), 0), want: rules.NetworkingWorkerless},
		{name: "another type", shoot: shoot(ptr.To("cilium"), 1), want: rules.NetworkingOther},
		{name: "no networking", shoot: shoot(nil, 1), want: rules.NetworkingOther},
		{name: "empty type", shoot: shoot(ptr.To(""), 1), want: rules.NetworkingOther},
	} {
		if got := rules.NetworkingOf(tt.shoot); got != tt.want {
			t.Errorf("%s: NetworkingOf() = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestShoot: every rule in one call, in the order validation reports them (the NetworkConfig rules,
// then kube-proxy, VPA and the pin's Kubernetes range); without a NetworkConfig only the rules of the
// rest of the Shoot apply.
func TestShoot(t *testing.T) {
	off := ptr.To(false)
	for _, tt := range []struct {
		name  string
		body  string // "" is a Shoot without NetworkConfig
		facts rules.ShootFacts
		errs  []string
	}{
		{name: "no config", facts: rules.ShootFacts{Families: ipv4, KubernetesVersion: "1.33.4"}},
		{name: "no config, kube-proxy off", facts: rules.ShootFacts{Families: ipv4, KubeProxyEnabled: off},
			errs: []string{"kubeProxy.ebpf spec.kubernetes.kubeProxy.enabled"}},
		{name: "every kind of rule", body: "ipam: {type: calico-ipam}\nautoScaling: {mode: vpa}\ncalicoVersion: v3.32\n",
			facts: rules.ShootFacts{Families: ipv6, KubeProxyEnabled: off, KubernetesVersion: "1.33.4"},
			errs: []string{
				"ipam.type.calico-ipam-ipv4-only " + pc + "ipam.type",
				"kubeProxy.ebpf spec.kubernetes.kubeProxy.enabled",
				"autoScaling.mode.shoot-vpa " + pc + "autoScaling.mode",
				"calicoVersion.kubernetes " + pc + "calicoVersion",
			}},
		{name: "the shoot's VPA and kube-proxy", body: "autoScaling: {mode: vpa}\nebpfDataplane: {enabled: true}\noverlay: {enabled: false}\n",
			facts: rules.ShootFacts{Families: ipv4, KubeProxyEnabled: off, VPAEnabled: true, KubernetesVersion: "1.34.1"}},
		{name: "an unsupported pin is one error", body: "calicoVersion: v3.29\n", facts: rules.ShootFacts{Families: ipv4, KubernetesVersion: "1.33.4"},
			errs: []string{"calicoVersion.supported " + pc + "calicoVersion"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config(t, tt.body)
			if tt.body == "" {
				cfg = nil
			}
			checkReported(t, rules.Shoot(cfg, tt.facts, root), tt.errs)
		})
	}
}
