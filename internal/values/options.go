package values

import (
	"net/netip"

	"k8s.io/apimachinery/pkg/api/resource"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/rules"
)

// Encapsulation is an IP pool's encapsulation type.
type Encapsulation string

// Encapsulations.
const (
	EncapsulationIPIP  Encapsulation = "IPIP"
	EncapsulationVXLAN Encapsulation = "VXLAN"
)

// AutoScalingMode is the resolved autoscaling mode.
type AutoScalingMode string

// Autoscaling modes.
const (
	AutoScalingClusterProportional AutoScalingMode = "cluster-proportional"
	AutoScalingVPA                 AutoScalingMode = "vpa"
	AutoScalingStatic              AutoScalingMode = "static"
)

// Options is everything render needs, fully resolved. Render decides nothing: every field is a
// final value and every switch says whether an object or a setting is produced.
type Options struct {
	// Images are the image references to deploy.
	Images imagevector.Images
	// Calico is the release each Calico component runs, never zero: render selects every difference
	// between Calico releases (CRDs, RBAC, env) by it.
	Calico calicoversion.Deployment

	// IPv4 and IPv6 say which families are on (after the dual-stack migration trim).
	IPv4, IPv6 bool
	// NoDefaultPools: calico-node creates no pool at start-up (values.Settings.NoDefaultPools).
	NoDefaultPools bool
	// PodCIDRv4 and PodCIDRv6 are the pod networks of the enabled families.
	PodCIDRv4, PodCIDRv6 string
	// NodeCIDRv4 is the IPv4 node network (shoot.spec.networking.nodes); empty when unknown.
	NodeCIDRv4 string

	// Backend is calico_backend in the calico-config ConfigMap.
	Backend calicov1alpha1.Backend
	// KubeControllers deploys calico-kube-controllers (backend is not none).
	KubeControllers bool
	// NetworkUnavailableEnsurer adds the network-unavailable-condition-ensurer sidecar (backend is not none).
	NetworkUnavailableEnsurer bool

	// IPAM is the CNI IPAM configuration.
	IPAM IPAM

	// IPv4Pool is the IPv4 default pool (env and, when Pools.IPv4 is set, the IPPool object).
	IPv4Pool PoolOptions
	// IPv6Pool is the IPv6 default pool.
	IPv6Pool PoolOptions
	// IPv4AutoDetectionMethod is IP_AUTODETECTION_METHOD; empty means not rendered.
	IPv4AutoDetectionMethod string
	// IPv6AutoDetectionMethod is IP6_AUTODETECTION_METHOD; empty means not rendered.
	IPv6AutoDetectionMethod string

	// IPv4PoolObject renders the default-ipv4-ippool IPPool object (overlay set explicitly).
	IPv4PoolObject bool
	// NoSNATNodeCIDRPool renders the disabled no-snat-for-node-cidr IPPool (overlay off, node CIDR known).
	NoSNATNodeCIDRPool bool
	// IPv6PoolObject renders default-ipv6-ippool (IPv6 on).
	IPv6PoolObject bool

	// FelixIPIPEnabled is FELIX_IPINIPENABLED; nil means the variable is not rendered (VXLAN in use).
	FelixIPIPEnabled *bool
	// FelixVXLANEnabled renders FELIX_VXLANENABLED=true.
	FelixVXLANEnabled bool

	// OverlayDisabled is true when the user switched the overlay off: the cleanup-routes init container.
	OverlayDisabled bool
	// SNATToUpstreamDNS adds the add-snat-rule-to-upstream-dns sidecar and FELIX_CHAININSERTMODE=Append.
	SNATToUpstreamDNS bool

	// Typha deploys calico-typha.
	Typha bool
	// VethMTU is veth_mtu in calico-config ("0" = auto-detect).
	VethMTU string
	// EBPF switches Felix to the eBPF dataplane.
	EBPF bool
	// BPFDataIfacePattern is FELIX_BPFDATAIFACEPATTERN, the host interfaces Felix attaches its eBPF
	// programs to; empty leaves Felix's default.
	BPFDataIfacePattern string
	// KubeProxyEnabled is whether the shoot runs kube-proxy.
	KubeProxyEnabled bool
	// NFTables renders FELIX_NFTABLESMODE=Enabled (kube-proxy in nftables mode).
	NFTables bool
	// NonPrivileged runs calico-node without privileges (feature gate NonPrivilegedCalicoNode, not eBPF).
	NonPrivileged bool
	// WireGuard enables WireGuard for both families.
	WireGuard bool
	// BirdExporter adds the bird-exporter sidecar (when not non-privileged) and its monitoring Service.
	BirdExporter bool
	// Multus deploys multus; MultusInstallCNIPlugins adds its install-cni-plugins init container.
	Multus, MultusInstallCNIPlugins bool
	// ServiceLoopPrevention is FELIX_SERVICELOOPPREVENTION; empty means not rendered.
	ServiceLoopPrevention string

	// AutoScaling is the resolved autoscaling set-up.
	AutoScaling AutoScaling

	// KubeAPIServerNets are the sorted, de-duplicated /32 and /128 networks of the
	// gardener-kube-apiserver GlobalNetworkSet; nil means the set is not rendered.
	KubeAPIServerNets []netip.Prefix

	// PolicyValidation is the shoot's opt-in admission check of Calico policies
	// (providerConfig.policyValidation); nil deploys none.
	PolicyValidation *calicov1alpha1.PolicyValidation

	// SeedNamespace is the shoot's control-plane namespace in the seed (seed-side monitoring objects).
	SeedNamespace string

	// ReferenceTemplates renders the pod templates of calico-node and typha as the reference
	// extension did (Compatibility Reference): the same containers in the same order with the same
	// commands, env, probes, resources and volumes, except for the fixes a shoot needs
	// (render.ReferenceTemplateDifferences). Native mode renders calico-pilot's own.
	ReferenceTemplates bool
	// TakenOver is what is rendered unchanged from the reference's deployed calico-node pod template
	// (with ReferenceTemplates only; nil when nothing was taken over).
	TakenOver *calicov1alpha1.TakenOverTemplate

	// Layout is where the objects go and what they are called (Settings.Layout; zero: kube-system).
	Layout layout.Layout
	// TyphaTLS is the mutual TLS of Felix and Typha (Settings.TyphaTLS, with Typha only); nil: none.
	TyphaTLS *layout.TyphaTLS
	// Components are the optional components to render (Settings.Components); zero: none.
	Components Components

	// Findings are the fields deployed other than written: contradictions an existing config may
	// keep (Inputs.Ratchet) and fields ignored for compatibility with the reference
	// (Inputs.Compatibility Reference). Render does not read them; they go to the Network's
	// condition and to validate's and swap-check's output.
	Findings []rules.Finding
}

// OverlayEnabled is the one answer to "is the overlay on?": a default pool of an enabled family
// encapsulates (mode Always or CrossSubnet, IPIP or VXLAN). The provider status, the admission
// webhook's transition rules and the overlay switch all use it; for an IPv6-only shoot the IPv6
// pool's VXLAN mode decides, although Felix's IPIP/VXLAN switches (IPv4 settings) are off there.
func (o *Options) OverlayEnabled() bool {
	return (o.IPv4 && calicov1alpha1.PoolMode(o.IPv4Pool.Mode).Encapsulates()) || (o.IPv6 && calicov1alpha1.PoolMode(o.IPv6Pool.Mode).Encapsulates())
}

// IPAM is the CNI IPAM configuration.
type IPAM struct {
	// Type is host-local or calico-ipam.
	Type string
	// Subnet is ipam.subnet for single-stack shoots; empty on dual-stack.
	Subnet string
	// RangeIPv4 and RangeIPv6 are the subnets of the dual-stack ranges (IPv6 first); empty on single-stack.
	RangeIPv4, RangeIPv6 string
	// UsePodCIDR renders USE_POD_CIDR=true (host-local).
	UsePodCIDR bool
}

// PoolOptions is a default pool's encapsulation as calico-node's env and the IPPool object carry it.
type PoolOptions struct {
	// Encapsulation is IPIP or VXLAN: it names the env var CALICO_IPV<n>POOL_<encapsulation>.
	Encapsulation Encapsulation
	// Mode is Always, Never or CrossSubnet.
	Mode string
	// NATOutgoing is the pool's natOutgoing.
	NATOutgoing bool
}

// AutoScaling is how calico-node and typha are sized.
type AutoScaling struct {
	// Mode is the resolved mode.
	Mode AutoScalingMode
	// NodeCPVA and TyphaCPVA deploy the cluster-proportional vertical autoscalers.
	NodeCPVA, TyphaCPVA bool
	// TyphaCPA deploys the cluster-proportional (horizontal) autoscaler of typha.
	TyphaCPA bool
	// NodeVPA, TyphaVPA and KubeControllersVPA deploy VerticalPodAutoscalers.
	NodeVPA, TyphaVPA, KubeControllersVPA bool
	// PreserveResources annotates calico-node and typha with resources.gardener.cloud/preserve-resources.
	PreserveResources bool
	// NodeRequests and TyphaRequests are the containers' resource requests.
	NodeRequests, TyphaRequests Resources
	// NodeMinAllowed and TyphaMinAllowed are the VPA minAllowed values; zero quantities are left out.
	NodeMinAllowed, TyphaMinAllowed Resources
}

// Resources is a cpu/memory pair; a zero Quantity means unset.
type Resources struct {
	CPU, Memory resource.Quantity
}
