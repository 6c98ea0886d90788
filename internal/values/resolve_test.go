package values_test

import (
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

func ipv4Facts() values.ClusterFacts {
	return values.ClusterFacts{
		IPFamilies: []string{"IPv4"},
		PodCIDR:    "100.96.0.0/11",
		NodeCIDR:   "10.250.0.0/16",
		VPAEnabled: true,
		Paths:      values.ShootFactPaths(),
	}
}

func dualFacts() values.ClusterFacts {
	f := ipv4Facts()
	f.IPFamilies = []string{"IPv4", "IPv6"}
	f.StatusPodCIDRs = []string{"100.96.0.0/11", "2001:db8:1::/56"}
	f.StatusNodeCIDRs = []string{"10.250.0.0/16", "2001:db8:2::/64"}
	return f
}

// decisions is the part of Options the derivation tests look at.
type decisions struct {
	Backend                calicov1alpha1.Backend
	IPv4, IPv6             bool
	IPv4Pool, IPv6Pool     values.PoolOptions
	IPv4Auto, IPv6Auto     string
	IPv4Obj, NoSNAT, V6Obj bool
	FelixIPIP              *bool
	FelixVXLAN             bool
	IPAM                   values.IPAM
	KubeControllers        bool
	SNAT, Cleanup          bool
	NonPrivileged          bool
	NFTables               bool
}

func project(o values.Options) decisions {
	return decisions{
		Backend: o.Backend, IPv4: o.IPv4, IPv6: o.IPv6, IPv4Pool: o.IPv4Pool, IPv6Pool: o.IPv6Pool,
		IPv4Auto: o.IPv4AutoDetectionMethod, IPv6Auto: o.IPv6AutoDetectionMethod,
		IPv4Obj: o.IPv4PoolObject, NoSNAT: o.NoSNATNodeCIDRPool, V6Obj: o.IPv6PoolObject,
		FelixIPIP: o.FelixIPIPEnabled, FelixVXLAN: o.FelixVXLANEnabled, IPAM: o.IPAM,
		KubeControllers: o.KubeControllers, SNAT: o.SNATToUpstreamDNS, Cleanup: o.OverlayDisabled,
		NonPrivileged: o.NonPrivileged, NFTables: o.NFTables,
	}
}

var hostLocalV4 = values.IPAM{Type: "host-local", Subnet: "usePodCidr", UsePodCIDR: true}

func TestResolveDerivations(t *testing.T) {
	mode := func(m calicov1alpha1.PoolMode) *calicov1alpha1.PoolMode { return &m }
	pool := func(p calicov1alpha1.Pool) *calicov1alpha1.Pool { return &p }
	tests := []struct {
		name  string
		cfg   *calicov1alpha1.NetworkConfig
		facts func(*values.ClusterFacts)
		gates values.FeatureGates
		want  decisions
	}{
		{
			name: "nil config: bird, IPIP Always from env, no pool object, cidr autodetection",
			want: decisions{
				Backend: "bird", IPv4: true, IPv4Pool: values.PoolOptions{Encapsulation: "IPIP", Mode: "Always", NATOutgoing: true},
				IPv4Auto: "cidr=10.250.0.0/16", FelixIPIP: ptr.To(true), IPAM: hostLocalV4, KubeControllers: true,
			},
		},
		{
			name: "overlay off: backend none, Never/Never pool, no-snat pool, SNAT sidecar, cleanup",
			cfg:  &calicov1alpha1.NetworkConfig{Overlay: &calicov1alpha1.Overlay{Enabled: false}},
			want: decisions{
				Backend: "none", IPv4: true, IPv4Pool: values.PoolOptions{Encapsulation: "IPIP", Mode: "Never", NATOutgoing: true},
				IPv4Auto: "cidr=10.250.0.0/16", IPv4Obj: true, NoSNAT: true, FelixIPIP: ptr.To(false), IPAM: hostLocalV4,
				SNAT: true, Cleanup: true,
			},
		},
		{
			name: "overlay on with vxlan: backend vxlan, VXLAN pool, calico-ipam, FELIX_IPINIPENABLED not rendered",
			cfg:  &calicov1alpha1.NetworkConfig{Overlay: &calicov1alpha1.Overlay{Enabled: true}, VXLAN: &calicov1alpha1.VXLAN{Enabled: true}},
			want: decisions{
				Backend: "vxlan", IPv4: true, IPv4Pool: values.PoolOptions{Encapsulation: "VXLAN", Mode: "Always", NATOutgoing: true},
				IPv4Auto: "cidr=10.250.0.0/16", IPv4Obj: true, FelixVXLAN: true,
				IPAM: values.IPAM{Type: "calico-ipam", Subnet: "usePodCidr"}, KubeControllers: true,
			},
		},
		{
			name: "explicit ipv4.mode wins over the derived default when overlay is unset",
			cfg:  &calicov1alpha1.NetworkConfig{IPv4: &calicov1alpha1.IPv4{Mode: mode("CrossSubnet")}},
			want: decisions{
				Backend: "bird", IPv4: true, IPv4Pool: values.PoolOptions{Encapsulation: "IPIP", Mode: "CrossSubnet", NATOutgoing: true},
				IPv4Auto: "cidr=10.250.0.0/16", FelixIPIP: ptr.To(true), IPAM: hostLocalV4, KubeControllers: true,
			},
		},
		{
			name: "deprecated ipip and ipAutodetectionMethod are honoured when the new fields are unset",
			cfg:  &calicov1alpha1.NetworkConfig{IPIP: mode("Off"), IPAutoDetectionMethod: ptr.To("interface=eth0")},
			want: decisions{
				Backend: "bird", IPv4: true, IPv4Pool: values.PoolOptions{Encapsulation: "IPIP", Mode: "Never", NATOutgoing: true},
				IPv4Auto: "interface=eth0", FelixIPIP: ptr.To(false), IPAM: hostLocalV4, KubeControllers: true,
			},
		},
		{
			name: "explicit autodetection wins over the node CIDR",
			cfg:  &calicov1alpha1.NetworkConfig{IPv4: &calicov1alpha1.IPv4{AutoDetectionMethod: ptr.To("can-reach=8.8.8.8"), Pool: pool("ipip")}},
			want: decisions{
				Backend: "bird", IPv4: true, IPv4Pool: values.PoolOptions{Encapsulation: "IPIP", Mode: "Always", NATOutgoing: true},
				IPv4Auto: "can-reach=8.8.8.8", FelixIPIP: ptr.To(true), IPAM: hostLocalV4, KubeControllers: true,
			},
		},
		{
			name:  "status node CIDRs of the family are joined",
			facts: func(f *values.ClusterFacts) { f.StatusNodeCIDRs = []string{"10.250.0.0/16", "10.251.0.0/16"} },
			want: decisions{
				Backend: "bird", IPv4: true, IPv4Pool: values.PoolOptions{Encapsulation: "IPIP", Mode: "Always", NATOutgoing: true},
				IPv4Auto: "cidr=10.250.0.0/16,10.251.0.0/16", FelixIPIP: ptr.To(true), IPAM: hostLocalV4, KubeControllers: true,
			},
		},
		{
			name:  "dual-stack: backend none, ranges, v6 pool object, both autodetections",
			facts: func(f *values.ClusterFacts) { *f = dualFacts() },
			want: decisions{
				Backend: "none", IPv4: true, IPv6: true,
				IPv4Pool: values.PoolOptions{Encapsulation: "IPIP", Mode: "Never", NATOutgoing: true},
				IPv6Pool: values.PoolOptions{Encapsulation: "VXLAN", Mode: "Never"},
				IPv4Auto: "cidr=10.250.0.0/16", IPv6Auto: "cidr=2001:db8:2::/64", V6Obj: true, FelixIPIP: ptr.To(false),
				IPAM: values.IPAM{Type: "host-local", RangeIPv4: "usePodCidr", RangeIPv6: "usePodCidrIPv6", UsePodCIDR: true},
			},
		},
		{
			name: "dual-stack migration pending: only the first family",
			facts: func(f *values.ClusterFacts) {
				*f = dualFacts()
				f.DualStackMigrationPending = true
			},
			want: decisions{
				Backend: "bird", IPv4: true, IPv4Pool: values.PoolOptions{Encapsulation: "IPIP", Mode: "Always", NATOutgoing: true},
				IPv4Auto: "cidr=10.250.0.0/16", FelixIPIP: ptr.To(true), IPAM: hostLocalV4, KubeControllers: true,
			},
		},
		{
			name: "wireguard turns IPv6 NAT on unless set explicitly",
			cfg:  &calicov1alpha1.NetworkConfig{WireguardEncryption: true},
			facts: func(f *values.ClusterFacts) {
				*f = dualFacts()
			},
			want: decisions{
				Backend: "none", IPv4: true, IPv6: true,
				IPv4Pool: values.PoolOptions{Encapsulation: "IPIP", Mode: "Never", NATOutgoing: true},
				IPv6Pool: values.PoolOptions{Encapsulation: "VXLAN", Mode: "Never", NATOutgoing: true},
				IPv4Auto: "cidr=10.250.0.0/16", IPv6Auto: "cidr=2001:db8:2::/64", V6Obj: true, FelixIPIP: ptr.To(false),
				IPAM: values.IPAM{Type: "host-local", RangeIPv4: "usePodCidr", RangeIPv6: "usePodCidrIPv6", UsePodCIDR: true},
			},
		},
		{
			name: "eBPF ignores the non-privileged gate; kube-proxy off with a defaulted mode is fine",
			cfg:  &calicov1alpha1.NetworkConfig{EbpfDataplane: &calicov1alpha1.EbpfDataplane{Enabled: true}},
			facts: func(f *values.ClusterFacts) {
				f.KubeProxyEnabled = ptr.To(false)
				f.KubeProxyMode = "NFTables"
			},
			gates: values.FeatureGates{NonPrivilegedCalicoNode: true},
			want: decisions{
				Backend: "bird", IPv4: true, IPv4Pool: values.PoolOptions{Encapsulation: "IPIP", Mode: "Always", NATOutgoing: true},
				IPv4Auto: "cidr=10.250.0.0/16", FelixIPIP: ptr.To(true), IPAM: hostLocalV4, KubeControllers: true,
			},
		},
		{
			name:  "non-privileged gate and nftables kube-proxy",
			facts: func(f *values.ClusterFacts) { f.KubeProxyMode = "NFTables" },
			gates: values.FeatureGates{NonPrivilegedCalicoNode: true},
			want: decisions{
				Backend: "bird", IPv4: true, IPv4Pool: values.PoolOptions{Encapsulation: "IPIP", Mode: "Always", NATOutgoing: true},
				IPv4Auto: "cidr=10.250.0.0/16", FelixIPIP: ptr.To(true), IPAM: hostLocalV4, KubeControllers: true,
				NonPrivileged: true, NFTables: true,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			facts := ipv4Facts()
			if tt.facts != nil {
				tt.facts(&facts)
			}
			var before *calicov1alpha1.NetworkConfig
			if tt.cfg != nil {
				before = tt.cfg.DeepCopy()
			}
			got, errs := values.Resolve(values.Inputs{Config: tt.cfg, Cluster: facts, Settings: values.Settings{FeatureGates: tt.gates}})
			if len(errs) > 0 {
				t.Fatalf("unexpected errors: %v", errs)
			}
			if diff := cmp.Diff(tt.want, project(got)); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.cfg); diff != "" {
				t.Errorf("Resolve mutated its input (-before +after):\n%s", diff)
			}
		})
	}
}

func TestResolveAutoScaling(t *testing.T) {
	q := resource.MustParse
	res := &calicov1alpha1.StaticResources{
		Node:  &corev1.ResourceList{corev1.ResourceCPU: q("100m"), corev1.ResourceMemory: q("300Mi")},
		Typha: &corev1.ResourceList{corev1.ResourceCPU: q("50m")},
	}
	tests := []struct {
		name string
		as   *calicov1alpha1.AutoScaling
		want values.AutoScaling
	}{
		{
			name: "default is cluster-proportional with CPVAs and default requests",
			want: values.AutoScaling{
				Mode: "cluster-proportional", NodeCPVA: true, TyphaCPVA: true, TyphaCPA: true, KubeControllersVPA: true, PreserveResources: true,
				NodeRequests:  values.Resources{CPU: q("250m"), Memory: q("100Mi")},
				TyphaRequests: values.Resources{CPU: q("200m"), Memory: q("100Mi")},
			},
		},
		{
			name: "vpa: minAllowed and requests from resources, typha honours its minimum too",
			as:   &calicov1alpha1.AutoScaling{Mode: "vpa", Resources: res},
			want: values.AutoScaling{
				Mode: "vpa", NodeVPA: true, TyphaVPA: true, TyphaCPA: true, KubeControllersVPA: true, PreserveResources: true,
				NodeRequests:    values.Resources{CPU: q("100m"), Memory: q("300Mi")},
				TyphaRequests:   values.Resources{CPU: q("50m"), Memory: q("100Mi")},
				NodeMinAllowed:  values.Resources{CPU: q("100m"), Memory: q("300Mi")},
				TyphaMinAllowed: values.Resources{CPU: q("50m")},
			},
		},
		{
			name: "static: fixed requests, no autoscalers but typha's CPA, no preserve annotation",
			as:   &calicov1alpha1.AutoScaling{Mode: "static", Resources: res},
			want: values.AutoScaling{
				Mode: "static", TyphaCPA: true, KubeControllersVPA: true,
				NodeRequests:  values.Resources{CPU: q("100m"), Memory: q("300Mi")},
				TyphaRequests: values.Resources{CPU: q("50m"), Memory: q("100Mi")},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := values.Resolve(values.Inputs{Config: &calicov1alpha1.NetworkConfig{AutoScaling: tt.as}, Cluster: ipv4Facts()})
			if len(errs) > 0 {
				t.Fatalf("unexpected errors: %v", errs)
			}
			if diff := cmp.Diff(tt.want, got.AutoScaling, cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })); diff != "" {
				t.Errorf("autoscaling (-want +got):\n%s", diff)
			}
		})
	}
}

// errorKey is what an error test compares: type, path and bad value.
type errorKey struct {
	Type     field.ErrorType
	Field    string
	BadValue any
}

func keys(errs field.ErrorList) []errorKey {
	var out []errorKey
	for _, e := range errs {
		out = append(out, errorKey{e.Type, e.Field, e.BadValue})
	}
	return out
}

func TestResolveErrors(t *testing.T) {
	backend := func(b calicov1alpha1.Backend) *calicov1alpha1.Backend { return &b }
	mode := func(m calicov1alpha1.PoolMode) *calicov1alpha1.PoolMode { return &m }
	tests := []struct {
		name  string
		cfg   *calicov1alpha1.NetworkConfig
		facts func(*values.ClusterFacts)
		addrs []string
		want  []errorKey
	}{
		{
			name: "backend contradicting the overlay",
			cfg:  &calicov1alpha1.NetworkConfig{Backend: backend("bird"), Overlay: &calicov1alpha1.Overlay{Enabled: false}},
			want: []errorKey{{field.ErrorTypeInvalid, "spec.networking.providerConfig.backend", "bird"}},
		},
		{
			name: "ipv4.mode contradicting the overlay",
			cfg:  &calicov1alpha1.NetworkConfig{IPv4: &calicov1alpha1.IPv4{Mode: mode("Always")}, Overlay: &calicov1alpha1.Overlay{Enabled: false}},
			want: []errorKey{{field.ErrorTypeInvalid, "spec.networking.providerConfig.ipv4.mode", "Always"}},
		},
		{
			name: "deprecated ipip contradicting ipv4.mode",
			cfg:  &calicov1alpha1.NetworkConfig{IPIP: mode("Always"), IPv4: &calicov1alpha1.IPv4{Mode: mode("Never")}},
			want: []errorKey{{field.ErrorTypeInvalid, "spec.networking.providerConfig.ipip", "Always"}},
		},
		{
			name:  "vpa mode without the shoot's VPA",
			cfg:   &calicov1alpha1.NetworkConfig{AutoScaling: &calicov1alpha1.AutoScaling{Mode: "vpa"}},
			facts: func(f *values.ClusterFacts) { f.VPAEnabled = false },
			want:  []errorKey{{field.ErrorTypeInvalid, "spec.networking.providerConfig.autoScaling.mode", "vpa"}},
		},
		{
			name:  "kube-proxy off without eBPF",
			facts: func(f *values.ClusterFacts) { f.KubeProxyEnabled = ptr.To(false) },
			want:  []errorKey{{field.ErrorTypeForbidden, "spec.kubernetes.kubeProxy.enabled", ""}},
		},
		{
			name: "GlobalNetworkSet enabled without addresses",
			cfg:  &calicov1alpha1.NetworkConfig{KubeAPIServerGlobalNetworkSet: &calicov1alpha1.KubeAPIServerGlobalNetworkSet{Enabled: ptr.To(true)}},
			want: []errorKey{{field.ErrorTypeInvalid, "spec.networking.providerConfig.kubeAPIServerGlobalNetworkSet.enabled", true}},
		},
		{
			name:  "addresses without the GlobalNetworkSet enabled",
			addrs: []string{"192.0.2.1"},
			want:  []errorKey{{field.ErrorTypeInvalid, "spec.networking.providerConfig.kubeAPIServerGlobalNetworkSet.enabled", false}},
		},
		{
			name: "ipam.cidr of a family the shoot does not use",
			cfg:  &calicov1alpha1.NetworkConfig{IPAM: &calicov1alpha1.IPAM{CIDR: ptr.To("2001:db8::/56")}},
			want: []errorKey{{field.ErrorTypeInvalid, "spec.networking.providerConfig.ipam.cidr", "2001:db8::/56"}},
		},
		{
			name:  "IPv4 block on an IPv6-only shoot",
			cfg:   &calicov1alpha1.NetworkConfig{IPv4: &calicov1alpha1.IPv4{}},
			facts: func(f *values.ClusterFacts) { f.IPFamilies = []string{"IPv6"}; f.PodCIDR = "2001:db8::/56" },
			want:  []errorKey{{field.ErrorTypeForbidden, "spec.networking.providerConfig.ipv4", ""}},
		},
		{
			name:  "no pod CIDR",
			facts: func(f *values.ClusterFacts) { f.PodCIDR = "" },
			want:  []errorKey{{field.ErrorTypeRequired, "spec.networking.pods", ""}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			facts := ipv4Facts()
			if tt.facts != nil {
				tt.facts(&facts)
			}
			var addrs []netip.Addr
			for _, a := range tt.addrs {
				addrs = append(addrs, netip.MustParseAddr(a))
			}
			_, errs := values.Resolve(values.Inputs{Config: tt.cfg, Cluster: facts, Settings: values.Settings{KubeAPIServerAddresses: addrs}})
			if diff := cmp.Diff(tt.want, keys(errs)); diff != "" {
				t.Errorf("errors (-want +got):\n%s\nall: %v", diff, errs)
			}
			for _, e := range errs {
				if e.Detail == "" {
					t.Errorf("error %s has no detail saying what is accepted", e.Field)
				}
			}
		})
	}
}

func TestResolveGlobalNetworkSetPrecedence(t *testing.T) {
	addrs := []netip.Addr{netip.MustParseAddr("192.0.2.34")}
	tests := []struct {
		name     string
		user     *bool
		operator *bool
		hib      bool
		want     []netip.Prefix
	}{
		{name: "operator default on", operator: ptr.To(true), want: []netip.Prefix{netip.MustParsePrefix("192.0.2.34/32")}},
		{name: "user opts in", user: ptr.To(true), want: []netip.Prefix{netip.MustParsePrefix("192.0.2.34/32")}},
		{name: "user on, operator off", user: ptr.To(true), operator: ptr.To(false), want: []netip.Prefix{netip.MustParsePrefix("192.0.2.34/32")}},
		{name: "hibernated shoot is exempt", user: ptr.To(true), hib: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &calicov1alpha1.NetworkConfig{}
			if tt.user != nil {
				cfg.KubeAPIServerGlobalNetworkSet = &calicov1alpha1.KubeAPIServerGlobalNetworkSet{Enabled: tt.user}
			}
			facts := ipv4Facts()
			facts.Hibernated = tt.hib
			got, errs := values.Resolve(values.Inputs{Config: cfg, Cluster: facts, Settings: values.Settings{Operator: values.OperatorConfig{KubeAPIServerGlobalNetworkSet: tt.operator}, KubeAPIServerAddresses: addrs}})
			if len(errs) > 0 {
				t.Fatalf("unexpected errors: %v", errs)
			}
			if diff := cmp.Diff(tt.want, got.KubeAPIServerNets, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
				t.Errorf("nets (-want +got):\n%s", diff)
			}
		})
	}
	// Opting out wins over the operator default, and then no addresses are needed.
	got, errs := values.Resolve(values.Inputs{
		Config:   &calicov1alpha1.NetworkConfig{KubeAPIServerGlobalNetworkSet: &calicov1alpha1.KubeAPIServerGlobalNetworkSet{Enabled: ptr.To(false)}},
		Cluster:  ipv4Facts(),
		Settings: values.Settings{Operator: values.OperatorConfig{KubeAPIServerGlobalNetworkSet: ptr.To(true)}},
	})
	if len(errs) > 0 || got.KubeAPIServerNets != nil {
		t.Errorf("opt-out: got nets %v, errors %v; want none", got.KubeAPIServerNets, errs)
	}
}

func TestNets(t *testing.T) {
	in := []netip.Addr{
		netip.MustParseAddr("2001:db8::10"), netip.MustParseAddr("192.0.2.34"), netip.MustParseAddr("192.0.2.7"),
		netip.MustParseAddr("192.0.2.34"), netip.MustParseAddr("::ffff:192.0.2.7"), netip.MustParseAddr("fe80::1%eth0"),
	}
	got := values.Nets(in)
	want := []string{"192.0.2.7/32", "192.0.2.34/32", "2001:db8::10/128", "fe80::1/128"}
	var gotS []string
	for _, p := range got {
		gotS = append(gotS, p.String())
	}
	if diff := cmp.Diff(want, gotS); diff != "" {
		t.Errorf("nets (-want +got):\n%s", diff)
	}
}

// TestResolveMigrationKeepsFamilyBlocks: while the dual-stack migration trims the shoot to its
// first family, an ipv6 block (valid for the requested families) waits instead of failing.
func TestResolveMigrationKeepsFamilyBlocks(t *testing.T) {
	facts := dualFacts()
	facts.DualStackMigrationPending = true
	cfg := &calicov1alpha1.NetworkConfig{
		IPv6: &calicov1alpha1.IPv6{SourceNATEnabled: ptr.To(true)},
		IPAM: &calicov1alpha1.IPAM{CIDR: ptr.To("usePodCidrIPv6")},
	}
	got, errs := values.Resolve(values.Inputs{Config: cfg, Cluster: facts})
	if len(errs) > 0 {
		t.Fatalf("unexpected errors: %v", errs)
	}
	if got.IPv6 || !got.IPv4 || got.IPAM.Subnet != "usePodCidr" {
		t.Errorf("got IPv4=%t IPv6=%t subnet=%q; want IPv4 only with subnet usePodCidr until the migration is done", got.IPv4, got.IPv6, got.IPAM.Subnet)
	}
}
