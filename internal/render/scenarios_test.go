package render_test

import (
	"net/netip"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/features"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// scenario is one rendered configuration. The base shoot is IPv4, nodes 10.250.0.0/16, pods
// 100.96.0.0/11, VPA on, kube-proxy on in IPTables mode (reference section 2.10).
type scenario struct {
	name string
	// providerConfig is the NetworkConfig YAML without apiVersion/kind ("" = none).
	providerConfig string
	// shoot changes the base shoot.
	shoot func(*gardencorev1beta1.Shoot)
	// nonPrivileged sets the NonPrivilegedCalicoNode feature gate.
	nonPrivileged bool
	// addresses are the kube-apiserver addresses.
	addresses []string
}

func dualStack(s *gardencorev1beta1.Shoot) {
	s.Spec.Networking.IPFamilies = []gardencorev1beta1.IPFamily{"IPv4", "IPv6"}
	s.Status.Networking = &gardencorev1beta1.NetworkingStatus{
		Pods:  []string{"100.96.0.0/11", "2001:db8:1::/56"},
		Nodes: []string{"10.250.0.0/16", "2001:db8:2::/64"},
	}
}

func ipv6Only(s *gardencorev1beta1.Shoot) {
	s.Spec.Networking.IPFamilies = []gardencorev1beta1.IPFamily{"IPv6"}
	s.Spec.Networking.Pods = ptr.To("2001:db8:1::/56")
	s.Spec.Networking.Nodes = ptr.To("2001:db8:2::/64")
	s.Spec.Networking.Services = ptr.To("2001:db8:3::/112")
	s.Status.Networking = &gardencorev1beta1.NetworkingStatus{
		Pods: []string{"2001:db8:1::/56"}, Nodes: []string{"2001:db8:2::/64"},
	}
}

func kubeProxyOff(s *gardencorev1beta1.Shoot) {
	// Gardener defaults the mode even when kube-proxy is off.
	s.Spec.Kubernetes.KubeProxy = &gardencorev1beta1.KubeProxyConfig{Enabled: ptr.To(false), Mode: ptr.To(gardencorev1beta1.ProxyModeIPTables)}
}

func noVPA(s *gardencorev1beta1.Shoot) { s.Spec.Kubernetes.VerticalPodAutoscaler = nil }

// scenarios are the golden scenarios: the reference's matrix (2.10) plus IPv6, dual-stack,
// the GlobalNetworkSet, non-privileged mode and the seed's example shoot.
var scenarios = []scenario{
	{name: "default"},
	{name: "empty-config", providerConfig: "{}"},
	{name: "overlay-enabled", providerConfig: "overlay: {enabled: true}"},
	{name: "overlay-disabled", providerConfig: "overlay: {enabled: false}"},
	{name: "overlay-disabled-no-snat-dns", providerConfig: "overlay: {enabled: false}\nsnatToUpstreamDNS: {enabled: false}"},
	{name: "overlay-disabled-create-pod-routes", providerConfig: "overlay: {enabled: false, createPodRoutes: true}"},
	{name: "overlay-vxlan", providerConfig: "overlay: {enabled: true}\nvxlan: {enabled: true}"},
	{name: "vxlan-without-overlay-field", providerConfig: "vxlan: {enabled: true}"},
	{name: "typha-disabled", providerConfig: "typha: {enabled: false}"},
	{name: "vpa-with-resources", providerConfig: "autoScaling:\n  mode: vpa\n  resources:\n    node: {cpu: 100m, memory: 300Mi}\n    typha: {cpu: 50m, memory: 64Mi}"},
	{name: "vpa-without-resources", providerConfig: "autoScaling: {mode: vpa}"},
	{name: "static-with-resources", providerConfig: "autoScaling:\n  mode: static\n  resources:\n    node: {cpu: 100m, memory: 300Mi}\n    typha: {cpu: 50m, memory: 64Mi}"},
	{name: "static-without-resources", providerConfig: "autoScaling: {mode: static}"},
	{name: "cluster-proportional-no-shoot-vpa", providerConfig: "autoScaling: {mode: cluster-proportional}", shoot: noVPA},
	{name: "ebpf-kube-proxy-off", providerConfig: "ebpfDataplane: {enabled: true}\noverlay: {enabled: false}", shoot: kubeProxyOff},
	{name: "ebpf-kube-proxy-on", providerConfig: "ebpfDataplane: {enabled: true}\noverlay: {enabled: false}"},
	{name: "ebpf-non-privileged-gate", providerConfig: "ebpfDataplane: {enabled: true}\noverlay: {enabled: false}", shoot: kubeProxyOff, nonPrivileged: true},
	// Seed 004: eBPF on Azure keeps Felix off the accelerated-networking enP* interfaces.
	{name: "ebpf-azure", providerConfig: "ebpfDataplane: {enabled: true}\noverlay: {enabled: false}", shoot: func(s *gardencorev1beta1.Shoot) {
		kubeProxyOff(s)
		s.Spec.Provider.Type = "azure"
	}},
	{name: "non-privileged-overlay", providerConfig: "overlay: {enabled: true}", nonPrivileged: true},
	{name: "non-privileged-overlay-disabled", providerConfig: "overlay: {enabled: false}", nonPrivileged: true},
	{name: "bird-exporter", providerConfig: "birdExporter: {enabled: true}"},
	{name: "multus", providerConfig: "multus: {enabled: true}"},
	{name: "multus-install-cni-plugins", providerConfig: "multus: {enabled: true, installCNIPlugins: true}"},
	{name: "wireguard", providerConfig: "wireguardEncryption: true"},
	{name: "kube-proxy-nftables", shoot: func(s *gardencorev1beta1.Shoot) {
		s.Spec.Kubernetes.KubeProxy.Mode = ptr.To(gardencorev1beta1.ProxyModeNFTables)
	}},
	{name: "calico-ipam", providerConfig: "ipam: {type: calico-ipam}"},
	{name: "service-loop-prevention-mtu", providerConfig: "serviceLoopPrevention: Drop\nvethMTU: \"1400\""},
	{name: "backend-none", providerConfig: "backend: none"},
	{name: "ipv4-mode-cross-subnet", providerConfig: "ipv4: {mode: CrossSubnet}"},
	{name: "overlay-ipv4-cross-subnet", providerConfig: "overlay: {enabled: true}\nipv4: {mode: CrossSubnet}"},
	{name: "deprecated-ipip-autodetection", providerConfig: "ipip: CrossSubnet\nipAutodetectionMethod: interface=eth0"},
	{name: "ipv4-autodetection-explicit", providerConfig: "ipv4: {autoDetectionMethod: \"can-reach=8.8.8.8\"}"},
	{name: "ipam-host-local-cidr", providerConfig: "ipam: {type: host-local, cidr: usePodCIDR}"},
	{name: "status-node-cidrs", shoot: func(s *gardencorev1beta1.Shoot) {
		s.Status.Networking = &gardencorev1beta1.NetworkingStatus{Nodes: []string{"10.250.0.0/16", "10.251.0.0/16"}}
	}},
	{name: "ipv6", shoot: ipv6Only},
	{name: "ipv6-source-nat-wireguard", providerConfig: "wireguardEncryption: true\nipv6: {sourceNATEnabled: false}", shoot: ipv6Only},
	{name: "dual-stack", shoot: dualStack},
	{name: "dual-stack-overlay-disabled", providerConfig: "overlay: {enabled: false}", shoot: dualStack},
	{name: "dual-stack-migration-pending", shoot: func(s *gardencorev1beta1.Shoot) {
		dualStack(s)
		s.Status.Constraints = []gardencorev1beta1.Condition{{Type: "DualStackNodesMigrationReady", Status: "False", Reason: "NodesNotMigrated", Message: "waiting"}}
	}},
	{
		name: "global-network-set", providerConfig: "kubeAPIServerGlobalNetworkSet: {enabled: true}",
		addresses: []string{"192.0.2.34", "2001:db8::10", "192.0.2.7", "192.0.2.34", "::ffff:198.51.100.1"},
	},
	{
		name: "global-network-set-hibernated", providerConfig: "kubeAPIServerGlobalNetworkSet: {enabled: true}",
		shoot: func(s *gardencorev1beta1.Shoot) {
			s.Spec.Hibernation = &gardencorev1beta1.Hibernation{Enabled: ptr.To(true)}
		},
	},
	{
		// The example Shoot of seed 004_8de25198a0e0197a.txt.
		name:           "seed-004-example",
		providerConfig: "ipam: {type: host-local}\nvethMTU: \"1440\"\noverlay: {enabled: true}\ntypha: {enabled: false}\nkubeAPIServerGlobalNetworkSet: {enabled: true}",
		addresses:      []string{"192.0.2.34"},
	},
	// Opt-in admission checks of Calico policies in the shoot (issue 14): Deny and Warn.
	{name: "policy-validation-deny", providerConfig: "policyValidation: {mode: Deny}"},
	{name: "policy-validation-warn", providerConfig: "policyValidation: {mode: Warn}"},
	{
		// Everything at once: the largest output (benchmark "largest").
		name: "largest",
		providerConfig: "overlay: {enabled: false, createPodRoutes: true}\n" +
			"birdExporter: {enabled: true}\nmultus: {enabled: true, installCNIPlugins: true}\nwireguardEncryption: true\nserviceLoopPrevention: Reject\n" +
			"kubeAPIServerGlobalNetworkSet: {enabled: true}",
		shoot:     dualStack,
		addresses: []string{"192.0.2.34", "2001:db8::10"},
	},
}

func baseShoot() *gardencorev1beta1.Shoot {
	return &gardencorev1beta1.Shoot{
		TypeMeta: gardencorev1beta1.Shoot{}.TypeMeta,
		Spec: gardencorev1beta1.ShootSpec{
			Networking: &gardencorev1beta1.Networking{
				Type:     ptr.To("calico"),
				Pods:     ptr.To("100.96.0.0/11"),
				Nodes:    ptr.To("10.250.0.0/16"),
				Services: ptr.To("100.64.0.0/13"),
			},
			Kubernetes: gardencorev1beta1.Kubernetes{
				Version:               "1.33.0",
				KubeProxy:             &gardencorev1beta1.KubeProxyConfig{Enabled: ptr.To(true), Mode: ptr.To(gardencorev1beta1.ProxyModeIPTables)},
				VerticalPodAutoscaler: &gardencorev1beta1.VerticalPodAutoscaler{Enabled: true},
			},
			Provider: gardencorev1beta1.Provider{Type: "local", Workers: []gardencorev1beta1.Worker{{Name: "worker"}}},
		},
	}
}

// shootOf builds the scenario's Shoot.
func shootOf(sc scenario) *gardencorev1beta1.Shoot {
	s := baseShoot()
	if sc.providerConfig != "" {
		s.Spec.Networking.ProviderConfig = &runtime.RawExtension{Raw: []byte(
			"apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\nkind: NetworkConfig\n" + sc.providerConfig)}
		if sc.providerConfig == "{}" {
			s.Spec.Networking.ProviderConfig.Raw = []byte(`{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkConfig"}`)
		}
	}
	if sc.shoot != nil {
		sc.shoot(s)
	}
	return s
}

// resolve runs the offline pipeline for a shoot (internal/pipeline: validate and decode once,
// resolve). validErrs are the validation errors; resolveErrs the errors of resolving the options
// (only reached when valid).
func resolve(s *gardencorev1beta1.Shoot, nonPrivileged bool, addresses []string) (opts values.Options, validErrs, resolveErrs field.ErrorList) {
	cfg, errs := pipeline.ShootConfig(s)
	if len(errs) > 0 {
		return values.Options{}, errs, nil
	}
	imgs, err := imagevector.Default()
	if err != nil {
		panic(err)
	}
	var addrs []netip.Addr
	for _, a := range addresses {
		addrs = append(addrs, netip.MustParseAddr(a))
	}
	gates, err := features.FromMap(map[string]bool{string(features.NonPrivilegedCalicoNode): nonPrivileged})
	if err != nil {
		panic(err)
	}
	opts, resolveErrs = pipeline.Options(pipeline.Source{Shoot: s, SeedNamespace: "shoot--dev--test"}, cfg, pipeline.Settings{
		FeatureGates:           gates,
		Images:                 imgs,
		KubeAPIServerAddresses: addrs,
	})
	return opts, nil, resolveErrs
}
