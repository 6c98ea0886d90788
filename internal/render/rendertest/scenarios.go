package rendertest

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// Scenario is one rendered configuration. The base shoot is IPv4, nodes 10.250.0.0/16, pods
// 100.96.0.0/11, VPA on, kube-proxy on in IPTables mode (reference section 2.10).
type Scenario struct {
	Name string
	// ProviderConfig is the NetworkConfig YAML without apiVersion/kind ("" = none).
	ProviderConfig string
	// Shoot changes the base shoot.
	Shoot func(*gardencorev1beta1.Shoot)
	// NonPrivileged sets the NonPrivilegedCalicoNode feature gate.
	NonPrivileged bool
	// Addresses are the kube-apiserver addresses.
	Addresses []string
	// Golden: the scenario's whole render at the base release is kept in
	// internal/render/testdata/shoot/<Name>/ (a handful of scenarios, one per kind of shoot); every
	// other scenario is pinned by what its decisions change compared with the closest golden one
	// (internal/render/testdata/delta/<Name>.txt), and what every other release changes in each
	// scenario by internal/render/testdata/releases/<release>.txt.
	Golden bool
	// Calico is the release each Calico component runs (zero: Base, every component and the CRDs).
	Calico calicoversion.Deployment
}

// Deployment is the release each component of the scenario runs: Calico, or every component at
// Base when Calico is zero.
func (sc Scenario) Deployment() calicoversion.Deployment {
	if sc.Calico.IsZero() {
		return calicoversion.Steady(Base())
	}
	return sc.Calico
}

// At is the scenario with every component and the CRDs at release r, named "<name>@<release>".
func (sc Scenario) At(r calicoversion.Release) Scenario {
	sc.Name += "@" + r.Name()
	sc.Calico = calicoversion.Steady(r)
	return sc
}

// AtEveryRelease is every scenario at every release of the catalogue: the scenarios as Scenarios
// lists them (the base scenarios at Base, named plainly, and the move scenarios), then each base
// scenario at every other release (At: "<name>@<release>"), releases oldest first. Tests that must
// hold for every release a shoot can run loop over it.
func AtEveryRelease() []Scenario {
	all := Scenarios()
	base := slices.DeleteFunc(Scenarios(), func(sc Scenario) bool { return !sc.Calico.IsZero() })
	for _, r := range calicoversion.Default().Releases() {
		if r == Base() {
			continue
		}
		for _, sc := range base {
			all = append(all, sc.At(r))
		}
	}
	return all
}

// MoveScenarios are the shoot of scenario "default" in every step of every move between releases of
// the catalogue (calicoversion.Plan for every ordered pair of releases, every phase), each deployment
// once. No step renders as a release does (AtEveryRelease): its components run different releases,
// or it rolls some of them from the release moved from, so their RBAC serves both releases
// (calicoversion.Deployment.Running), and a move down keeps the newer line's CRDs. Named
// "move-<from>-<to>-<phase>" after the first move (oldest from, then oldest to) that has the step.
func MoveScenarios() []Scenario {
	cat := calicoversion.Default()
	var out []Scenario
	seen := map[calicoversion.Deployment]bool{}
	for _, from := range cat.Releases() {
		for _, to := range cat.Releases() {
			m, err := cat.Plan(from, to)
			if err != nil || m.IsZero() {
				continue // the same release, or a move that skips a line (refused)
			}
			for _, phase := range []calicoversion.Phase{calicoversion.PhaseFirst, calicoversion.PhaseComplete} {
				if phase == calicoversion.PhaseFirst && m.FirstPhase() != calicoversion.PhaseFirst {
					continue // a one-step move
				}
				d := m.Deployment(phase, calicoversion.Release{})
				if seen[d] {
					continue
				}
				seen[d] = true
				out = append(out, Scenario{Name: "move-" + from.Name() + "-" + to.Name() + "-" + strings.ToLower(string(phase)), Calico: d})
			}
		}
	}
	return out
}

// DualStack makes the shoot dual-stack (IPv4 first).
func DualStack(s *gardencorev1beta1.Shoot) {
	s.Spec.Networking.IPFamilies = []gardencorev1beta1.IPFamily{"IPv4", "IPv6"}
	s.Status.Networking = &gardencorev1beta1.NetworkingStatus{
		Pods:  []string{"100.96.0.0/11", "2001:db8:1::/56"},
		Nodes: []string{"10.250.0.0/16", "2001:db8:2::/64"},
	}
}

// IPv6Only makes the shoot IPv6-only.
func IPv6Only(s *gardencorev1beta1.Shoot) {
	s.Spec.Networking.IPFamilies = []gardencorev1beta1.IPFamily{"IPv6"}
	s.Spec.Networking.Pods = ptr.To("2001:db8:1::/56")
	s.Spec.Networking.Nodes = ptr.To("2001:db8:2::/64")
	s.Spec.Networking.Services = ptr.To("2001:db8:3::/112")
	s.Status.Networking = &gardencorev1beta1.NetworkingStatus{
		Pods: []string{"2001:db8:1::/56"}, Nodes: []string{"2001:db8:2::/64"},
	}
}

// KubeProxyOff disables kube-proxy, with the mode Gardener defaults anyway.
func KubeProxyOff(s *gardencorev1beta1.Shoot) {
	// Gardener defaults the mode even when kube-proxy is off.
	s.Spec.Kubernetes.KubeProxy = &gardencorev1beta1.KubeProxyConfig{Enabled: ptr.To(false), Mode: ptr.To(gardencorev1beta1.ProxyModeIPTables)}
}

// NoVPA disables the shoot's VPA.
func NoVPA(s *gardencorev1beta1.Shoot) { s.Spec.Kubernetes.VerticalPodAutoscaler = nil }

// Scenarios are the render scenarios: the reference's matrix (2.10) plus IPv6, dual-stack,
// the GlobalNetworkSet, non-privileged mode and the seed's example shoot, all at the base release
// (Base), followed by the move scenarios (MoveScenarios). Every release of the catalogue renders
// the base scenarios too (AtEveryRelease). Each call returns a fresh list.
func Scenarios() []Scenario {
	return append([]Scenario{
		{Name: "default", Golden: true},
		{Name: "empty-config", ProviderConfig: "{}"},
		{Name: "overlay-enabled", Golden: true, ProviderConfig: "overlay: {enabled: true}"},
		{Name: "overlay-disabled", Golden: true, ProviderConfig: "overlay: {enabled: false}"},
		{Name: "overlay-disabled-no-snat-dns", ProviderConfig: "overlay: {enabled: false}\nsnatToUpstreamDNS: {enabled: false}"},
		{Name: "overlay-disabled-create-pod-routes", ProviderConfig: "overlay: {enabled: false, createPodRoutes: true}"},
		{Name: "overlay-vxlan", ProviderConfig: "overlay: {enabled: true}\nvxlan: {enabled: true}"},
		{Name: "vxlan-without-overlay-field", ProviderConfig: "vxlan: {enabled: true}"},
		{Name: "typha-disabled", ProviderConfig: "typha: {enabled: false}"},
		{Name: "vpa-with-resources", ProviderConfig: "autoScaling:\n  mode: vpa\n  resources:\n    node: {cpu: 100m, memory: 300Mi}\n    typha: {cpu: 50m, memory: 64Mi}"},
		{Name: "vpa-without-resources", ProviderConfig: "autoScaling: {mode: vpa}"},
		{Name: "static-with-resources", ProviderConfig: "autoScaling:\n  mode: static\n  resources:\n    node: {cpu: 100m, memory: 300Mi}\n    typha: {cpu: 50m, memory: 64Mi}"},
		{Name: "static-without-resources", ProviderConfig: "autoScaling: {mode: static}"},
		{Name: "cluster-proportional-no-shoot-vpa", ProviderConfig: "autoScaling: {mode: cluster-proportional}", Shoot: NoVPA},
		{Name: "ebpf-kube-proxy-off", Golden: true, ProviderConfig: "ebpfDataplane: {enabled: true}\noverlay: {enabled: false}", Shoot: KubeProxyOff},
		{Name: "ebpf-kube-proxy-on", ProviderConfig: "ebpfDataplane: {enabled: true}\noverlay: {enabled: false}"},
		{Name: "ebpf-non-privileged-gate", ProviderConfig: "ebpfDataplane: {enabled: true}\noverlay: {enabled: false}", Shoot: KubeProxyOff, NonPrivileged: true},
		// Seed 004: eBPF on Azure keeps Felix off the accelerated-networking enP* interfaces.
		{Name: "ebpf-azure", ProviderConfig: "ebpfDataplane: {enabled: true}\noverlay: {enabled: false}", Shoot: func(s *gardencorev1beta1.Shoot) {
			KubeProxyOff(s)
			s.Spec.Provider.Type = "azure"
		}},
		{Name: "non-privileged-overlay", Golden: true, ProviderConfig: "overlay: {enabled: true}", NonPrivileged: true},
		{Name: "non-privileged-overlay-disabled", ProviderConfig: "overlay: {enabled: false}", NonPrivileged: true},
		{Name: "bird-exporter", ProviderConfig: "birdExporter: {enabled: true}"},
		{Name: "multus", Golden: true, ProviderConfig: "multus: {enabled: true}"},
		{Name: "multus-install-cni-plugins", ProviderConfig: "multus: {enabled: true, installCNIPlugins: true}"},
		{Name: "wireguard", ProviderConfig: "wireguardEncryption: true"},
		{Name: "kube-proxy-nftables", Shoot: func(s *gardencorev1beta1.Shoot) {
			s.Spec.Kubernetes.KubeProxy.Mode = ptr.To(gardencorev1beta1.ProxyModeNFTables)
		}},
		{Name: "calico-ipam", ProviderConfig: "ipam: {type: calico-ipam}"},
		{Name: "service-loop-prevention-mtu", ProviderConfig: "serviceLoopPrevention: Drop\nvethMTU: \"1400\""},
		{Name: "backend-none", ProviderConfig: "backend: none"},
		{Name: "ipv4-mode-cross-subnet", ProviderConfig: "ipv4: {mode: CrossSubnet}"},
		{Name: "overlay-ipv4-cross-subnet", ProviderConfig: "overlay: {enabled: true}\nipv4: {mode: CrossSubnet}"},
		{Name: "deprecated-ipip-autodetection", ProviderConfig: "ipip: CrossSubnet\nipAutodetectionMethod: interface=eth0"},
		{Name: "ipv4-autodetection-explicit", ProviderConfig: "ipv4: {autoDetectionMethod: \"can-reach=8.8.8.8\"}"},
		{Name: "ipam-host-local-cidr", ProviderConfig: "ipam: {type: host-local, cidr: usePodCIDR}"},
		{Name: "status-node-cidrs", Shoot: func(s *gardencorev1beta1.Shoot) {
			s.Status.Networking = &gardencorev1beta1.NetworkingStatus{Nodes: []string{"10.250.0.0/16", "10.251.0.0/16"}}
		}},
		{Name: "ipv6", Golden: true, Shoot: IPv6Only},
		{Name: "ipv6-source-nat-wireguard", ProviderConfig: "wireguardEncryption: true\nipv6: {sourceNATEnabled: false}", Shoot: IPv6Only},
		{Name: "dual-stack", Golden: true, Shoot: DualStack},
		{Name: "dual-stack-overlay-disabled", ProviderConfig: "overlay: {enabled: false}", Shoot: DualStack},
		{Name: "dual-stack-migration-pending", Shoot: func(s *gardencorev1beta1.Shoot) {
			DualStack(s)
			s.Status.Constraints = []gardencorev1beta1.Condition{{Type: "DualStackNodesMigrationReady", Status: "False", Reason: "NodesNotMigrated", Message: "waiting"}}
		}},
		{
			Name: "global-network-set", ProviderConfig: "kubeAPIServerGlobalNetworkSet: {enabled: true}",
			Addresses: []string{"192.0.2.34", "2001:db8::10", "192.0.2.7", "192.0.2.34", "::ffff:198.51.100.1"},
		},
		{
			Name: "global-network-set-hibernated", ProviderConfig: "kubeAPIServerGlobalNetworkSet: {enabled: true}",
			Shoot: func(s *gardencorev1beta1.Shoot) {
				s.Spec.Hibernation = &gardencorev1beta1.Hibernation{Enabled: ptr.To(true)}
			},
		},
		{
			// The example Shoot of networking-calico's end-user guide.
			Name:           "seed-004-example",
			ProviderConfig: "ipam: {type: host-local}\nvethMTU: \"1440\"\noverlay: {enabled: true}\ntypha: {enabled: false}\nkubeAPIServerGlobalNetworkSet: {enabled: true}",
			Addresses:      []string{"192.0.2.34"},
		},
		// Opt-in admission checks of Calico policies in the shoot: Deny and Warn.
		{Name: "policy-validation-deny", ProviderConfig: "policyValidation: {mode: Deny}"},
		{Name: "policy-validation-warn", ProviderConfig: "policyValidation: {mode: Warn}"},
		{
			// Everything at once: the largest output (benchmark "largest").
			Name: "largest",
			ProviderConfig: "overlay: {enabled: false, createPodRoutes: true}\n" +
				"birdExporter: {enabled: true}\nmultus: {enabled: true, installCNIPlugins: true}\nwireguardEncryption: true\nserviceLoopPrevention: Reject\n" +
				"kubeAPIServerGlobalNetworkSet: {enabled: true}",
			Shoot:     DualStack,
			Addresses: []string{"192.0.2.34", "2001:db8::10"},
		},
	}, MoveScenarios()...)
}

// Base is the release the scenarios render at unless they name another: the release shoots without a
// record run (the catalogue's unrecorded release, v3.31.6), so the full goldens also show that such
// shoots render byte-identical across calico-pilot versions.
func Base() calicoversion.Release { return calicoversion.Default().Unrecorded().Release }

// MustRelease is the release of the default catalogue named exactly.
func MustRelease(name string) calicoversion.Release {
	r, ok := calicoversion.Default().Release(name)
	if !ok {
		panic("no Calico release " + name)
	}
	return r
}

// BaseShoot is the shoot every scenario starts from: the integration suites' shoot
// (testenv.BaseShoot) named "test", with the shoot's VPA on.
func BaseShoot() *gardencorev1beta1.Shoot {
	s := testenv.BaseShoot("test")
	s.Spec.Kubernetes.VerticalPodAutoscaler = &gardencorev1beta1.VerticalPodAutoscaler{Enabled: true}
	return s
}

// ShootOf builds the scenario's Shoot.
func ShootOf(sc Scenario) *gardencorev1beta1.Shoot {
	s := BaseShoot()
	if sc.ProviderConfig != "" {
		s.Spec.Networking.ProviderConfig = &runtime.RawExtension{Raw: []byte(
			"apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\nkind: NetworkConfig\n" + sc.ProviderConfig)}
		if sc.ProviderConfig == "{}" {
			s.Spec.Networking.ProviderConfig.Raw = []byte(`{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkConfig"}`)
		}
	}
	if sc.Shoot != nil {
		sc.Shoot(s)
	}
	return s
}

// DefaultImages are the images of the embedded image vector looked up without a Kubernetes version
// (every version constraint holds): the Calico images of the catalogue's default release.
func DefaultImages() imagevector.Images {
	vector, err := imagevector.LoadVector(nil)
	if err != nil {
		panic(err)
	}
	imgs, err := vector.Images(imagevector.FindOptions{})
	if err != nil {
		panic(err)
	}
	return imgs
}

// Resolve runs the offline pipeline for a shoot (internal/pipeline: validate and decode once,
// resolve). validErrs are the validation errors; resolveErrs the errors of resolving the options
// (only reached when valid).
func Resolve(s *gardencorev1beta1.Shoot, nonPrivileged bool, addresses []string) (opts values.Options, validErrs, resolveErrs field.ErrorList) {
	return ResolveCalico(s, nonPrivileged, addresses, calicoversion.Deployment{})
}

// ResolveCalico is Resolve with the Calico release of each component (zero: Base), as the controller
// decides it.
func ResolveCalico(s *gardencorev1beta1.Shoot, nonPrivileged bool, addresses []string, calico calicoversion.Deployment) (opts values.Options, validErrs, resolveErrs field.ErrorList) {
	cfg, errs := pipeline.ShootConfig(s)
	if len(errs) > 0 {
		return values.Options{}, errs, nil
	}
	vector, err := imagevector.LoadVector(nil)
	if err != nil {
		panic(err)
	}
	if calico.IsZero() {
		calico = calicoversion.Steady(Base())
	}
	imgs, err := vector.ImagesFor(imagevector.FindOptions{}, calico)
	if err != nil {
		panic(err)
	}
	var addrs []netip.Addr
	for _, a := range addresses {
		addrs = append(addrs, netip.MustParseAddr(a))
	}
	opts, resolveErrs = pipeline.Options(pipeline.Source{Shoot: s, SeedNamespace: "shoot--dev--test"}, cfg, values.Settings{
		FeatureGates:           values.FeatureGates{NonPrivilegedCalicoNode: nonPrivileged},
		Images:                 imgs,
		KubeAPIServerAddresses: addrs,
		Calico:                 calico,
	})
	return opts, nil, resolveErrs
}

// Resolve resolves the scenario's options (ResolveCalico with its shoot, gate, addresses and lines).
func (sc Scenario) Resolve() (opts values.Options, validErrs, resolveErrs field.ErrorList) {
	return ResolveCalico(ShootOf(sc), sc.NonPrivileged, sc.Addresses, sc.Calico)
}

// Options resolves the scenario's options; an invalid scenario is an error.
func (sc Scenario) Options() (values.Options, error) {
	opts, validErrs, resolveErrs := sc.Resolve()
	if len(validErrs) > 0 || len(resolveErrs) > 0 {
		return values.Options{}, fmt.Errorf("scenario %s: validation errors %v, resolve errors %v", sc.Name, validErrs.ToAggregate(), resolveErrs.ToAggregate())
	}
	return opts, nil
}
