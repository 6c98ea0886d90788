package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true

// NetworkConfig is the Calico provider configuration of a shoot (Shoot.spec.networking.providerConfig,
// Network.spec.providerConfig). Every field is optional; unset means "derive the default".
type NetworkConfig struct {
	metav1.TypeMeta `json:",inline"`

	// Backend is the Calico networking backend.
	// +optional
	Backend *Backend `json:"backend,omitempty"`
	// IPAM configures pod IP address management.
	// +optional
	IPAM *IPAM `json:"ipam,omitempty"`
	// IPv4 configures the IPv4 pool, its encapsulation and node address autodetection.
	// +optional
	IPv4 *IPv4 `json:"ipv4,omitempty"`
	// IPv6 configures the IPv6 pool, its encapsulation and node address autodetection.
	// +optional
	IPv6 *IPv6 `json:"ipv6,omitempty"`
	// Typha switches calico-typha on or off.
	// +optional
	Typha *Typha `json:"typha,omitempty"`
	// VethMTU is the MTU of the pod veth interfaces as a decimal string; "0" means auto-detect.
	// +optional
	VethMTU *string `json:"vethMTU,omitempty"`
	// EbpfDataplane switches Felix to the eBPF dataplane.
	// +optional
	EbpfDataplane *EbpfDataplane `json:"ebpfDataplane,omitempty"`
	// Overlay switches the pod overlay network (IPIP or VXLAN encapsulation) on or off.
	// +optional
	Overlay *Overlay `json:"overlay,omitempty"`
	// SnatToUpstreamDNS controls source NAT of traffic to the upstream DNS server when the overlay is off.
	// +optional
	SnatToUpstreamDNS *SnatToUpstreamDNS `json:"snatToUpstreamDNS,omitempty"`
	// AutoScaling selects how calico-node and calico-typha are scaled.
	// +optional
	AutoScaling *AutoScaling `json:"autoScaling,omitempty"`
	// VXLAN selects VXLAN instead of IPIP encapsulation for IPv4.
	// +optional
	VXLAN *VXLAN `json:"vxlan,omitempty"`
	// IPIP is the IPv4 pool mode.
	//
	// Deprecated: use IPv4.Mode. Honoured when IPv4.Mode is unset.
	// +optional
	IPIP *PoolMode `json:"ipip,omitempty"`
	// IPAutoDetectionMethod is the IPv4 node address autodetection method (JSON key with a lower-case "d",
	// as in the reference API).
	//
	// Deprecated: use IPv4.AutoDetectionMethod. Honoured when IPv4.AutoDetectionMethod is unset.
	// +optional
	IPAutoDetectionMethod *string `json:"ipAutodetectionMethod,omitempty"`
	// WireguardEncryption enables WireGuard encryption of pod traffic between nodes.
	// +optional
	WireguardEncryption bool `json:"wireguardEncryption,omitempty"`
	// BirdExporter adds the bird metrics exporter sidecar to calico-node.
	// +optional
	BirdExporter *BirdExporter `json:"birdExporter,omitempty"`
	// Multus deploys the multus meta CNI plugin next to Calico.
	// +optional
	Multus *Multus `json:"multus,omitempty"`
	// ServiceLoopPrevention sets Felix's service loop prevention behaviour.
	// +optional
	ServiceLoopPrevention *ServiceLoopPrevention `json:"serviceLoopPrevention,omitempty"`
	// KubeAPIServerGlobalNetworkSet overrides the operator default for the gardener-kube-apiserver
	// GlobalNetworkSet in the shoot.
	// +optional
	KubeAPIServerGlobalNetworkSet *KubeAPIServerGlobalNetworkSet `json:"kubeAPIServerGlobalNetworkSet,omitempty"`
	// PolicyValidation makes the shoot's API server check Calico policies of the
	// crd.projectcalico.org/v1 API at admission (that API does no defaulting and no selector
	// validation). Unset: no check is deployed, as before.
	// +optional
	PolicyValidation *PolicyValidation `json:"policyValidation,omitempty"`
	// CalicoVersion pins the shoot to a Calico release line ("v3.31", "v3.32"; the exact release,
	// e.g. "v3.32.1", is accepted too). Unset: the line the operator chooses (ControllerConfiguration
	// calico.defaultVersion and calico.rollout). A pin wins over every rollout (docs/upgrades.md).
	// +optional
	CalicoVersion *string `json:"calicoVersion,omitempty"`
}

// Backend is a Calico networking backend.
// +kubebuilder:validation:Enum=bird;none;vxlan
type Backend string

const (
	// BackendBird distributes routes with BGP (bird).
	BackendBird Backend = "bird"
	// BackendNone distributes no routes; the infrastructure routes pod traffic.
	BackendNone Backend = "none"
	// BackendVXLAN uses VXLAN encapsulation without BGP.
	BackendVXLAN Backend = "vxlan"
)

// Backends returns the supported backends (the Enum marker above), in the order errors list them.
func Backends() []Backend { return []Backend{BackendBird, BackendNone, BackendVXLAN} }

// IPAMType is a CNI IPAM plugin.
// +kubebuilder:validation:Enum=host-local;calico-ipam
type IPAMType string

const (
	// IPAMHostLocal allocates pod IPs from the node's pod CIDR.
	IPAMHostLocal IPAMType = "host-local"
	// IPAMCalico allocates pod IPs in blocks managed by Calico.
	IPAMCalico IPAMType = "calico-ipam"
)

// IPAM configures pod IP address management.
type IPAM struct {
	// Type is the IPAM plugin. Empty means the default (host-local). The key is always written, as
	// in the reference API.
	Type IPAMType `json:"type"`
	// CIDR is the host-local subnet: "usePodCidr" (case-insensitive) or a CIDR.
	// +optional
	CIDR *string `json:"cidr,omitempty"`
}

// Pool is the encapsulation an IP pool is created with.
// +kubebuilder:validation:Enum=ipip;vxlan
type Pool string

const (
	// PoolIPIP is IP-in-IP encapsulation.
	PoolIPIP Pool = "ipip"
	// PoolVXLAN is VXLAN encapsulation.
	PoolVXLAN Pool = "vxlan"
)

// PoolMode is when encapsulation is used.
// +kubebuilder:validation:Enum=Always;Never;CrossSubnet;Off
type PoolMode string

const (
	// PoolModeAlways always encapsulates.
	PoolModeAlways PoolMode = "Always"
	// PoolModeNever never encapsulates.
	PoolModeNever PoolMode = "Never"
	// PoolModeCrossSubnet encapsulates only across subnet boundaries.
	PoolModeCrossSubnet PoolMode = "CrossSubnet"
	// PoolModeOff is accepted by the reference API; for IPv4 it behaves like Never.
	PoolModeOff PoolMode = "Off"
)

// Encapsulates is the one answer to "does a pool of this mode encapsulate any traffic?": Always
// and CrossSubnet do; Never and Off do not (nor does anything unsupported). The rules, the resolved
// options' OverlayEnabled and the overlay read back from a deployed manifest all ask it.
func (m PoolMode) Encapsulates() bool { return m == PoolModeAlways || m == PoolModeCrossSubnet }

// IPv4 configures the IPv4 pool.
type IPv4 struct {
	// Pool is the encapsulation of the default IPv4 pool.
	// +optional
	Pool *Pool `json:"pool,omitempty"`
	// Mode is when the default IPv4 pool encapsulates.
	// +optional
	Mode *PoolMode `json:"mode,omitempty"`
	// AutoDetectionMethod is calico-node's IPv4 address autodetection method (IP_AUTODETECTION_METHOD).
	// +optional
	AutoDetectionMethod *string `json:"autoDetectionMethod,omitempty"`
}

// IPv6 configures the IPv6 pool.
type IPv6 struct {
	// Pool is the encapsulation of the default IPv6 pool (only vxlan is supported).
	// +optional
	Pool *Pool `json:"pool,omitempty"`
	// Mode is when the default IPv6 pool encapsulates (Always, Never or CrossSubnet).
	// +optional
	Mode *PoolMode `json:"mode,omitempty"`
	// AutoDetectionMethod is calico-node's IPv6 address autodetection method (IP6_AUTODETECTION_METHOD).
	// +optional
	AutoDetectionMethod *string `json:"autoDetectionMethod,omitempty"`
	// SourceNATEnabled enables outgoing NAT for the IPv6 pool.
	// +optional
	SourceNATEnabled *bool `json:"sourceNATEnabled,omitempty"`
}

// Typha switches calico-typha on or off.
type Typha struct {
	// Enabled deploys calico-typha.
	Enabled bool `json:"enabled"`
}

// EbpfDataplane switches the eBPF dataplane on or off.
type EbpfDataplane struct {
	// Enabled runs Felix in eBPF mode.
	Enabled bool `json:"enabled"`
}

// Overlay configures the pod overlay network.
type Overlay struct {
	// Enabled encapsulates pod traffic between nodes.
	Enabled bool `json:"enabled"`
	// CreatePodRoutes keeps bird distributing pod routes when the overlay is off.
	// +optional
	CreatePodRoutes *bool `json:"createPodRoutes,omitempty"`
}

// SnatToUpstreamDNS configures source NAT towards the upstream DNS server.
type SnatToUpstreamDNS struct {
	// Enabled source-NATs pod traffic to the upstream DNS server (only when the overlay is off).
	Enabled bool `json:"enabled"`
}

// AutoScalingMode is how calico-node and calico-typha are scaled.
// +kubebuilder:validation:Enum=cluster-proportional;vpa;static
type AutoScalingMode string

const (
	// AutoScalingModeClusterProportional scales with the cluster-proportional (vertical) autoscaler.
	AutoScalingModeClusterProportional AutoScalingMode = "cluster-proportional"
	// AutoScalingModeVPA scales with the shoot's VerticalPodAutoscaler.
	AutoScalingModeVPA AutoScalingMode = "vpa"
	// AutoScalingModeStatic uses fixed resource requests.
	AutoScalingModeStatic AutoScalingMode = "static"
)

// AutoScaling selects the autoscaling mode and its resources.
type AutoScaling struct {
	// Mode is the autoscaling mode (required inside the block).
	Mode AutoScalingMode `json:"mode"`
	// Resources are the static requests (static mode) or minimum allowed requests (vpa mode).
	// +optional
	Resources *StaticResources `json:"resources,omitempty"`
}

// StaticResources are resource amounts for calico-node and calico-typha; only cpu and memory are allowed.
type StaticResources struct {
	// Node is for calico-node.
	// +optional
	Node *corev1.ResourceList `json:"node,omitempty"`
	// Typha is for calico-typha.
	// +optional
	Typha *corev1.ResourceList `json:"typha,omitempty"`
}

// VXLAN switches VXLAN encapsulation on or off.
type VXLAN struct {
	// Enabled uses VXLAN instead of IPIP for the IPv4 overlay.
	Enabled bool `json:"enabled"`
}

// BirdExporter switches the bird metrics exporter on or off.
type BirdExporter struct {
	// Enabled adds the bird-exporter sidecar.
	Enabled bool `json:"enabled"`
}

// Multus configures the multus meta CNI plugin.
type Multus struct {
	// Enabled deploys multus.
	Enabled bool `json:"enabled"`
	// InstallCNIPlugins installs the containernetworking reference plugins on the nodes.
	// +optional
	InstallCNIPlugins *bool `json:"installCNIPlugins,omitempty"`
}

// ServiceLoopPrevention is Felix's service loop prevention behaviour.
// +kubebuilder:validation:Enum=Disabled;Drop;Reject
type ServiceLoopPrevention string

const (
	// ServiceLoopPreventionDisabled switches service loop prevention off.
	ServiceLoopPreventionDisabled ServiceLoopPrevention = "Disabled"
	// ServiceLoopPreventionDrop drops looping traffic.
	ServiceLoopPreventionDrop ServiceLoopPrevention = "Drop"
	// ServiceLoopPreventionReject rejects looping traffic.
	ServiceLoopPreventionReject ServiceLoopPrevention = "Reject"
)

// KubeAPIServerGlobalNetworkSet switches the gardener-kube-apiserver GlobalNetworkSet on or off.
type KubeAPIServerGlobalNetworkSet struct {
	// Enabled publishes the set; unset means the operator default applies.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`
}

// PolicyValidationMode is what the shoot's API server does with a Calico policy that fails a check.
// +kubebuilder:validation:Enum=Deny;Warn
type PolicyValidationMode string

const (
	// PolicyValidationModeDeny rejects the policy with a message naming the field.
	PolicyValidationModeDeny PolicyValidationMode = "Deny"
	// PolicyValidationModeWarn admits the policy and returns the message as a warning (kubectl prints it).
	PolicyValidationModeWarn PolicyValidationMode = "Warn"
)

// PolicyValidation configures the admission checks of Calico policies in the shoot: spec.selector,
// spec.types and spec.order written out, rules only of the directions types names, ports only with
// TCP, UDP or SCTP, ICMP fields only with ICMP or ICMPv6, and selectors of valid syntax.
type PolicyValidation struct {
	// Mode is Deny or Warn.
	Mode PolicyValidationMode `json:"mode"`
}
