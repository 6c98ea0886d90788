package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ServiceLoadBalancerAggregation says whether LoadBalancer IPs are advertised aggregated per pool
// (Enabled) or as individual /32 and /128 routes (Disabled).
// +kubebuilder:validation:Enum=Enabled;Disabled
type ServiceLoadBalancerAggregation string

// Aggregation settings.
const (
	ServiceLoadBalancerAggregationEnabled  ServiceLoadBalancerAggregation = "Enabled"
	ServiceLoadBalancerAggregationDisabled ServiceLoadBalancerAggregation = "Disabled"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=bgpconfigurations,singular=bgpconfiguration

// BGPConfiguration is the BGP configuration of the cluster ("default") or of one node ("node.<name>").
type BGPConfiguration struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the BGP configuration.
	// +optional
	Spec BGPConfigurationSpec `json:"spec,omitempty"`
}

// BGPConfigurationSpec is the content of a BGPConfiguration.
type BGPConfigurationSpec struct {
	// LogSeverityScreen is the BIRD log level.
	// +optional
	LogSeverityScreen string `json:"logSeverityScreen,omitempty"`
	// NodeToNodeMeshEnabled switches the full node-to-node BGP mesh on or off.
	// +optional
	NodeToNodeMeshEnabled *bool `json:"nodeToNodeMeshEnabled,omitempty"`
	// ASNumber is the default AS number of the nodes.
	// +optional
	ASNumber *uint32 `json:"asNumber,omitempty"`
	// ServiceLoadBalancerIPs are LoadBalancer IP ranges to advertise.
	// +optional
	ServiceLoadBalancerIPs []ServiceLoadBalancerIPBlock `json:"serviceLoadBalancerIPs,omitempty"`
	// ServiceExternalIPs are external IP ranges to advertise.
	// +optional
	ServiceExternalIPs []ServiceExternalIPBlock `json:"serviceExternalIPs,omitempty"`
	// ServiceClusterIPs are cluster IP ranges to advertise.
	// +optional
	ServiceClusterIPs []ServiceClusterIPBlock `json:"serviceClusterIPs,omitempty"`
	// ListenPort is the port BIRD listens on.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +optional
	ListenPort uint16 `json:"listenPort,omitempty"`
	// Communities are named BGP community values.
	// +optional
	Communities []Community `json:"communities,omitempty"`
	// PrefixAdvertisements attach communities to advertised prefixes.
	// +optional
	PrefixAdvertisements []PrefixAdvertisement `json:"prefixAdvertisements,omitempty"`
	// NodeMeshPassword is the BGP password of the node-to-node mesh.
	// +optional
	NodeMeshPassword *BGPPassword `json:"nodeMeshPassword,omitempty"`
	// NodeMeshMaxRestartTime is the graceful restart time of the mesh sessions.
	// +optional
	NodeMeshMaxRestartTime *metav1.Duration `json:"nodeMeshMaxRestartTime,omitempty"`
	// BindMode is "None" or "NodeIP" (bind BIRD to the node IP only).
	// +optional
	BindMode *string `json:"bindMode,omitempty"`
	// IgnoredInterfaces are interface name patterns BIRD ignores.
	// +optional
	IgnoredInterfaces []string `json:"ignoredInterfaces,omitempty"`
	// LocalWorkloadPeeringIPV4 is the IPv4 address local workloads peer with.
	// +optional
	LocalWorkloadPeeringIPV4 string `json:"localWorkloadPeeringIPV4,omitempty"`
	// LocalWorkloadPeeringIPV6 is the IPv6 address local workloads peer with.
	// +optional
	LocalWorkloadPeeringIPV6 string `json:"localWorkloadPeeringIPV6,omitempty"`
	// ServiceLoadBalancerAggregation says whether LoadBalancer IPs are advertised aggregated.
	// +kubebuilder:default=Enabled
	// +optional
	ServiceLoadBalancerAggregation *ServiceLoadBalancerAggregation `json:"serviceLoadBalancerAggregation,omitempty"`
}

// ServiceLoadBalancerIPBlock is a LoadBalancer IP range.
type ServiceLoadBalancerIPBlock struct {
	// CIDR is the range.
	// +optional
	CIDR string `json:"cidr,omitempty"`
}

// ServiceExternalIPBlock is an external IP range.
type ServiceExternalIPBlock struct {
	// CIDR is the range.
	// +optional
	CIDR string `json:"cidr,omitempty"`
}

// ServiceClusterIPBlock is a cluster IP range.
type ServiceClusterIPBlock struct {
	// CIDR is the range.
	// +optional
	CIDR string `json:"cidr,omitempty"`
}

// Community is a named BGP community value.
type Community struct {
	// Name is how prefix advertisements refer to the community.
	// +optional
	Name string `json:"name,omitempty"`
	// Value is a standard (aa:nn) or large (aa:nn:mm) community.
	// +kubebuilder:validation:Pattern=`^(\d+):(\d+)$|^(\d+):(\d+):(\d+)$`
	// +optional
	Value string `json:"value,omitempty"`
}

// PrefixAdvertisement attaches communities to a prefix.
type PrefixAdvertisement struct {
	// CIDR is the prefix.
	// +optional
	CIDR string `json:"cidr,omitempty"`
	// Communities are community names or values.
	// +optional
	Communities []string `json:"communities,omitempty"`
}

// BGPPassword is where a BGP password comes from.
type BGPPassword struct {
	// SecretKeyRef reads the password from a Secret in calico-node's namespace.
	// +optional
	SecretKeyRef *corev1.SecretKeySelector `json:"secretKeyRef,omitempty"`
}

// +kubebuilder:object:root=true

// BGPConfigurationList is a list of BGPConfiguration.
type BGPConfigurationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the configurations.
	Items []BGPConfiguration `json:"items"`
}

// ReversePeering says whether the reverse BGPPeer is created automatically (Auto) or by hand (Manual).
// +kubebuilder:validation:Enum=Auto;Manual
type ReversePeering string

// Reverse peering settings.
const (
	ReversePeeringAuto   ReversePeering = "Auto"
	ReversePeeringManual ReversePeering = "Manual"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=bgppeers,singular=bgppeer

// BGPPeer is a BGP peering of some or all nodes with a router or with other nodes.
type BGPPeer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the peering.
	// +optional
	Spec BGPPeerSpec `json:"spec,omitempty"`
}

// BGPPeerSpec is the content of a BGPPeer.
type BGPPeerSpec struct {
	// Node restricts the peering to one node.
	// +optional
	Node string `json:"node,omitempty"`
	// NodeSelector restricts the peering to the selected nodes.
	// +optional
	NodeSelector string `json:"nodeSelector,omitempty"`
	// PeerIP is the peer's address, optionally with a port.
	// +optional
	PeerIP string `json:"peerIP,omitempty"`
	// PeerSelector peers with the selected nodes instead of PeerIP.
	// +optional
	PeerSelector string `json:"peerSelector,omitempty"`
	// ASNumber is the peer's AS number.
	// +optional
	ASNumber *uint32 `json:"asNumber,omitempty"`
	// LocalASNumber overrides the local AS number for this peering.
	// +optional
	LocalASNumber *uint32 `json:"localASNumber,omitempty"`
	// LocalWorkloadSelector peers with the selected local workloads.
	// +optional
	LocalWorkloadSelector string `json:"localWorkloadSelector,omitempty"`
	// Password is the session's BGP password.
	// +optional
	Password *BGPPassword `json:"password,omitempty"`
	// SourceAddress is "UseNodeIP" or "None".
	// +optional
	SourceAddress string `json:"sourceAddress,omitempty"`
	// MaxRestartTime is the graceful restart time.
	// +optional
	MaxRestartTime *metav1.Duration `json:"maxRestartTime,omitempty"`
	// NumAllowedLocalASNumbers is how often the local AS may appear in received AS paths.
	// +optional
	NumAllowedLocalASNumbers *int32 `json:"numAllowedLocalASNumbers,omitempty"`
	// TTLSecurity is the GTSM hop count.
	// +optional
	TTLSecurity *uint8 `json:"ttlSecurity,omitempty"`
	// KeepOriginalNextHop keeps the next hop of routes advertised to the peer.
	// +optional
	KeepOriginalNextHop bool `json:"keepOriginalNextHop,omitempty"`
	// NextHopMode is Auto, Self or Keep.
	// +optional
	NextHopMode *NextHopMode `json:"nextHopMode,omitempty"`
	// ReachableBy is a gateway address through which the peer is reached.
	// +optional
	ReachableBy string `json:"reachableBy,omitempty"`
	// Filters are the names of BGPFilters applied to the session.
	// +optional
	Filters []string `json:"filters,omitempty"`
	// ReversePeering says whether the reverse peering is created automatically.
	// +optional
	ReversePeering *ReversePeering `json:"reversePeering,omitempty"`
}

// +kubebuilder:object:root=true

// BGPPeerList is a list of BGPPeer.
type BGPPeerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the peerings.
	Items []BGPPeer `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=bgpfilters,singular=bgpfilter

// BGPFilter is a set of import/export rules for BGP routes.
type BGPFilter struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec holds the rules.
	// +optional
	Spec BGPFilterSpec `json:"spec,omitempty"`
}

// BGPFilterSpec holds the rules of a BGPFilter, per address family and direction.
type BGPFilterSpec struct {
	// ExportV4 filter IPv4 routes advertised to peers.
	// +optional
	ExportV4 []BGPFilterRuleV4 `json:"exportV4,omitempty"`
	// ImportV4 filter IPv4 routes received from peers.
	// +optional
	ImportV4 []BGPFilterRuleV4 `json:"importV4,omitempty"`
	// ExportV6 filter IPv6 routes advertised to peers.
	// +optional
	ExportV6 []BGPFilterRuleV6 `json:"exportV6,omitempty"`
	// ImportV6 filter IPv6 routes received from peers.
	// +optional
	ImportV6 []BGPFilterRuleV6 `json:"importV6,omitempty"`
}

// BGPFilterRuleV4 is one IPv4 BGP filter rule.
type BGPFilterRuleV4 struct {
	// CIDR is the prefix the rule compares with.
	// +optional
	CIDR string `json:"cidr,omitempty"`
	// PrefixLength bounds the matched prefix lengths.
	// +optional
	PrefixLength *BGPFilterPrefixLengthV4 `json:"prefixLength,omitempty"`
	// Source restricts the rule to routes of a source ("RemotePeers").
	// +optional
	Source string `json:"source,omitempty"`
	// Interface restricts the rule to routes of matching interfaces.
	// +optional
	Interface string `json:"interface,omitempty"`
	// MatchOperator compares the route with CIDR: Equal, NotEqual, In or NotIn.
	// +optional
	MatchOperator string `json:"matchOperator,omitempty"`
	// Action is Accept or Reject.
	Action string `json:"action"`
}

// BGPFilterRuleV6 is one IPv6 BGP filter rule.
type BGPFilterRuleV6 struct {
	// CIDR is the prefix the rule compares with.
	// +optional
	CIDR string `json:"cidr,omitempty"`
	// PrefixLength bounds the matched prefix lengths.
	// +optional
	PrefixLength *BGPFilterPrefixLengthV6 `json:"prefixLength,omitempty"`
	// Source restricts the rule to routes of a source ("RemotePeers").
	// +optional
	Source string `json:"source,omitempty"`
	// Interface restricts the rule to routes of matching interfaces.
	// +optional
	Interface string `json:"interface,omitempty"`
	// MatchOperator compares the route with CIDR: Equal, NotEqual, In or NotIn.
	// +optional
	MatchOperator string `json:"matchOperator,omitempty"`
	// Action is Accept or Reject.
	Action string `json:"action"`
}

// BGPFilterPrefixLengthV4 bounds IPv4 prefix lengths.
type BGPFilterPrefixLengthV4 struct {
	// Min is the shortest matched prefix length.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=32
	// +optional
	Min *int32 `json:"min,omitempty"`
	// Max is the longest matched prefix length.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=32
	// +optional
	Max *int32 `json:"max,omitempty"`
}

// BGPFilterPrefixLengthV6 bounds IPv6 prefix lengths.
type BGPFilterPrefixLengthV6 struct {
	// Min is the shortest matched prefix length.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=128
	// +optional
	Min *int32 `json:"min,omitempty"`
	// Max is the longest matched prefix length.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=128
	// +optional
	Max *int32 `json:"max,omitempty"`
}

// +kubebuilder:object:root=true

// BGPFilterList is a list of BGPFilter.
type BGPFilterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the filters.
	Items []BGPFilter `json:"items"`
}

// NextHopMode is how the next hop of routes advertised to a peer is chosen.
// +kubebuilder:validation:Enum=Auto;Self;Keep
type NextHopMode string

// NextHopMode values.
const (
	NextHopModeAuto NextHopMode = "Auto"
	NextHopModeSelf NextHopMode = "Self"
	NextHopModeKeep NextHopMode = "Keep"
)
