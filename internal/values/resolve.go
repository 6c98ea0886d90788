package values

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
)

// Default resource requests (the reference's chart defaults).
var (
	defaultNodeCPU     = resource.MustParse("250m")
	defaultNodeMemory  = resource.MustParse("100Mi")
	defaultTyphaCPU    = resource.MustParse("200m")
	defaultTyphaMemory = resource.MustParse("100Mi")
)

// Resolve derives the render Options. It returns every problem it finds as a field.ErrorList with
// paths rooted where the user wrote the value; the same inputs must already fail validation
// (DESIGN.md decision 2), so an error here means validation has a gap.
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
	// requested4 and requested6 are the families the shoot asks for, before the migration trim.
	requested4, requested6 bool

	in   Inputs
	cfg  *calicov1alpha1.NetworkConfig
	path *field.Path
	out  Options
	errs field.ErrorList
}

func (r *resolver) resolve() {
	r.out.Images = r.in.Images
	r.out.SeedNamespace = r.in.Cluster.SeedNamespace
	r.families()
	r.cidrs()
	r.backend()
	r.pools()
	r.autodetection()
	r.ipam()
	r.dataplane()
	r.autoscaling()
	r.globalNetworkSet()
}

// families applies the dual-stack migration constraint: until the nodes are ready, only the first
// requested family is used.
func (r *resolver) families() {
	fams := r.in.Cluster.IPFamilies
	if len(fams) == 0 {
		fams = []string{"IPv4"}
	}
	if r.in.Cluster.DualStackMigrationPending {
		fams = fams[:1]
	}
	r.out.IPv4 = slices.Contains(fams, "IPv4")
	r.out.IPv6 = slices.Contains(fams, "IPv6")
	// A family block is judged against the requested families: while the dual-stack migration
	// trims the second family away, its block waits for it rather than failing the shoot.
	requested := r.in.Cluster.IPFamilies
	if len(requested) == 0 {
		requested = []string{"IPv4"}
	}
	r.requested4, r.requested6 = slices.Contains(requested, "IPv4"), slices.Contains(requested, "IPv6")
	if r.cfg.IPv4 != nil && !r.requested4 {
		r.errs = append(r.errs, field.Forbidden(r.path.Child("ipv4"), "IPv4 configuration must not be specified when the shoot does not use IPv4 networking"))
	}
	if (r.cfg.IPIP != nil || r.cfg.IPAutoDetectionMethod != nil) && !r.requested4 {
		p := r.path.Child("ipip")
		if r.cfg.IPIP == nil {
			p = r.path.Child("ipAutodetectionMethod")
		}
		r.errs = append(r.errs, field.Forbidden(p, "IPv4 configuration must not be specified when the shoot does not use IPv4 networking"))
	}
	if r.cfg.IPv6 != nil && !r.requested6 {
		r.errs = append(r.errs, field.Forbidden(r.path.Child("ipv6"), "IPv6 configuration must not be specified when the shoot does not use IPv6 networking"))
	}
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

// backend decides the networking backend. An explicit overlay decides it (as in the reference);
// an explicit backend that contradicts the overlay is an error instead of being overwritten.
func (r *resolver) backend() {
	cfg := r.cfg
	var derived Backend
	switch {
	case cfg.Overlay != nil && cfg.Overlay.Enabled:
		derived = BackendBird
		// VXLAN is an IPv4 setting: judged on the requested families, as validation does.
		if cfg.VXLAN != nil && cfg.VXLAN.Enabled && r.requested4 {
			derived = BackendVXLAN
		}
	case cfg.Overlay != nil:
		derived = BackendNone
		if cfg.Overlay.CreatePodRoutes != nil && *cfg.Overlay.CreatePodRoutes {
			derived = BackendBird
		}
	case r.out.IPv6:
		// IPv6 and dual-stack shoots without an overlay setting route natively.
		derived = BackendNone
	default:
		derived = BackendBird
	}
	b := derived
	if cfg.Backend != nil {
		b = Backend(*cfg.Backend)
		if cfg.Overlay != nil && b != derived {
			r.errs = append(r.errs, field.Invalid(r.path.Child("backend"), string(*cfg.Backend),
				fmt.Sprintf("contradicts %s: that setting needs backend %q; remove one of the two fields", r.overlayDesc(), derived)))
		}
		switch b {
		case BackendBird, BackendNone, BackendVXLAN:
		default:
			r.errs = append(r.errs, field.NotSupported(r.path.Child("backend"), string(b), []string{"bird", "none", "vxlan"}))
		}
	}
	r.out.Backend = b
	r.out.KubeControllers = b != BackendNone
	r.out.NetworkUnavailableEnsurer = b != BackendNone
	if cfg.Overlay != nil && !cfg.Overlay.Enabled {
		r.out.OverlayDisabled = true
		r.out.SNATToUpstreamDNS = cfg.SnatToUpstreamDNS == nil || cfg.SnatToUpstreamDNS.Enabled
	}
}

func (r *resolver) overlayDesc() string {
	o := r.cfg.Overlay
	s := fmt.Sprintf("%s=%t", r.path.Child("overlay", "enabled"), o.Enabled)
	if o.CreatePodRoutes != nil {
		s += fmt.Sprintf(" with %s=%t", r.path.Child("overlay", "createPodRoutes"), *o.CreatePodRoutes)
	}
	if r.cfg.VXLAN != nil && r.cfg.VXLAN.Enabled && o.Enabled {
		s += fmt.Sprintf(" with %s=true", r.path.Child("vxlan", "enabled"))
	}
	return s
}

// pools decides the default pools' encapsulation and mode, env and IPPool objects alike.
func (r *resolver) pools() {
	cfg := r.cfg
	vxlanOn := cfg.VXLAN != nil && cfg.VXLAN.Enabled
	if r.out.IPv4 {
		enc := EncapsulationIPIP
		if vxlanOn {
			enc = EncapsulationVXLAN
		}
		if cfg.IPv4 != nil && cfg.IPv4.Pool != nil {
			explicit := poolEncapsulation(*cfg.IPv4.Pool)
			if vxlanOn && explicit != EncapsulationVXLAN {
				r.errs = append(r.errs, field.Invalid(r.path.Child("ipv4", "pool"), string(*cfg.IPv4.Pool),
					fmt.Sprintf("contradicts %s=true, which needs pool \"vxlan\"; remove one of the two fields", r.path.Child("vxlan", "enabled"))))
			}
			enc = explicit
		}
		// Derived mode: encapsulate unless the overlay is off or nothing routes (backend none).
		mode := "Always"
		if r.out.Backend == BackendNone || (cfg.Overlay != nil && !cfg.Overlay.Enabled) {
			mode = "Never"
		}
		modePath, explicit := r.ipv4Mode()
		if explicit != "" {
			if cfg.Overlay != nil && (explicit == "Never") == cfg.Overlay.Enabled {
				r.errs = append(r.errs, field.Invalid(modePath, explicit,
					fmt.Sprintf("contradicts %s=%t; remove one of the two fields", r.path.Child("overlay", "enabled"), cfg.Overlay.Enabled)))
			}
			mode = explicit
		}
		r.out.IPv4Pool = PoolOptions{Encapsulation: enc, Mode: mode, NATOutgoing: true}
		r.out.IPv4PoolObject = cfg.Overlay != nil
		r.out.NoSNATNodeCIDRPool = cfg.Overlay != nil && !cfg.Overlay.Enabled && r.out.NodeCIDRv4 != ""
		encapsulating := mode != "Never"
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
		mode := "Never"
		if cfg.IPv6 != nil && cfg.IPv6.Pool != nil && *cfg.IPv6.Pool != calicov1alpha1.PoolVXLAN {
			r.errs = append(r.errs, field.NotSupported(r.path.Child("ipv6", "pool"), string(*cfg.IPv6.Pool), []string{"vxlan"}))
		}
		if cfg.IPv6 != nil && cfg.IPv6.Mode != nil {
			mode = string(*cfg.IPv6.Mode)
			if mode != "Always" && mode != "Never" {
				r.errs = append(r.errs, field.NotSupported(r.path.Child("ipv6", "mode"), mode, []string{"Always", "Never"}))
			}
		}
		nat := cfg.WireguardEncryption
		if cfg.IPv6 != nil && cfg.IPv6.SourceNATEnabled != nil {
			nat = *cfg.IPv6.SourceNATEnabled
		}
		r.out.IPv6Pool = PoolOptions{Encapsulation: EncapsulationVXLAN, Mode: mode, NATOutgoing: nat}
		r.out.IPv6PoolObject = true
	}
}

// ipv4Mode returns the explicit IPv4 pool mode (ipv4.mode, else the deprecated ipip) and its path.
// "Off" is the reference API's old spelling of Never.
func (r *resolver) ipv4Mode() (*field.Path, string) {
	var p *field.Path
	var v string
	newSet := r.cfg.IPv4 != nil && r.cfg.IPv4.Mode != nil
	switch {
	case newSet:
		p, v = r.path.Child("ipv4", "mode"), string(*r.cfg.IPv4.Mode)
		if r.cfg.IPIP != nil && normMode(string(*r.cfg.IPIP)) != normMode(v) {
			r.errs = append(r.errs, field.Invalid(r.path.Child("ipip"), string(*r.cfg.IPIP),
				fmt.Sprintf("contradicts %s=%q; remove the deprecated field", p, v)))
		}
	case r.cfg.IPIP != nil:
		p, v = r.path.Child("ipip"), string(*r.cfg.IPIP)
	default:
		return nil, ""
	}
	switch v {
	case "Always", "Never", "CrossSubnet", "Off":
	default:
		r.errs = append(r.errs, field.NotSupported(p, v, []string{"Always", "Never", "CrossSubnet", "Off"}))
	}
	return p, normMode(v)
}

func normMode(m string) string {
	if m == "Off" {
		return "Never"
	}
	return m
}

func poolEncapsulation(p calicov1alpha1.Pool) Encapsulation {
	if p == calicov1alpha1.PoolVXLAN {
		return EncapsulationVXLAN
	}
	return EncapsulationIPIP
}

// autodetection: an explicit method wins; otherwise cidr=<node networks of the family>.
func (r *resolver) autodetection() {
	c := r.in.Cluster
	var v4, v6 []string
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
			v4 = append(v4, p.Masked().String())
		} else {
			v6 = append(v6, p.Masked().String())
		}
	}
	if r.out.IPv4 {
		switch {
		case r.cfg.IPv4 != nil && r.cfg.IPv4.AutoDetectionMethod != nil && *r.cfg.IPv4.AutoDetectionMethod != "":
			r.out.IPv4AutoDetectionMethod = *r.cfg.IPv4.AutoDetectionMethod
			if d := r.cfg.IPAutoDetectionMethod; d != nil && *d != r.out.IPv4AutoDetectionMethod {
				r.errs = append(r.errs, field.Invalid(r.path.Child("ipAutodetectionMethod"), *d,
					fmt.Sprintf("contradicts %s=%q; remove the deprecated field", r.path.Child("ipv4", "autoDetectionMethod"), r.out.IPv4AutoDetectionMethod)))
			}
		case r.cfg.IPAutoDetectionMethod != nil && *r.cfg.IPAutoDetectionMethod != "":
			r.out.IPv4AutoDetectionMethod = *r.cfg.IPAutoDetectionMethod
		case len(v4) > 0:
			r.out.IPv4AutoDetectionMethod = "cidr=" + strings.Join(v4, ",")
		}
	}
	if r.out.IPv6 {
		switch {
		case r.cfg.IPv6 != nil && r.cfg.IPv6.AutoDetectionMethod != nil && *r.cfg.IPv6.AutoDetectionMethod != "":
			r.out.IPv6AutoDetectionMethod = *r.cfg.IPv6.AutoDetectionMethod
		case len(v6) > 0:
			r.out.IPv6AutoDetectionMethod = "cidr=" + strings.Join(v6, ",")
		}
	}
}

// ipam: host-local by default, calico-ipam by default with IPv4 VXLAN (its routes come from
// Calico's IPAM blocks); an explicit type that cannot work is an error rather than overwritten.
func (r *resolver) ipam() {
	cfg := r.cfg
	// Judged on the requested families: a shoot migrating to dual-stack keeps the IPAM it will
	// have afterwards (calico-ipam is IPv4 single-stack only).
	vxlanOn := cfg.VXLAN != nil && cfg.VXLAN.Enabled && r.requested4 && !r.requested6
	typ := "host-local"
	if vxlanOn {
		typ = "calico-ipam"
	}
	typePath := r.path.Child("ipam", "type")
	if cfg.IPAM != nil && cfg.IPAM.Type != "" {
		typ = string(cfg.IPAM.Type)
		switch typ {
		case "host-local", "calico-ipam":
		default:
			r.errs = append(r.errs, field.NotSupported(typePath, typ, []string{"calico-ipam", "host-local"}))
		}
		if vxlanOn && typ == "host-local" {
			r.errs = append(r.errs, field.Invalid(typePath, typ,
				fmt.Sprintf("contradicts %s=true: VXLAN routing needs calico-ipam; remove one of the two fields", r.path.Child("vxlan", "enabled"))))
		}
	}
	if typ == "calico-ipam" && r.out.IPv6 {
		r.errs = append(r.errs, field.Invalid(typePath, typ, `IPAM type "calico-ipam" is only supported for IPv4 single-stack shoots, use "host-local" instead`))
	}
	r.out.IPAM.Type = typ
	r.out.IPAM.UsePodCIDR = typ == "host-local"
	dual := r.out.IPv4 && r.out.IPv6
	if dual {
		r.out.IPAM.RangeIPv4, r.out.IPAM.RangeIPv6 = "usePodCidr", "usePodCidrIPv6"
	} else {
		r.out.IPAM.Subnet = "usePodCidr"
		if r.out.IPv6 {
			r.out.IPAM.Subnet = "usePodCidrIPv6"
		}
	}
	if cfg.IPAM == nil || cfg.IPAM.CIDR == nil {
		return
	}
	// ipam.cidr is the subnet of its family (usePodCidr is IPv4's, usePodCidrIPv6 IPv6's); it is
	// written as given, Calico's CNI matches the keywords case-insensitively.
	v := *cfg.IPAM.CIDR
	cidrPath := r.path.Child("ipam", "cidr")
	keyword := strings.EqualFold(v, "usePodCidr")
	v6 := strings.EqualFold(v, "usePodCidrIPv6")
	if !v6 && !keyword {
		p, err := netip.ParsePrefix(v)
		if err != nil {
			r.errs = append(r.errs, field.Invalid(cidrPath, v, `must be "usePodCidr", "usePodCidrIPv6" or a CIDR`))
			return
		}
		v6 = p.Addr().Is6()
	}
	switch {
	case (v6 && !r.out.IPv6 && r.requested6) || (!v6 && !keyword && !r.out.IPv4 && r.requested4):
		// The family is requested but trimmed away by the dual-stack migration: its subnet applies
		// once the nodes are migrated.
	case !dual && keyword:
		// usePodCidr is the node's first pod CIDR: the only one on a single-stack node of either family.
		r.out.IPAM.Subnet = v
	case v6 && !r.out.IPv6, !v6 && !r.out.IPv4:
		r.errs = append(r.errs, field.Invalid(cidrPath, v, "is of an IP family the shoot does not use"))
	case dual && v6:
		r.out.IPAM.RangeIPv6 = v
	case dual:
		r.out.IPAM.RangeIPv4 = v
	default:
		r.out.IPAM.Subnet = v
	}
}

func (r *resolver) dataplane() {
	cfg := r.cfg
	c := r.in.Cluster
	r.out.Typha = cfg.Typha == nil || cfg.Typha.Enabled
	r.out.VethMTU = "0"
	if cfg.VethMTU != nil {
		r.out.VethMTU = *cfg.VethMTU
		var n int
		if _, err := fmt.Sscanf(*cfg.VethMTU, "%d", &n); err != nil || fmt.Sprint(n) != *cfg.VethMTU || n < 0 {
			r.errs = append(r.errs, field.Invalid(r.path.Child("vethMTU"), *cfg.VethMTU, `must be a non-negative integer, "0" means auto-detect`))
		}
	}
	r.out.EBPF = cfg.EbpfDataplane != nil && cfg.EbpfDataplane.Enabled
	r.out.KubeProxyEnabled = c.KubeProxyEnabled == nil || *c.KubeProxyEnabled
	if !r.out.KubeProxyEnabled && !r.out.EBPF {
		r.errs = append(r.errs, field.Forbidden(c.Paths.KubeProxyEnabled, "Disabling kube-proxy is forbidden in conjunction with calico without running in ebpf dataplane"))
	}
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
	if cfg.ServiceLoopPrevention != nil {
		v := string(*cfg.ServiceLoopPrevention)
		switch v {
		case "Disabled", "Drop", "Reject":
		default:
			r.errs = append(r.errs, field.NotSupported(r.path.Child("serviceLoopPrevention"), v, []string{"Disabled", "Drop", "Reject"}))
		}
		r.out.ServiceLoopPrevention = v
	}
}

func (r *resolver) autoscaling() {
	cfg := r.cfg
	c := r.in.Cluster
	a := &r.out.AutoScaling
	a.Mode = AutoScalingClusterProportional
	var res *calicov1alpha1.StaticResources
	if cfg.AutoScaling != nil {
		a.Mode = AutoScalingMode(cfg.AutoScaling.Mode)
		res = cfg.AutoScaling.Resources
		switch a.Mode {
		case AutoScalingClusterProportional, AutoScalingVPA, AutoScalingStatic:
		default:
			r.errs = append(r.errs, field.NotSupported(r.path.Child("autoScaling", "mode"), string(a.Mode), []string{"cluster-proportional", "static", "vpa"}))
		}
	}
	resPath := r.path.Child("autoScaling", "resources")
	var node, typha Resources
	if res != nil {
		node = r.resources(res.Node, resPath.Child("node"))
		typha = r.resources(res.Typha, resPath.Child("typha"))
	}
	a.NodeRequests = withDefaults(node, defaultNodeCPU, defaultNodeMemory)
	a.TyphaRequests = withDefaults(typha, defaultTyphaCPU, defaultTyphaMemory)
	a.TyphaCPA = r.out.Typha
	switch a.Mode {
	case AutoScalingVPA:
		if !c.VPAEnabled {
			r.errs = append(r.errs, field.Invalid(r.path.Child("autoScaling", "mode"), "vpa",
				fmt.Sprintf("needs the shoot's vertical pod autoscaler: set %s=true or choose mode cluster-proportional or static", c.Paths.VPAEnabled)))
		}
		a.NodeVPA = true
		a.TyphaVPA = r.out.Typha
		a.NodeMinAllowed, a.TyphaMinAllowed = node, typha
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

func (r *resolver) resources(rl *corev1.ResourceList, p *field.Path) Resources {
	var out Resources
	if rl == nil {
		return out
	}
	for _, name := range sortedKeys(*rl) {
		q := (*rl)[name]
		switch name {
		case corev1.ResourceCPU:
			out.CPU = q
		case corev1.ResourceMemory:
			out.Memory = q
		default:
			r.errs = append(r.errs, field.NotSupported(p.Key(string(name)), string(name), []string{"cpu", "memory"}))
			continue
		}
		if q.Sign() <= 0 {
			r.errs = append(r.errs, field.Invalid(p.Key(string(name)), q.String(), "must be greater than zero"))
		}
	}
	return out
}

func sortedKeys(rl corev1.ResourceList) []corev1.ResourceName {
	keys := make([]corev1.ResourceName, 0, len(rl))
	for k := range rl {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
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

// globalNetworkSet: providerConfig ?? operator default ?? off. Enabled on a running shoot means
// the addresses must be known (an empty set would match nothing and block what policies allow).
func (r *resolver) globalNetworkSet() {
	enabled := false
	if d := r.in.Operator.KubeAPIServerGlobalNetworkSet; d != nil {
		enabled = *d
	}
	if g := r.cfg.KubeAPIServerGlobalNetworkSet; g != nil && g.Enabled != nil {
		enabled = *g.Enabled
	}
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
