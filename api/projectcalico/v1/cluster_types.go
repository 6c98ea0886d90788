package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=clusterinformations,singular=clusterinformation

// ClusterInformation is Calico's record about the cluster ("default"): version, GUID, readiness.
type ClusterInformation struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the information.
	// +optional
	Spec ClusterInformationSpec `json:"spec,omitempty"`
}

// ClusterInformationSpec is the content of a ClusterInformation.
type ClusterInformationSpec struct {
	// ClusterGUID identifies the cluster.
	// +optional
	ClusterGUID string `json:"clusterGUID,omitempty"`
	// ClusterType lists the cluster's properties ("k8s,bgp,kubeadm", ...).
	// +optional
	ClusterType string `json:"clusterType,omitempty"`
	// CalicoVersion is the running Calico version.
	// +optional
	CalicoVersion string `json:"calicoVersion,omitempty"`
	// DatastoreReady false makes Calico components stop using the datastore.
	// +optional
	DatastoreReady *bool `json:"datastoreReady,omitempty"`
	// Variant is the Calico product variant.
	// +optional
	Variant string `json:"variant,omitempty"`
}

// +kubebuilder:object:root=true

// ClusterInformationList is a list of ClusterInformation.
type ClusterInformationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the records.
	Items []ClusterInformation `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=caliconodestatuses,singular=caliconodestatus

// CalicoNodeStatus asks calico-node on one node to report BGP agent, session and route status.
type CalicoNodeStatus struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec says what to report and how often.
	// +optional
	Spec CalicoNodeStatusSpec `json:"spec,omitempty"`
	// Status is the report.
	// +optional
	Status CalicoNodeStatusStatus `json:"status,omitempty"`
}

// CalicoNodeStatusSpec says which node reports what, how often.
type CalicoNodeStatusSpec struct {
	// Node is the node's name.
	// +optional
	Node string `json:"node,omitempty"`
	// Classes are the status classes to report: Agent, BGP, Routes.
	// +optional
	Classes []string `json:"classes,omitempty"`
	// UpdatePeriodSeconds is the report period; 0 stops updates.
	// +optional
	UpdatePeriodSeconds *uint32 `json:"updatePeriodSeconds,omitempty"`
}

// CalicoNodeStatusStatus is the report of a CalicoNodeStatus.
type CalicoNodeStatusStatus struct {
	// LastUpdated is when the report was written; Calico sends null before the first report.
	// +optional
	// +nullable
	LastUpdated metav1.Time `json:"lastUpdated,omitempty"`
	// Agent is the BGP daemons' status.
	// +optional
	Agent CalicoNodeAgentStatus `json:"agent,omitempty"`
	// BGP is the BGP sessions' status.
	// +optional
	BGP CalicoNodeBGPStatus `json:"bgp,omitempty"`
	// Routes are the node's routes.
	// +optional
	Routes CalicoNodeRoutes `json:"routes,omitempty"`
}

// CalicoNodeAgentStatus is the status of the BIRD daemons.
type CalicoNodeAgentStatus struct {
	// BIRDV4 is the IPv4 daemon's status.
	// +optional
	BIRDV4 BGPDaemonStatus `json:"birdV4,omitempty"`
	// BIRDV6 is the IPv6 daemon's status.
	// +optional
	BIRDV6 BGPDaemonStatus `json:"birdV6,omitempty"`
}

// BGPDaemonStatus is the status of one BIRD daemon.
type BGPDaemonStatus struct {
	// State is Ready or NotReady.
	// +optional
	State string `json:"state,omitempty"`
	// Version is the daemon's version.
	// +optional
	Version string `json:"version,omitempty"`
	// RouterID is the daemon's router ID.
	// +optional
	RouterID string `json:"routerID,omitempty"`
	// LastBootTime is when the daemon started.
	// +optional
	LastBootTime string `json:"lastBootTime,omitempty"`
	// LastReconfigurationTime is when the daemon was last reconfigured.
	// +optional
	LastReconfigurationTime string `json:"lastReconfigurationTime,omitempty"`
}

// CalicoNodeBGPStatus counts and lists the BGP sessions.
type CalicoNodeBGPStatus struct {
	// NumberEstablishedV4 is the number of established IPv4 sessions.
	NumberEstablishedV4 int `json:"numberEstablishedV4"`
	// NumberNotEstablishedV4 is the number of other IPv4 sessions.
	NumberNotEstablishedV4 int `json:"numberNotEstablishedV4"`
	// NumberEstablishedV6 is the number of established IPv6 sessions.
	NumberEstablishedV6 int `json:"numberEstablishedV6"`
	// NumberNotEstablishedV6 is the number of other IPv6 sessions.
	NumberNotEstablishedV6 int `json:"numberNotEstablishedV6"`
	// PeersV4 are the IPv4 peers.
	// +optional
	PeersV4 []CalicoNodePeer `json:"peersV4,omitempty"`
	// PeersV6 are the IPv6 peers.
	// +optional
	PeersV6 []CalicoNodePeer `json:"peersV6,omitempty"`
}

// CalicoNodePeer is one BGP session.
type CalicoNodePeer struct {
	// PeerIP is the peer's address.
	// +optional
	PeerIP string `json:"peerIP,omitempty"`
	// Type is how the peering came about (NodeMesh, NodePeer, GlobalPeer).
	// +optional
	Type string `json:"type,omitempty"`
	// State is the session state (Established, Idle, ...).
	// +optional
	State string `json:"state,omitempty"`
	// Since is when the session entered State.
	// +optional
	Since string `json:"since,omitempty"`
}

// CalicoNodeRoutes lists the node's routes per family.
type CalicoNodeRoutes struct {
	// RoutesV4 are the IPv4 routes.
	// +optional
	RoutesV4 []CalicoNodeRoute `json:"routesV4,omitempty"`
	// RoutesV6 are the IPv6 routes.
	// +optional
	RoutesV6 []CalicoNodeRoute `json:"routesV6,omitempty"`
}

// CalicoNodeRoute is one route.
type CalicoNodeRoute struct {
	// Type is FIB or RIB.
	// +optional
	Type string `json:"type,omitempty"`
	// Destination is the routed prefix.
	// +optional
	Destination string `json:"destination,omitempty"`
	// Gateway is the next hop.
	// +optional
	Gateway string `json:"gateway,omitempty"`
	// Interface is the outgoing interface.
	// +optional
	Interface string `json:"interface,omitempty"`
	// LearnedFrom says where the route came from.
	// +optional
	LearnedFrom CalicoNodeRouteLearnedFrom `json:"learnedFrom,omitempty"`
}

// CalicoNodeRouteLearnedFrom says where a route came from.
type CalicoNodeRouteLearnedFrom struct {
	// SourceType is Kernel, Static, Direct, NodeMesh or BGPPeer.
	// +optional
	SourceType string `json:"sourceType,omitempty"`
	// PeerIP is the peer that advertised the route.
	// +optional
	PeerIP string `json:"peerIP,omitempty"`
}

// +kubebuilder:object:root=true

// CalicoNodeStatusList is a list of CalicoNodeStatus.
type CalicoNodeStatusList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the status objects.
	Items []CalicoNodeStatus `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=hostendpoints,singular=hostendpoint

// HostEndpoint is a host interface (or all of a host's interfaces) that Calico policy applies to.
type HostEndpoint struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the endpoint.
	// +optional
	Spec HostEndpointSpec `json:"spec,omitempty"`
}

// HostEndpointSpec is the content of a HostEndpoint.
type HostEndpointSpec struct {
	// Node is the node the endpoint is on.
	// +optional
	Node string `json:"node,omitempty"`
	// InterfaceName is the interface, or "*" for all of the host's interfaces.
	// +optional
	InterfaceName string `json:"interfaceName,omitempty"`
	// ExpectedIPs are the interface's addresses (used when policies select the endpoint as a peer).
	// +optional
	ExpectedIPs []string `json:"expectedIPs,omitempty"`
	// Profiles are profiles applied to the endpoint.
	// +optional
	Profiles []string `json:"profiles,omitempty"`
	// Ports are named ports policies may refer to.
	// +optional
	Ports []EndpointPort `json:"ports,omitempty"`
}

// EndpointPort is a named port of an endpoint.
type EndpointPort struct {
	// Name is the port's name.
	Name string `json:"name"`
	// Protocol is the IP protocol by name or number.
	// +kubebuilder:validation:Pattern=`^.*`
	// +kubebuilder:validation:XIntOrString
	Protocol intstr.IntOrString `json:"protocol"`
	// Port is the port number.
	Port uint16 `json:"port"`
}

// +kubebuilder:object:root=true

// HostEndpointList is a list of HostEndpoint.
type HostEndpointList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the endpoints.
	Items []HostEndpoint `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=kubecontrollersconfigurations,singular=kubecontrollersconfiguration

// KubeControllersConfiguration configures calico-kube-controllers ("default").
type KubeControllersConfiguration struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired configuration.
	// +optional
	Spec KubeControllersConfigurationSpec `json:"spec,omitempty"`
	// Status is the configuration in use.
	// +optional
	Status KubeControllersConfigurationStatus `json:"status,omitempty"`
}

// KubeControllersConfigurationSpec is the configuration of calico-kube-controllers.
type KubeControllersConfigurationSpec struct {
	// LogSeverityScreen is the log level.
	// +optional
	LogSeverityScreen string `json:"logSeverityScreen,omitempty"`
	// HealthChecks is Enabled or Disabled.
	// +optional
	HealthChecks string `json:"healthChecks,omitempty"`
	// EtcdV3CompactionPeriod is the etcd compaction period (etcd datastore only).
	// +optional
	EtcdV3CompactionPeriod *metav1.Duration `json:"etcdV3CompactionPeriod,omitempty"`
	// PrometheusMetricsPort is the metrics port; 0 disables metrics.
	// +optional
	PrometheusMetricsPort *int `json:"prometheusMetricsPort,omitempty"`
	// DebugProfilePort is the pprof port; 0 disables profiling.
	// +optional
	DebugProfilePort *int32 `json:"debugProfilePort,omitempty"`
	// Controllers enables and configures the individual controllers.
	Controllers ControllersConfig `json:"controllers"`
}

// ControllersConfig enables and configures the individual controllers; an unset one is disabled.
type ControllersConfig struct {
	// Node is the node controller.
	// +optional
	Node *NodeControllerConfig `json:"node,omitempty"`
	// Policy is the policy controller.
	// +optional
	Policy *ReconcilerControllerConfig `json:"policy,omitempty"`
	// WorkloadEndpoint is the workload endpoint controller.
	// +optional
	WorkloadEndpoint *ReconcilerControllerConfig `json:"workloadEndpoint,omitempty"`
	// ServiceAccount is the service account controller.
	// +optional
	ServiceAccount *ReconcilerControllerConfig `json:"serviceAccount,omitempty"`
	// Namespace is the namespace controller.
	// +optional
	Namespace *ReconcilerControllerConfig `json:"namespace,omitempty"`
	// LoadBalancer is the LoadBalancer IP controller.
	// +optional
	LoadBalancer *LoadBalancerControllerConfig `json:"loadBalancer,omitempty"`
}

// ReconcilerControllerConfig configures a controller that only has a reconcile period.
type ReconcilerControllerConfig struct {
	// ReconcilerPeriod is the full resync period.
	// +optional
	ReconcilerPeriod *metav1.Duration `json:"reconcilerPeriod,omitempty"`
}

// NodeControllerConfig configures the node controller.
type NodeControllerConfig struct {
	// ReconcilerPeriod is the full resync period.
	// +optional
	ReconcilerPeriod *metav1.Duration `json:"reconcilerPeriod,omitempty"`
	// SyncLabels is Enabled or Disabled (copy Kubernetes node labels to Calico nodes).
	// +optional
	SyncLabels string `json:"syncLabels,omitempty"`
	// HostEndpoint configures automatic host endpoints.
	// +optional
	HostEndpoint *AutoHostEndpointConfig `json:"hostEndpoint,omitempty"`
	// LeakGracePeriod is how long an IPAM allocation without owner is kept before release.
	// +optional
	LeakGracePeriod *metav1.Duration `json:"leakGracePeriod,omitempty"`
}

// AutoHostEndpointConfig configures automatic host endpoints.
type AutoHostEndpointConfig struct {
	// AutoCreate is Enabled or Disabled.
	// +optional
	AutoCreate string `json:"autoCreate,omitempty"`
	// CreateDefaultHostEndpoint is Enabled or Disabled (the "*" endpoint per node).
	// +optional
	CreateDefaultHostEndpoint string `json:"createDefaultHostEndpoint,omitempty"`
	// Templates create further host endpoints per node.
	// +optional
	Templates []AutoHostEndpointTemplate `json:"templates,omitempty"`
}

// AutoHostEndpointTemplate describes host endpoints created for matching nodes.
type AutoHostEndpointTemplate struct {
	// GenerateName is the name prefix of the created endpoints.
	// +kubebuilder:validation:MaxLength=253
	// +optional
	GenerateName string `json:"generateName,omitempty"`
	// InterfaceCIDRs pick the node addresses that go into the endpoints.
	// +optional
	InterfaceCIDRs []string `json:"interfaceCIDRs,omitempty"`
	// InterfacePattern picks interfaces by name regular expression.
	// +optional
	InterfacePattern string `json:"interfacePattern,omitempty"`
	// Labels are put on the created endpoints.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// NodeSelector picks the nodes.
	// +optional
	NodeSelector string `json:"nodeSelector,omitempty"`
}

// LoadBalancerControllerConfig configures the LoadBalancer IP controller.
type LoadBalancerControllerConfig struct {
	// AssignIPs is AllServices or RequestedServicesOnly.
	// +kubebuilder:default=AllServices
	// +optional
	AssignIPs string `json:"assignIPs,omitempty"`
}

// KubeControllersConfigurationStatus is the configuration calico-kube-controllers runs with.
type KubeControllersConfigurationStatus struct {
	// RunningConfig is the effective configuration.
	// +optional
	RunningConfig *KubeControllersConfigurationSpec `json:"runningConfig,omitempty"`
	// EnvironmentVars are the environment variables that override the configuration.
	// +optional
	EnvironmentVars map[string]string `json:"environmentVars,omitempty"`
}

// +kubebuilder:object:root=true

// KubeControllersConfigurationList is a list of KubeControllersConfiguration.
type KubeControllersConfigurationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the configurations.
	Items []KubeControllersConfiguration `json:"items"`
}
