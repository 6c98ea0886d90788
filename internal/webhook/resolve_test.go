package webhook

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/decode"
)

func TestResolveNetworking(t *testing.T) {
	ipv4 := []gardencorev1beta1.IPFamily{"IPv4"}
	dual := []gardencorev1beta1.IPFamily{"IPv4", "IPv6"}
	ipv6 := []gardencorev1beta1.IPFamily{"IPv6"}

	tests := []struct {
		name     string
		config   string // providerConfig as the user writes it; "" = none
		families []gardencorev1beta1.IPFamily
		want     Networking
	}{
		{
			name:     "no providerConfig on IPv4: bird with IPIP, host-local, typha",
			families: ipv4,
			want:     Networking{IPAM: "host-local", Backend: "bird", Overlay: true, Typha: true},
		},
		{
			name:     "no families means IPv4",
			families: nil,
			want:     Networking{IPAM: "host-local", Backend: "bird", Overlay: true, Typha: true},
		},
		{
			name:     "no providerConfig on IPv6: no overlay, backend none",
			families: ipv6,
			want:     Networking{IPAM: "host-local", Backend: "none", Overlay: false, Typha: true},
		},
		{
			name:     "no providerConfig on dual-stack: no overlay, backend none",
			families: dual,
			want:     Networking{IPAM: "host-local", Backend: "none", Overlay: false, Typha: true},
		},
		{
			name:     "overlay off without pod routes: backend none",
			config:   `{"overlay":{"enabled":false}}`,
			families: ipv4,
			want:     Networking{IPAM: "host-local", Backend: "none", Overlay: false, Typha: true},
		},
		{
			name:     "overlay off with pod routes: bird",
			config:   `{"overlay":{"enabled":false,"createPodRoutes":true}}`,
			families: ipv4,
			want:     Networking{IPAM: "host-local", Backend: "bird", Overlay: false, Typha: true},
		},
		{
			name:     "overlay on with vxlan: vxlan backend and calico-ipam",
			config:   `{"overlay":{"enabled":true},"vxlan":{"enabled":true}}`,
			families: ipv4,
			want:     Networking{IPAM: "calico-ipam", Backend: "vxlan", Overlay: true, Typha: true},
		},
		{
			name:     "vxlan on a dual-stack shoot does not switch IPAM",
			config:   `{"overlay":{"enabled":true},"vxlan":{"enabled":true}}`,
			families: dual,
			want:     Networking{IPAM: "host-local", Backend: "vxlan", Overlay: true, Typha: true},
		},
		{
			name:     "explicit ipam and backend win",
			config:   `{"ipam":{"type":"calico-ipam"},"backend":"vxlan"}`,
			families: ipv4,
			want:     Networking{IPAM: "calico-ipam", Backend: "vxlan", Overlay: true, Typha: true},
		},
		{
			name:     "explicit empty ipam type is the default",
			config:   `{"ipam":{"type":""}}`,
			families: ipv4,
			want:     Networking{IPAM: "host-local", Backend: "bird", Overlay: true, Typha: true},
		},
		{
			name:     "ipv4 mode Never without overlay block: no overlay",
			config:   `{"ipv4":{"mode":"Never"}}`,
			families: ipv4,
			want:     Networking{IPAM: "host-local", Backend: "bird", Overlay: false, Typha: true},
		},
		{
			name:     "deprecated ipip Off is honoured when ipv4.mode is unset",
			config:   `{"ipip":"Off"}`,
			families: ipv4,
			want:     Networking{IPAM: "host-local", Backend: "bird", Overlay: false, Typha: true},
		},
		{
			name:     "ipv4.mode CrossSubnet encapsulates across subnets: overlay on",
			config:   `{"ipv4":{"mode":"CrossSubnet"}}`,
			families: ipv4,
			want:     Networking{IPAM: "host-local", Backend: "bird", Overlay: true, Typha: true},
		},
		{
			name:     "backend none without overlay block: no overlay",
			config:   `{"backend":"none"}`,
			families: ipv4,
			want:     Networking{IPAM: "host-local", Backend: "none", Overlay: false, Typha: true},
		},
		{
			name:     "the GlobalNetworkSet, whose addresses only the controller knows, does not stop the derivation",
			config:   `{"kubeAPIServerGlobalNetworkSet":{"enabled":true},"overlay":{"enabled":false}}`,
			families: ipv4,
			want:     Networking{IPAM: "host-local", Backend: "none", Overlay: false, Typha: true},
		},
		{
			name:     "typha off and eBPF on",
			config:   `{"typha":{"enabled":false},"ebpfDataplane":{"enabled":true}}`,
			families: ipv4,
			want:     Networking{IPAM: "host-local", Backend: "bird", Overlay: true, Typha: false, EBPF: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := resolveNetworking(shootWithFamilies(tt.families), decodeConfig(t, tt.config))
			if len(errs) > 0 {
				t.Fatalf("resolving: %v", errs.ToAggregate())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("resolved networking (-want +got):\n%s", diff)
			}
		})
	}
}

// shootWithFamilies is a running shoot of the given families with the pod and node networks gardenlet
// reports for them.
func shootWithFamilies(families []gardencorev1beta1.IPFamily) *gardencorev1beta1.Shoot {
	pods, nodes := "100.96.0.0/11", "10.250.0.0/16"
	shoot := &gardencorev1beta1.Shoot{}
	shoot.Spec.Networking = &gardencorev1beta1.Networking{IPFamilies: families}
	shoot.Spec.Provider.Workers = []gardencorev1beta1.Worker{{Name: "pool-a"}}
	status := &gardencorev1beta1.NetworkingStatus{}
	for _, f := range families {
		if f == "IPv6" {
			status.Pods = append(status.Pods, "2001:db8:1::/48")
			status.Nodes = append(status.Nodes, "2001:db8:2::/64")
		}
	}
	if len(families) == 0 || families[0] == "IPv4" {
		shoot.Spec.Networking.Pods, shoot.Spec.Networking.Nodes = &pods, &nodes
		status.Pods = append([]string{pods}, status.Pods...)
	}
	shoot.Status.Networking = status
	return shoot
}

func decodeConfig(t *testing.T, config string) *calicov1alpha1.NetworkConfig {
	t.Helper()
	if config == "" {
		return nil
	}
	cfg, errs := decode.NetworkConfig([]byte(`{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkConfig",`+config[1:]), nil)
	if len(errs) > 0 {
		t.Fatalf("test config does not decode: %v", errs.ToAggregate())
	}
	return cfg
}

func TestResolveNetworkingErrors(t *testing.T) {
	// An IPv6 shoot whose pod network the infrastructure has not reported yet cannot be derived.
	shoot := &gardencorev1beta1.Shoot{}
	shoot.Spec.Networking = &gardencorev1beta1.Networking{IPFamilies: []gardencorev1beta1.IPFamily{"IPv6"}}
	_, errs := resolveNetworking(shoot, nil)
	want := []fieldErr{{Type: field.ErrorTypeRequired, Field: "spec.networking.pods"}}
	if diff := cmp.Diff(want, fieldErrs(errs)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func TestMaxNodes(t *testing.T) {
	tests := []struct {
		name    string
		workers []gardencorev1beta1.Worker
		want    int64
	}{
		{name: "sum of maxima", workers: []gardencorev1beta1.Worker{{Name: "a", Maximum: 30}, {Name: "b", Minimum: 3, Maximum: 25}}, want: 55},
		{name: "maxima not given", workers: []gardencorev1beta1.Worker{{Name: "a"}}, want: 0},
		{name: "no workers", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shoot := &gardencorev1beta1.Shoot{}
			shoot.Spec.Provider.Workers = tt.workers
			if got := maxNodes(shoot); got != tt.want {
				t.Errorf("maxNodes = %d, want %d", got, tt.want)
			}
		})
	}
}
