package validation_test

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/validation"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// pick returns one of the choices, or the zero value ("field not set") two times out of three, so
// that enough configurations are valid.
func pick[T any](r *rand.Rand, choices ...T) T {
	if r.IntN(3) != 0 {
		var zero T
		return zero
	}
	return choices[r.IntN(len(choices))]
}

func ptrTo[T any](v T) *T { return &v }

// randomNetworkConfig builds a NetworkConfig from values that exercise every rule: valid values,
// invalid ones and combinations that contradict each other.
func randomNetworkConfig(r *rand.Rand) *calicov1alpha1.NetworkConfig {
	cfg := &calicov1alpha1.NetworkConfig{}
	cfg.Backend = pick(r, nil, ptrTo(calicov1alpha1.Backend("bird")), ptrTo(calicov1alpha1.Backend("none")), ptrTo(calicov1alpha1.Backend("vxlan")), ptrTo(calicov1alpha1.Backend("flannel")))
	if r.IntN(3) == 0 {
		cfg.IPAM = &calicov1alpha1.IPAM{
			Type: pick[calicov1alpha1.IPAMType](r, "host-local", "calico-ipam", "dhcp"),
			CIDR: pick(r, nil, ptrTo("usePodCidr"), ptrTo("usePodCIDR"), ptrTo("100.96.0.0/11"), ptrTo("2001:db8:1::/48"), ptrTo("usePodCidrIPv6"), ptrTo("nope")),
		}
	}
	modes := []*calicov1alpha1.PoolMode{nil, ptrTo(calicov1alpha1.PoolMode("Always")), ptrTo(calicov1alpha1.PoolMode("Never")), ptrTo(calicov1alpha1.PoolMode("CrossSubnet")), ptrTo(calicov1alpha1.PoolMode("Off")), ptrTo(calicov1alpha1.PoolMode("Sometimes"))}
	pools := []*calicov1alpha1.Pool{nil, ptrTo(calicov1alpha1.Pool("ipip")), ptrTo(calicov1alpha1.Pool("vxlan")), ptrTo(calicov1alpha1.Pool("gre"))}
	if r.IntN(3) == 0 {
		cfg.IPv4 = &calicov1alpha1.IPv4{
			Pool:                pick(r, pools...),
			Mode:                pick(r, modes...),
			AutoDetectionMethod: pick(r, nil, ptrTo(""), ptrTo("first-found"), ptrTo("cidr=10.250.0.0/16"), ptrTo("bogus")),
		}
	}
	if r.IntN(3) == 0 {
		cfg.IPv6 = &calicov1alpha1.IPv6{
			Pool:                pick(r, pools...),
			Mode:                pick(r, modes...),
			AutoDetectionMethod: pick(r, nil, ptrTo("cidr=2001:db8:2::/64"), ptrTo("cidr=10.0.0.0/8")),
			SourceNATEnabled:    pick(r, nil, ptrTo(true), ptrTo(false)),
		}
	}
	cfg.Typha = pick(r, nil, &calicov1alpha1.Typha{Enabled: true}, &calicov1alpha1.Typha{Enabled: false})
	cfg.VethMTU = pick(r, nil, ptrTo("0"), ptrTo("1440"), ptrTo("+1440"), ptrTo("-1"), ptrTo(""), ptrTo("x"), ptrTo("70000"))
	cfg.EbpfDataplane = pick(r, nil, &calicov1alpha1.EbpfDataplane{Enabled: true}, &calicov1alpha1.EbpfDataplane{Enabled: false})
	cfg.Overlay = pick(r, nil, &calicov1alpha1.Overlay{Enabled: true}, &calicov1alpha1.Overlay{Enabled: false},
		&calicov1alpha1.Overlay{Enabled: false, CreatePodRoutes: ptrTo(true)}, &calicov1alpha1.Overlay{Enabled: true, CreatePodRoutes: ptrTo(true)})
	cfg.SnatToUpstreamDNS = pick(r, nil, &calicov1alpha1.SnatToUpstreamDNS{Enabled: true}, &calicov1alpha1.SnatToUpstreamDNS{Enabled: false})
	cpu := corev1.ResourceList{"cpu": resource.MustParse("100m")}
	zero := corev1.ResourceList{"memory": resource.MustParse("0")}
	gpu := corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}
	cfg.AutoScaling = pick(r, nil,
		&calicov1alpha1.AutoScaling{Mode: "cluster-proportional"},
		&calicov1alpha1.AutoScaling{Mode: "vpa", Resources: &calicov1alpha1.StaticResources{Node: &cpu}},
		&calicov1alpha1.AutoScaling{Mode: "static", Resources: &calicov1alpha1.StaticResources{Typha: &cpu}},
		&calicov1alpha1.AutoScaling{Mode: "static", Resources: &calicov1alpha1.StaticResources{Node: &zero}},
		&calicov1alpha1.AutoScaling{Mode: "static", Resources: &calicov1alpha1.StaticResources{Node: &gpu}},
		&calicov1alpha1.AutoScaling{Mode: ""})
	cfg.VXLAN = pick(r, nil, &calicov1alpha1.VXLAN{Enabled: true}, &calicov1alpha1.VXLAN{Enabled: false})
	cfg.IPIP = pick(r, modes...)
	cfg.IPAutoDetectionMethod = pick(r, nil, ptrTo("first-found"), ptrTo("interface=eth0"), ptrTo(""))
	cfg.WireguardEncryption = r.IntN(2) == 0
	cfg.BirdExporter = pick(r, nil, &calicov1alpha1.BirdExporter{Enabled: true})
	cfg.Multus = pick(r, nil, &calicov1alpha1.Multus{Enabled: true}, &calicov1alpha1.Multus{Enabled: false, InstallCNIPlugins: ptrTo(true)}, &calicov1alpha1.Multus{Enabled: true, InstallCNIPlugins: ptrTo(true)})
	cfg.ServiceLoopPrevention = pick(r, nil, ptrTo(calicov1alpha1.ServiceLoopPrevention("Drop")), ptrTo(calicov1alpha1.ServiceLoopPrevention("drop")))
	cfg.KubeAPIServerGlobalNetworkSet = pick(r, nil, &calicov1alpha1.KubeAPIServerGlobalNetworkSet{Enabled: ptrTo(true)}, &calicov1alpha1.KubeAPIServerGlobalNetworkSet{Enabled: ptrTo(false)})
	return cfg
}

// factsFor returns complete, valid cluster facts for the families, so that any Resolve error is
// about the NetworkConfig.
func factsFor(families []gardencorev1beta1.IPFamily) values.ClusterFacts {
	f := values.ClusterFacts{VPAEnabled: true, Paths: values.ShootFactPaths()}
	for _, fam := range families {
		f.IPFamilies = append(f.IPFamilies, string(fam))
	}
	switch len(families) {
	case 2:
		f.PodCIDR, f.NodeCIDR = "100.96.0.0/11", "10.250.0.0/16"
		f.StatusPodCIDRs = []string{"100.96.0.0/11", "2001:db8:1::/48"}
		f.StatusNodeCIDRs = []string{"10.250.0.0/16", "2001:db8:2::/64"}
	default:
		if families[0] == "IPv6" {
			f.StatusPodCIDRs = []string{"2001:db8:1::/48"}
			f.StatusNodeCIDRs = []string{"2001:db8:2::/64"}
		} else {
			f.PodCIDR, f.NodeCIDR = "100.96.0.0/11", "10.250.0.0/16"
		}
	}
	return f
}

// TestValidationCoversRendering is DESIGN.md decision 2 as a property: every NetworkConfig that
// validation accepts is also accepted by values.Resolve (which rendering builds on). It checks
// 20000 deterministic pseudo-random configurations on IPv4, IPv6 and dual-stack shoots.
func TestValidationCoversRendering(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 12))
	allFamilies := [][]gardencorev1beta1.IPFamily{{"IPv4"}, {"IPv6"}, {"IPv4", "IPv6"}}
	path := field.NewPath("spec", "networking", "providerConfig")
	accepted, stricter := 0, map[string]int{}
	for i := range 20000 {
		cfg := randomNetworkConfig(r)
		families := allFamilies[i%len(allFamilies)]
		valErrs := validation.ValidateNetworkConfig(cfg, families, path)
		in := values.Inputs{Config: cfg, ConfigPath: path, Cluster: factsFor(families)}
		if g := cfg.KubeAPIServerGlobalNetworkSet; g != nil && g.Enabled != nil && *g.Enabled {
			in.KubeAPIServerAddresses = []netip.Addr{netip.MustParseAddr("192.0.2.34")}
		}
		if cfg.EbpfDataplane == nil || !cfg.EbpfDataplane.Enabled {
			in.Cluster.KubeProxyEnabled = ptrTo(true)
		}
		_, resolveErrs := values.Resolve(in)
		if len(valErrs) == 0 {
			accepted++
			if len(resolveErrs) > 0 {
				t.Fatalf("validation accepts a config that values.Resolve rejects (families %v):\nconfig: %+v\nresolve errors: %v", families, describe(cfg), resolveErrs)
			}
			continue
		}
		if len(resolveErrs) == 0 {
			for _, e := range valErrs {
				stricter[e.Field]++
			}
		}
	}
	if accepted < 200 {
		t.Fatalf("only %d of 20000 configurations were valid; the generator no longer exercises the accepting side", accepted)
	}
	// Validation may be stricter than rendering (autodetection syntax, MTU range, more
	// contradictions); list where, so the difference stays visible.
	fields := make([]string, 0, len(stricter))
	for f := range stricter {
		fields = append(fields, f)
	}
	sort.Strings(fields)
	for _, f := range fields {
		t.Logf("validation is stricter than rendering at %s (%d configurations)", f, stricter[f])
	}
	t.Logf("%d of 20000 configurations valid", accepted)
}

func describe(cfg *calicov1alpha1.NetworkConfig) string {
	s := ""
	add := func(name string, v any) { s += fmt.Sprintf("%s=%v ", name, v) }
	if cfg.Backend != nil {
		add("backend", *cfg.Backend)
	}
	if cfg.IPAM != nil {
		add("ipam.type", cfg.IPAM.Type)
		if cfg.IPAM.CIDR != nil {
			add("ipam.cidr", *cfg.IPAM.CIDR)
		}
	}
	if cfg.IPv4 != nil {
		if cfg.IPv4.Pool != nil {
			add("ipv4.pool", *cfg.IPv4.Pool)
		}
		if cfg.IPv4.Mode != nil {
			add("ipv4.mode", *cfg.IPv4.Mode)
		}
		if cfg.IPv4.AutoDetectionMethod != nil {
			add("ipv4.autoDetectionMethod", *cfg.IPv4.AutoDetectionMethod)
		}
	}
	if cfg.IPv6 != nil {
		if cfg.IPv6.Pool != nil {
			add("ipv6.pool", *cfg.IPv6.Pool)
		}
		if cfg.IPv6.Mode != nil {
			add("ipv6.mode", *cfg.IPv6.Mode)
		}
	}
	if cfg.Overlay != nil {
		add("overlay", *cfg.Overlay)
	}
	if cfg.VXLAN != nil {
		add("vxlan", *cfg.VXLAN)
	}
	if cfg.IPIP != nil {
		add("ipip", *cfg.IPIP)
	}
	if cfg.VethMTU != nil {
		add("vethMTU", *cfg.VethMTU)
	}
	if cfg.Multus != nil {
		add("multus", *cfg.Multus)
	}
	if cfg.AutoScaling != nil {
		add("autoScaling.mode", cfg.AutoScaling.Mode)
	}
	return s
}
