package validation_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/decode"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/manifest"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
	"github.com/calico-pilot/calico-pilot/internal/rules"
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

// randomNetworkConfig builds a NetworkConfig from values that reach every rule of internal/rules:
// valid values, invalid ones and combinations that contradict each other.
func randomNetworkConfig(r *rand.Rand) *calicov1alpha1.NetworkConfig {
	cfg := &calicov1alpha1.NetworkConfig{}
	cfg.APIVersion, cfg.Kind = "calico.networking.extensions.gardener.cloud/v1alpha1", "NetworkConfig"
	cfg.Backend = pick(r, ptrTo(calicov1alpha1.Backend("bird")), ptrTo(calicov1alpha1.Backend("none")), ptrTo(calicov1alpha1.Backend("vxlan")), ptrTo(calicov1alpha1.Backend("flannel")))
	if r.IntN(3) == 0 {
		cfg.IPAM = &calicov1alpha1.IPAM{
			Type: pick[calicov1alpha1.IPAMType](r, "host-local", "calico-ipam", "dhcp"),
			CIDR: pick(r, ptrTo("usePodCidr"), ptrTo("usePodCIDR"), ptrTo("100.96.0.0/11"), ptrTo("2001:db8:1::/48"), ptrTo("usePodCidrIPv6"), ptrTo("nope"), ptrTo("100.96.0.1/11"), ptrTo("100.96.0.0/31")),
		}
	}
	modes := []*calicov1alpha1.PoolMode{ptrTo(calicov1alpha1.PoolMode("Always")), ptrTo(calicov1alpha1.PoolMode("Never")), ptrTo(calicov1alpha1.PoolMode("CrossSubnet")), ptrTo(calicov1alpha1.PoolMode("Off")), ptrTo(calicov1alpha1.PoolMode("Sometimes"))}
	pools := []*calicov1alpha1.Pool{ptrTo(calicov1alpha1.Pool("ipip")), ptrTo(calicov1alpha1.Pool("vxlan")), ptrTo(calicov1alpha1.Pool("gre"))}
	if r.IntN(3) == 0 {
		cfg.IPv4 = &calicov1alpha1.IPv4{
			Pool: pick(r, pools...),
			Mode: pick(r, modes...),
			AutoDetectionMethod: pick(r, ptrTo(""), ptrTo("first-found"), ptrTo("cidr=10.250.0.0/16"), ptrTo("bogus"),
				ptrTo("interface=eth0"), ptrTo("can-reach=192.0.2.1"), ptrTo("cidr=2001:db8::/64")),
		}
	}
	if r.IntN(3) == 0 {
		cfg.IPv6 = &calicov1alpha1.IPv6{
			Pool:                pick(r, pools...),
			Mode:                pick(r, modes...),
			AutoDetectionMethod: pick(r, ptrTo("cidr=2001:db8:2::/64"), ptrTo("cidr=10.0.0.0/8"), ptrTo("interface=eth0")),
			SourceNATEnabled:    pick(r, ptrTo(true), ptrTo(false)),
		}
	}
	cfg.Typha = pick(r, &calicov1alpha1.Typha{Enabled: true}, &calicov1alpha1.Typha{Enabled: false})
	cfg.VethMTU = pick(r, ptrTo("0"), ptrTo("1440"), ptrTo("9000"), ptrTo("+1440"), ptrTo("-1"), ptrTo(""), ptrTo("x"), ptrTo("70000"))
	cfg.EbpfDataplane = pick(r, &calicov1alpha1.EbpfDataplane{Enabled: true}, &calicov1alpha1.EbpfDataplane{Enabled: false})
	cfg.Overlay = pick(r, &calicov1alpha1.Overlay{Enabled: true}, &calicov1alpha1.Overlay{Enabled: false},
		&calicov1alpha1.Overlay{Enabled: false, CreatePodRoutes: ptrTo(true)}, &calicov1alpha1.Overlay{Enabled: true, CreatePodRoutes: ptrTo(true)},
		&calicov1alpha1.Overlay{Enabled: false, CreatePodRoutes: ptrTo(false)})
	cfg.SnatToUpstreamDNS = pick(r, &calicov1alpha1.SnatToUpstreamDNS{Enabled: true}, &calicov1alpha1.SnatToUpstreamDNS{Enabled: false})
	cpu := corev1.ResourceList{"cpu": resource.MustParse("100m")}
	zero := corev1.ResourceList{"memory": resource.MustParse("0")}
	negative := corev1.ResourceList{"memory": resource.MustParse("-100Mi")}
	gpu := corev1.ResourceList{"nvidia.com/gpu": resource.MustParse("1")}
	huge := corev1.ResourceList{"memory": resource.MustParse("9Ei")}
	cfg.AutoScaling = pick(r,
		&calicov1alpha1.AutoScaling{Mode: "cluster-proportional"},
		&calicov1alpha1.AutoScaling{Mode: "vpa", Resources: &calicov1alpha1.StaticResources{Node: &cpu}},
		&calicov1alpha1.AutoScaling{Mode: "vpa"},
		&calicov1alpha1.AutoScaling{Mode: "static", Resources: &calicov1alpha1.StaticResources{Typha: &cpu}},
		&calicov1alpha1.AutoScaling{Mode: "static", Resources: &calicov1alpha1.StaticResources{Node: &zero}},
		&calicov1alpha1.AutoScaling{Mode: "static", Resources: &calicov1alpha1.StaticResources{Typha: &negative}},
		&calicov1alpha1.AutoScaling{Mode: "static", Resources: &calicov1alpha1.StaticResources{Node: &gpu}},
		&calicov1alpha1.AutoScaling{Mode: "static", Resources: &calicov1alpha1.StaticResources{Node: &huge}},
		&calicov1alpha1.AutoScaling{Mode: ""})
	cfg.VXLAN = pick(r, &calicov1alpha1.VXLAN{Enabled: true}, &calicov1alpha1.VXLAN{Enabled: false})
	cfg.IPIP = pick(r, modes...)
	cfg.IPAutoDetectionMethod = pick(r, ptrTo("first-found"), ptrTo("interface=eth0"), ptrTo(""), ptrTo("cidr=10.250.0.0/16"))
	cfg.WireguardEncryption = r.IntN(2) == 0
	cfg.BirdExporter = pick(r, &calicov1alpha1.BirdExporter{Enabled: true}, &calicov1alpha1.BirdExporter{Enabled: false})
	cfg.Multus = pick(r, &calicov1alpha1.Multus{Enabled: true}, &calicov1alpha1.Multus{Enabled: false, InstallCNIPlugins: ptrTo(true)}, &calicov1alpha1.Multus{Enabled: true, InstallCNIPlugins: ptrTo(true)})
	cfg.ServiceLoopPrevention = pick(r, ptrTo(calicov1alpha1.ServiceLoopPrevention("Drop")), ptrTo(calicov1alpha1.ServiceLoopPrevention("Reject")), ptrTo(calicov1alpha1.ServiceLoopPrevention("drop")))
	cfg.KubeAPIServerGlobalNetworkSet = pick(r, &calicov1alpha1.KubeAPIServerGlobalNetworkSet{Enabled: ptrTo(true)}, &calicov1alpha1.KubeAPIServerGlobalNetworkSet{Enabled: ptrTo(false)})
	cfg.PolicyValidation = pick(r, &calicov1alpha1.PolicyValidation{Mode: "Deny"}, &calicov1alpha1.PolicyValidation{Mode: "Warn"}, &calicov1alpha1.PolicyValidation{Mode: "deny"})
	cfg.CalicoVersion = pick(r, ptrTo("v3.31"), ptrTo("3.32"), ptrTo("v3.32.1"), ptrTo("v3.31.7"), ptrTo("v3.30"))
	return cfg
}

// randomShoot returns a Shoot with complete cluster facts (pod and node networks of its families)
// carrying cfg, and the kube-apiserver addresses the controller would resolve for it. Missing
// facts are not a validation error (docs/validation.md), so they are not generated.
func randomShoot(r *rand.Rand, cfg *calicov1alpha1.NetworkConfig) (*gardencorev1beta1.Shoot, []netip.Addr) {
	s := &gardencorev1beta1.Shoot{
		Spec: gardencorev1beta1.ShootSpec{
			Networking: &gardencorev1beta1.Networking{
				Type: ptrTo("calico"), Pods: ptrTo("100.96.0.0/11"), Nodes: ptrTo("10.250.0.0/16"), Services: ptrTo("100.64.0.0/13"),
			},
			Kubernetes: gardencorev1beta1.Kubernetes{
				Version:               []string{"1.33.0", "1.34.2", "1.36.0"}[r.IntN(3)],
				KubeProxy:             &gardencorev1beta1.KubeProxyConfig{Enabled: ptrTo(true), Mode: ptrTo(gardencorev1beta1.ProxyModeIPTables)},
				VerticalPodAutoscaler: &gardencorev1beta1.VerticalPodAutoscaler{Enabled: true},
			},
			Provider: gardencorev1beta1.Provider{Type: "local", Workers: []gardencorev1beta1.Worker{{Name: "worker"}}},
		},
	}
	n := s.Spec.Networking
	dual := func(families ...gardencorev1beta1.IPFamily) {
		n.IPFamilies = families
		s.Status.Networking = &gardencorev1beta1.NetworkingStatus{
			Pods: []string{"100.96.0.0/11", "2001:db8:1::/56"}, Nodes: []string{"10.250.0.0/16", "2001:db8:2::/64"},
		}
	}
	migrating := []gardencorev1beta1.Condition{{Type: gardencorev1beta1.ConditionDualStackNodesMigrationReady, Status: "Progressing"}}
	switch r.IntN(6) {
	case 0:
		n.IPFamilies = []gardencorev1beta1.IPFamily{"IPv6"}
		n.Pods, n.Nodes, n.Services = ptrTo("2001:db8:1::/56"), ptrTo("2001:db8:2::/64"), ptrTo("2001:db8:3::/112")
		s.Status.Networking = &gardencorev1beta1.NetworkingStatus{Pods: []string{"2001:db8:1::/56"}, Nodes: []string{"2001:db8:2::/64"}}
	case 1:
		dual("IPv4", "IPv6")
	case 2:
		// Dual-stack requested, nodes not migrated yet: only the first family is active.
		dual("IPv4", "IPv6")
		s.Status.Constraints = migrating
	case 3:
		dual("IPv6", "IPv4")
		s.Status.Constraints = migrating
	}
	if r.IntN(4) == 0 {
		s.Spec.Kubernetes.VerticalPodAutoscaler = pick(r, &gardencorev1beta1.VerticalPodAutoscaler{Enabled: false})
	}
	switch r.IntN(4) {
	case 0:
		// Gardener defaults the mode even when kube-proxy is off.
		s.Spec.Kubernetes.KubeProxy.Enabled = ptrTo(false)
	case 1:
		s.Spec.Kubernetes.KubeProxy.Mode = ptrTo(gardencorev1beta1.ProxyModeNFTables)
	}
	if r.IntN(6) == 0 {
		s.Spec.Hibernation = &gardencorev1beta1.Hibernation{Enabled: ptrTo(true)}
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		panic(err)
	}
	n.ProviderConfig = &runtime.RawExtension{Raw: raw}
	var addrs []netip.Addr
	// Addresses are supplied when the set is asked for (as the controller resolves them).
	if g := cfg.KubeAPIServerGlobalNetworkSet; g != nil && g.Enabled != nil && *g.Enabled {
		addrs = []netip.Addr{netip.MustParseAddr("192.0.2.34"), netip.MustParseAddr("2001:db8::1")}
	}
	return s, addrs
}

// renderShoot is the offline pipeline after validation: decode, resolve, render, serialize.
func renderShoot(s *gardencorev1beta1.Shoot, addrs []netip.Addr, nonPrivileged bool, imgs imagevector.Images) ([]client.Object, field.ErrorList, error) {
	cfg, errs := decode.ShootNetworkConfig(s)
	if len(errs) > 0 {
		return nil, errs, nil
	}
	opts, errs := values.Resolve(values.Inputs{
		Config:     cfg,
		ConfigPath: decode.ProviderConfigPath(),
		Cluster:    values.FactsFromShoot(s, "shoot--dev--test"),
		Settings: values.Settings{
			FeatureGates:           values.FeatureGates{NonPrivilegedCalicoNode: nonPrivileged},
			Images:                 imgs,
			KubeAPIServerAddresses: addrs,
		},
	})
	if len(errs) > 0 {
		return nil, errs, nil
	}
	objs, err := rendertest.Shoot(&opts)
	if err != nil {
		return nil, nil, fmt.Errorf("render: %w", err)
	}
	if _, err := manifest.Build(nil, objs); err != nil {
		return nil, nil, fmt.Errorf("serializing: %w", err)
	}
	return objs, nil, nil
}

// podSpecProblems checks what the API server does not: every container has an image, env names
// are unique per container, and every mounted volume exists in the pod.
func podSpecProblems(objs []client.Object) []string {
	var problems []string
	for _, o := range objs {
		var spec *corev1.PodSpec
		switch w := o.(type) {
		case *appsv1.DaemonSet:
			spec = &w.Spec.Template.Spec
		case *appsv1.Deployment:
			spec = &w.Spec.Template.Spec
		default:
			continue
		}
		volumes := map[string]bool{}
		for _, v := range spec.Volumes {
			volumes[v.Name] = true
		}
		for _, c := range append(append([]corev1.Container(nil), spec.InitContainers...), spec.Containers...) {
			if c.Image == "" {
				problems = append(problems, fmt.Sprintf("%s/%s container %s has no image", o.GetNamespace(), o.GetName(), c.Name))
			}
			seen := map[string]bool{}
			for _, e := range c.Env {
				if seen[e.Name] {
					problems = append(problems, fmt.Sprintf("%s container %s sets %s twice", o.GetName(), c.Name, e.Name))
				}
				seen[e.Name] = true
			}
			for _, m := range c.VolumeMounts {
				if !volumes[m.Name] {
					problems = append(problems, fmt.Sprintf("%s container %s mounts missing volume %s", o.GetName(), c.Name, m.Name))
				}
			}
		}
	}
	return problems
}

// TestValidationAcceptsExactlyWhatRenders is "validation and rendering never disagree" as a property over 20000
// deterministic pseudo-random Shoots (IPv4, IPv6, dual-stack, a pending dual-stack migration in
// either family order, with and without VPA, kube-proxy off, nftables, hibernation) carrying
// NetworkConfigs with valid values, invalid values and contradicting combinations:
//
//   - validation.ValidateShoot accepts ⇔ values.Resolve and rendertest.Shoot succeed (and the objects
//     serialize and have sound pod specs);
//   - when both reject, they report the same errors (path, type, value, message and rule), since
//     both take them from internal/rules;
//   - every rule of the rules catalogue is reached, so the property covers all of them.
func TestValidationAcceptsExactlyWhatRenders(t *testing.T) {
	const n = 20000
	imgs := rendertest.DefaultImages()
	r := rand.New(rand.NewPCG(2, 12))
	accepted, failures := 0, 0
	seen := map[string]int{}
	fail := func(format string, args ...any) {
		failures++
		if failures <= 10 {
			t.Errorf(format, args...)
		}
	}
	for i := range n {
		cfg := randomNetworkConfig(r)
		s, addrs := randomShoot(r, cfg)
		_, validErrs := validation.ValidateShoot(s)
		objs, resolveErrs, renderErr := renderShoot(s, addrs, r.IntN(2) == 0, imgs)
		for _, e := range validErrs {
			seen[e.Origin]++
		}
		raw := s.Spec.Networking.ProviderConfig.Raw
		switch {
		case len(validErrs) == 0 && len(resolveErrs) > 0:
			fail("case %d: validation accepts, values.Resolve rejects: %v\nconfig: %s\nfamilies: %v", i, resolveErrs, raw, s.Spec.Networking.IPFamilies)
		case len(validErrs) == 0 && renderErr != nil:
			fail("case %d: validation accepts, %v\nconfig: %s", i, renderErr, raw)
		case len(validErrs) == 0:
			accepted++
			for _, problem := range podSpecProblems(objs) {
				fail("case %d: %s\nconfig: %s", i, problem, raw)
			}
		default:
			if diff := cmp.Diff(validErrs, resolveErrs); diff != "" {
				fail("case %d: validation and values.Resolve report different errors (-validation +resolve):\n%s\nconfig: %s\nfamilies: %v", i, diff, raw, s.Spec.Networking.IPFamilies)
			}
		}
	}
	if failures > 10 {
		t.Errorf("%d failures in total, the first 10 are shown", failures)
	}
	// The generator must reach the accepting side and every rule, or the property says little.
	if accepted < n/20 {
		t.Errorf("only %d of %d configurations were valid; the generator needs tuning", accepted, n)
	}
	var missing []string
	for _, rule := range rules.Catalogue() {
		if seen[string(rule.ID)] == 0 {
			missing = append(missing, string(rule.ID))
		}
		delete(seen, string(rule.ID))
	}
	if len(missing) > 0 {
		t.Errorf("rules never reached by the generator: %v", missing)
	}
	var unknown []string
	for origin := range seen {
		unknown = append(unknown, fmt.Sprintf("%q", origin))
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		t.Errorf("errors from rules outside the catalogue (origin): %v", unknown)
	}
	t.Logf("%d of %d configurations valid", accepted, n)
}
