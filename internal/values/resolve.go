package values

import (
	"net/netip"
	"slices"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/rules"
)

// Default resource requests (the reference's chart defaults).
var (
	defaultNodeCPU     = resource.MustParse("250m")
	defaultNodeMemory  = resource.MustParse("100Mi")
	defaultTyphaCPU    = resource.MustParse("200m")
	defaultTyphaMemory = resource.MustParse("100Mi")
)

// Resolve derives the render Options. It returns every problem it finds as a field.ErrorList with
// paths rooted where the user wrote the value. The NetworkConfig's settings and errors come from
// internal/rules, the functions validation reports from, so a config validation accepts resolves
// (validation and rendering never disagree); the other errors are about missing or malformed cluster facts and the
// kube-apiserver addresses.
func Resolve(in Inputs) (Options, field.ErrorList) {
	r := resolver{in: in, cfg: in.Config, path: in.ConfigPath}
	if r.cfg == nil {
		r.cfg = &calicov1alpha1.NetworkConfig{}
	}
	if r.path == nil {
		r.path = field.NewPath("spec", "networking", "providerConfig")
	}
	if r.in.Cluster.Paths.PodCIDR == nil {
		r.in.Cluster.Paths = ShootFactPaths()
	}
	r.resolve()
	if len(r.errs) > 0 {
		return Options{}, r.errs
	}
	return r.out, nil
}

type resolver struct {
	in   Inputs
	cfg  *calicov1alpha1.NetworkConfig
	path *field.Path
	out  Options
	errs field.ErrorList
}

func (r *resolver) resolve() {
	r.out.Images = r.in.Images
	r.out.Calico = r.in.Calico
	if r.out.Calico.IsZero() {
		// Inputs built without a Calico choice (tests, tools); the pipeline always chooses.
		r.out.Calico = calicoversion.Steady(calicoversion.Default().DefaultRelease())
	}
	r.out.SeedNamespace = r.in.Cluster.SeedNamespace
	r.out.Layout = r.in.Layout
	r.out.Components = r.in.Components.clone()
	r.errs = append(r.errs, r.in.Components.Validate(ComponentsPath)...)
	fam := r.families()
	r.cidrs()
	// Every NetworkConfig rule, the same functions validation reports from (internal/rules).
	nodes := r.nodeNetworks()
	s, errs := rules.NetworkConfig(r.cfg, fam, nodes, r.path)
	r.ruleErrors(errs)
	if r.in.Compatibility == calicov1alpha1.CompatibilityReference {
		c := r.in.Cluster
		r.out.Findings = append(r.out.Findings, rules.ReferenceOverrides(r.cfg, fam.Active, c.NodeCIDR != "", len(c.StatusNodeCIDRs) > 0, &s, nodes, r.path)...)
		r.out.ReferenceTemplates, r.out.TakenOver = true, r.in.TakenOver
	}
	r.backend(s)
	r.pools(s)
	r.out.IPv4AutoDetectionMethod, r.out.IPv6AutoDetectionMethod = s.Autodetection.IPv4, s.Autodetection.IPv6
	r.ipam(s)
	r.dataplane(s)
	r.autoscaling(s)
	// Ratcheted: calicoversion.Decide chooses the release (a Shoot rule, as in validation).
	r.ruleErrors(rules.CalicoVersionKubernetes(r.cfg, r.in.Cluster.KubernetesVersion, r.path))
	r.globalNetworkSet()
	if r.cfg.PolicyValidation != nil {
		r.out.PolicyValidation = r.cfg.PolicyValidation.DeepCopy()
	}
}

// families applies the dual-stack migration constraint: until the nodes are ready, only the first
// requested family is active. The rules judge family blocks against the requested families: while
// the migration trims the second family away, its block waits for it rather than failing the shoot.
func (r *resolver) families() rules.Families {
	requested := r.in.Cluster.IPFamilies
	if len(requested) == 0 {
		requested = []string{"IPv4"}
	}
	active := requested
	if r.in.Cluster.DualStackMigrationPending {
		active = active[:1]
	}
	fam := rules.Families{
		Requested: rules.FamilySet{IPv4: slices.Contains(requested, "IPv4"), IPv6: slices.Contains(requested, "IPv6")},
		Active:    rules.FamilySet{IPv4: slices.Contains(active, "IPv4"), IPv6: slices.Contains(active, "IPv6")},
	}
	r.out.IPv4, r.out.IPv6 = fam.Active.IPv4, fam.Active.IPv6
	return fam
}

func (r *resolver) cidrs() {
	c := r.in.Cluster
	var v4, v6 string
	all := append([]string{c.PodCIDR}, c.StatusPodCIDRs...)
	for i, s := range all {
		if s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			path := c.Paths.PodCIDR
			if i > 0 {
				path = field.NewPath("status", "networking", "pods").Index(i - 1)
			}
			r.errs = append(r.errs, field.Invalid(path, s, "must be a CIDR, e.g. 100.96.0.0/11 or 2001:db8::/56"))
			continue
		}
		if p.Addr().Is4() {
			if v4 == "" {
				v4 = p.Masked().String()
			}
		} else {
			// The last IPv6 entry wins, as in the reference (status lists it after the IPv4 one).
			v6 = p.Masked().String()
		}
	}
	if r.out.IPv4 {
		if v4 == "" {
			r.errs = append(r.errs, field.Required(c.Paths.PodCIDR, "an IPv4 pod CIDR is required when the shoot uses IPv4"))
		}
		r.out.PodCIDRv4 = v4
	}
	if r.out.IPv6 {
		if v6 == "" {
			r.errs = append(r.errs, field.Required(c.Paths.PodCIDR, "an IPv6 pod CIDR is required when the shoot uses IPv6 (spec or status.networking.pods)"))
		}
		r.out.PodCIDRv6 = v6
	}
	if c.NodeCIDR != "" {
		p, err := netip.ParsePrefix(c.NodeCIDR)
		if err != nil {
			r.errs = append(r.errs, field.Invalid(c.Paths.NodeCIDR, c.NodeCIDR, "must be a CIDR, e.g. 10.250.0.0/16"))
		} else if p.Addr().Is4() && r.out.IPv4 {
			r.out.NodeCIDRv4 = p.Masked().String()
		}
	}
}

// nodeNetworks are the node networks by family (status.networking.nodes, else spec.networking.nodes),
// the default of the autodetection methods.
func (r *resolver) nodeNetworks() rules.NodeNetworks {
	c := r.in.Cluster
	var n rules.NodeNetworks
	nodes := c.StatusNodeCIDRs
	if len(nodes) == 0 && c.NodeCIDR != "" {
		nodes = []string{c.NodeCIDR}
	}
	for i, s := range nodes {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			r.errs = append(r.errs, field.Invalid(field.NewPath("status", "networking", "nodes").Index(i), s, "must be a CIDR"))
			continue
		}
		if p.Addr().Is4() {
			n.IPv4 = append(n.IPv4, p.Masked().String())
		} else {
			n.IPv6 = append(n.IPv6, p.Masked().String())
		}
	}
	return n
}

func (r *resolver) backend(s rules.Settings) {
	cfg := r.cfg
	b := s.Backend
	r.out.Backend = b
	r.out.KubeControllers = b != calicov1alpha1.BackendNone
	r.out.NetworkUnavailableEnsurer = b != calicov1alpha1.BackendNone
	if cfg.Overlay != nil && !cfg.Overlay.Enabled {
		r.out.OverlayDisabled = true
		r.out.SNATToUpstreamDNS = cfg.SnatToUpstreamDNS == nil || cfg.SnatToUpstreamDNS.Enabled
	}
}

// pools turns the default pools into env and IPPool objects.
func (r *resolver) pools(s rules.Settings) {
	cfg := r.cfg
	if r.out.IPv4 {
		enc := EncapsulationIPIP
		if s.IPv4Pool.Encapsulation == calicov1alpha1.PoolVXLAN {
			enc = EncapsulationVXLAN
		}
		r.out.IPv4Pool = PoolOptions{Encapsulation: enc, Mode: string(s.IPv4Pool.Mode), NATOutgoing: true}
		r.out.IPv4PoolObject = cfg.Overlay != nil
		r.out.NoSNATNodeCIDRPool = cfg.Overlay != nil && !cfg.Overlay.Enabled && r.out.NodeCIDRv4 != ""
		encapsulating := s.IPv4Pool.Encapsulates()
		if enc == EncapsulationVXLAN {
			r.out.FelixVXLANEnabled = encapsulating
			if !encapsulating {
				f := false
				r.out.FelixIPIPEnabled = &f
			}
		} else {
			v := encapsulating
			r.out.FelixIPIPEnabled = &v
		}
	} else {
		f := false
		r.out.FelixIPIPEnabled = &f
	}
	if r.out.IPv6 {
		nat := cfg.WireguardEncryption
		if cfg.IPv6 != nil && cfg.IPv6.SourceNATEnabled != nil {
			nat = *cfg.IPv6.SourceNATEnabled
		}
		r.out.IPv6Pool = PoolOptions{Encapsulation: EncapsulationVXLAN, Mode: string(s.IPv6Pool.Mode), NATOutgoing: nat}
		r.out.IPv6PoolObject = true
	}
}

func (r *resolver) ipam(s rules.Settings) {
	r.out.IPAM = IPAM{
		Type:       string(s.IPAM.Type),
		Subnet:     s.IPAM.Subnet,
		RangeIPv4:  s.IPAM.RangeIPv4,
		RangeIPv6:  s.IPAM.RangeIPv6,
		UsePodCIDR: s.IPAM.Type == calicov1alpha1.IPAMHostLocal,
	}
}

func (r *resolver) dataplane(s rules.Settings) {
	cfg := r.cfg
	c := r.in.Cluster
	r.out.Typha = cfg.Typha == nil || cfg.Typha.Enabled
	r.out.NoDefaultPools = r.in.NoDefaultPools
	if r.out.Typha && r.in.TyphaTLS != nil {
		// A copy: Options never share what the caller may change afterwards.
		t := *r.in.TyphaTLS
		r.out.TyphaTLS = &t
	}
	r.out.VethMTU = s.VethMTU
	r.out.EBPF = cfg.EbpfDataplane != nil && cfg.EbpfDataplane.Enabled
	if r.out.EBPF && c.ProviderType == ProviderAzure {
		r.out.BPFDataIfacePattern = AzureBPFDataIfacePattern
	}
	r.out.KubeProxyEnabled = c.KubeProxyEnabled == nil || *c.KubeProxyEnabled
	r.errs = append(r.errs, rules.KubeProxy(cfg, c.KubeProxyEnabled, c.Paths.KubeProxyEnabled, r.path)...)
	// Gardener defaults the kube-proxy mode even when kube-proxy is off, so the mode only matters
	// while kube-proxy runs (the reference failed eBPF shoots on this).
	r.out.NFTables = r.out.KubeProxyEnabled && c.KubeProxyMode == "NFTables"
	// eBPF needs privileges; the gate is an operator-wide default, not a per-shoot promise.
	r.out.NonPrivileged = r.in.FeatureGates.NonPrivilegedCalicoNode && !r.out.EBPF
	r.out.WireGuard = cfg.WireguardEncryption
	r.out.BirdExporter = cfg.BirdExporter != nil && cfg.BirdExporter.Enabled
	r.out.Multus = cfg.Multus != nil && cfg.Multus.Enabled
	// installCNIPlugins is a property of the multus DaemonSet: without multus there is nothing to install into.
	r.out.MultusInstallCNIPlugins = r.out.Multus && cfg.Multus.InstallCNIPlugins != nil && *cfg.Multus.InstallCNIPlugins
	r.out.ServiceLoopPrevention = s.ServiceLoopPrevention
}

func (r *resolver) autoscaling(s rules.Settings) {
	c := r.in.Cluster
	a := &r.out.AutoScaling
	a.Mode = AutoScalingMode(s.AutoScaling.Mode)
	if vpaErrs := rules.ShootVPA(r.cfg, c.VPAEnabled, c.Paths.VPAEnabled, r.path); len(vpaErrs) > 0 {
		r.ruleErrors(vpaErrs)
		// Ratcheted: the reference's choice, cluster-proportional without a VPA.
		a.Mode = AutoScalingClusterProportional
	}
	node := Resources{CPU: s.AutoScaling.Node.CPU, Memory: s.AutoScaling.Node.Memory}
	typha := Resources{CPU: s.AutoScaling.Typha.CPU, Memory: s.AutoScaling.Typha.Memory}
	if a.Mode == AutoScalingVPA && r.in.Compatibility == calicov1alpha1.CompatibilityReference && (!typha.CPU.IsZero() || !typha.Memory.IsZero()) {
		// The reference used resources.typha only as the VPA's minAllowed, not as typha's requests.
		r.out.Findings = append(r.out.Findings, rules.Ignored(r.path.Child("autoScaling", "resources", "typha"), "", "in vpa mode the reference used resources.typha only as the typha VPA's minAllowed, not as typha's requests",
			"typha requests stay 200m/100Mi (the VPA still gets minAllowed)"))
		a.TyphaMinAllowed = typha
		typha = Resources{}
	}
	a.NodeRequests = withDefaults(node, defaultNodeCPU, defaultNodeMemory)
	a.TyphaRequests = withDefaults(typha, defaultTyphaCPU, defaultTyphaMemory)
	a.TyphaCPA = r.out.Typha
	switch a.Mode {
	case AutoScalingVPA:
		a.NodeVPA = true
		a.TyphaVPA = r.out.Typha
		a.NodeMinAllowed = node
		if a.TyphaMinAllowed.CPU.IsZero() && a.TyphaMinAllowed.Memory.IsZero() {
			a.TyphaMinAllowed = typha
		}
		a.PreserveResources = true
	case AutoScalingStatic:
	default:
		// Resources only apply to vpa and static mode (documented in the user guide).
		a.NodeRequests = withDefaults(Resources{}, defaultNodeCPU, defaultNodeMemory)
		a.TyphaRequests = withDefaults(Resources{}, defaultTyphaCPU, defaultTyphaMemory)
		a.NodeCPVA = true
		a.TyphaCPVA = r.out.Typha
		a.PreserveResources = true
	}
	a.KubeControllersVPA = r.out.KubeControllers && c.VPAEnabled
}

func withDefaults(r Resources, cpu, mem resource.Quantity) Resources {
	if r.CPU.IsZero() {
		r.CPU = cpu.DeepCopy()
	}
	if r.Memory.IsZero() {
		r.Memory = mem.DeepCopy()
	}
	return r
}

// GlobalNetworkSetEnabled is the one precedence rule of the gardener-kube-apiserver
// GlobalNetworkSet: the shoot's providerConfig wins, then the operator's default
// (ControllerConfiguration kubeAPIServerGlobalNetworkSet.enabled), else the set is off.
func GlobalNetworkSetEnabled(cfg *calicov1alpha1.NetworkConfig, operatorDefault *bool) bool {
	if cfg != nil && cfg.KubeAPIServerGlobalNetworkSet != nil && cfg.KubeAPIServerGlobalNetworkSet.Enabled != nil {
		return *cfg.KubeAPIServerGlobalNetworkSet.Enabled
	}
	return operatorDefault != nil && *operatorDefault
}

// globalNetworkSet: providerConfig ?? operator default ?? off. Enabled on a running shoot means
// the addresses must be known (an empty set would match nothing and block what policies allow).
func (r *resolver) globalNetworkSet() {
	enabled := GlobalNetworkSetEnabled(r.cfg, r.in.Operator.KubeAPIServerGlobalNetworkSet)
	addrs := r.in.KubeAPIServerAddresses
	p := r.path.Child("kubeAPIServerGlobalNetworkSet", "enabled")
	switch {
	case !enabled && len(addrs) > 0:
		r.errs = append(r.errs, field.Invalid(p, false, "kube-apiserver addresses were given but the GlobalNetworkSet is not enabled; enable it or drop the addresses"))
	case !enabled, r.in.Cluster.Hibernated:
		// Hibernated shoots are exempt: the set is left out and published again after wake-up.
	case len(addrs) == 0:
		r.errs = append(r.errs, field.Invalid(p, true, "no kube-apiserver address is known, and an empty set is never published; provide the addresses or disable the set"))
	default:
		r.out.KubeAPIServerNets = Nets(addrs)
	}
}

// Nets turns addresses into sorted, de-duplicated /32 and /128 networks (IPv4-mapped IPv6
// addresses count as IPv4).
func Nets(addrs []netip.Addr) []netip.Prefix {
	out := make([]netip.Prefix, 0, len(addrs))
	for _, a := range addrs {
		a = a.Unmap().WithZone("")
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	slices.SortFunc(out, func(x, y netip.Prefix) int { return x.Addr().Compare(y.Addr()) })
	return slices.Compact(out)
}
