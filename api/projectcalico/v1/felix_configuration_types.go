package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// AWSSrcDstCheckOption is the set of values of FelixConfiguration awsSrcDstCheck.
// +kubebuilder:validation:Enum=DoNothing;Enable;Disable
type AWSSrcDstCheckOption string

// Values of AWSSrcDstCheckOption.
const (
	AWSSrcDstCheckOptionDoNothing AWSSrcDstCheckOption = "DoNothing"
	AWSSrcDstCheckOptionEnable    AWSSrcDstCheckOption = "Enable"
	AWSSrcDstCheckOptionDisable   AWSSrcDstCheckOption = "Disable"
)

// BPFAttachOption is the set of values of FelixConfiguration bpfAttachType.
// +kubebuilder:validation:Enum=TC;TCX
type BPFAttachOption string

// Values of BPFAttachOption.
const (
	BPFAttachOptionTC  BPFAttachOption = "TC"
	BPFAttachOptionTCX BPFAttachOption = "TCX"
)

// BPFConnectTimeLBType is the set of values of FelixConfiguration bpfConnectTimeLoadBalancing.
// +kubebuilder:validation:Enum=TCP;Enabled;Disabled
type BPFConnectTimeLBType string

// Values of BPFConnectTimeLBType.
const (
	BPFConnectTimeLBTypeTCP      BPFConnectTimeLBType = "TCP"
	BPFConnectTimeLBTypeEnabled  BPFConnectTimeLBType = "Enabled"
	BPFConnectTimeLBTypeDisabled BPFConnectTimeLBType = "Disabled"
)

// BPFConntrackLogLevel is the set of values of FelixConfiguration bpfConntrackLogLevel.
// +kubebuilder:validation:Enum=Off;Debug
type BPFConntrackLogLevel string

// Values of BPFConntrackLogLevel.
const (
	BPFConntrackLogLevelOff   BPFConntrackLogLevel = "Off"
	BPFConntrackLogLevelDebug BPFConntrackLogLevel = "Debug"
)

// BPFConntrackMode is the set of values of FelixConfiguration bpfConntrackMode.
// +kubebuilder:validation:Enum=Auto;Userspace;BPFProgram
type BPFConntrackMode string

// Values of BPFConntrackMode.
const (
	BPFConntrackModeAuto       BPFConntrackMode = "Auto"
	BPFConntrackModeUserspace  BPFConntrackMode = "Userspace"
	BPFConntrackModeBPFProgram BPFConntrackMode = "BPFProgram"
)

// BPFHostNetworkedNATType is the set of values of FelixConfiguration bpfHostNetworkedNATWithoutCTLB.
// +kubebuilder:validation:Enum=Enabled;Disabled
type BPFHostNetworkedNATType string

// Values of BPFHostNetworkedNATType.
const (
	BPFHostNetworkedNATTypeEnabled  BPFHostNetworkedNATType = "Enabled"
	BPFHostNetworkedNATTypeDisabled BPFHostNetworkedNATType = "Disabled"
)

// BPFProfilingMode is the set of values of FelixConfiguration bpfProfiling.
// +kubebuilder:validation:Enum=Enabled;Disabled
type BPFProfilingMode string

// Values of BPFProfilingMode.
const (
	BPFProfilingModeEnabled  BPFProfilingMode = "Enabled"
	BPFProfilingModeDisabled BPFProfilingMode = "Disabled"
)

// BPFRedirectToPeerMode is the set of values of FelixConfiguration bpfRedirectToPeer.
// +kubebuilder:validation:Enum=Enabled;Disabled;L2Only
type BPFRedirectToPeerMode string

// Values of BPFRedirectToPeerMode.
const (
	BPFRedirectToPeerModeEnabled  BPFRedirectToPeerMode = "Enabled"
	BPFRedirectToPeerModeDisabled BPFRedirectToPeerMode = "Disabled"
	BPFRedirectToPeerModeL2Only   BPFRedirectToPeerMode = "L2Only"
)

// FloatingIPType is the set of values of FelixConfiguration floatingIPs.
// +kubebuilder:validation:Enum=Enabled;Disabled
type FloatingIPType string

// Values of FloatingIPType.
const (
	FloatingIPTypeEnabled  FloatingIPType = "Enabled"
	FloatingIPTypeDisabled FloatingIPType = "Disabled"
)

// FlowLogsLocalReporterMode is the set of values of FelixConfiguration flowLogsLocalReporter.
// +kubebuilder:validation:Enum=Disabled;Enabled
type FlowLogsLocalReporterMode string

// Values of FlowLogsLocalReporterMode.
const (
	FlowLogsLocalReporterModeDisabled FlowLogsLocalReporterMode = "Disabled"
	FlowLogsLocalReporterModeEnabled  FlowLogsLocalReporterMode = "Enabled"
)

// FlowLogsPolicyEvaluationMode is the set of values of FelixConfiguration flowLogsPolicyEvaluationMode.
// +kubebuilder:validation:Enum=None;Continuous
type FlowLogsPolicyEvaluationMode string

// Values of FlowLogsPolicyEvaluationMode.
const (
	FlowLogsPolicyEvaluationModeNone       FlowLogsPolicyEvaluationMode = "None"
	FlowLogsPolicyEvaluationModeContinuous FlowLogsPolicyEvaluationMode = "Continuous"
)

// IPForwardingMode is the set of values of FelixConfiguration ipForwarding.
// +kubebuilder:validation:Enum=Enabled;Disabled
type IPForwardingMode string

// Values of IPForwardingMode.
const (
	IPForwardingModeEnabled  IPForwardingMode = "Enabled"
	IPForwardingModeDisabled IPForwardingMode = "Disabled"
)

// NATOutgoingExclusionsType is the set of values of FelixConfiguration natOutgoingExclusions.
// +kubebuilder:validation:Enum=IPPoolsOnly;IPPoolsAndHostIPs
type NATOutgoingExclusionsType string

// Values of NATOutgoingExclusionsType.
const (
	NATOutgoingExclusionsTypeIPPoolsOnly       NATOutgoingExclusionsType = "IPPoolsOnly"
	NATOutgoingExclusionsTypeIPPoolsAndHostIPs NATOutgoingExclusionsType = "IPPoolsAndHostIPs"
)

// NFTablesMode is the set of values of FelixConfiguration nftablesMode.
// +kubebuilder:validation:Enum=Disabled;Enabled;Auto
type NFTablesMode string

// Values of NFTablesMode.
const (
	NFTablesModeDisabled NFTablesMode = "Disabled"
	NFTablesModeEnabled  NFTablesMode = "Enabled"
	NFTablesModeAuto     NFTablesMode = "Auto"
)

// ProgramClusterRoutesMode is the set of values of FelixConfiguration programClusterRoutes.
// +kubebuilder:validation:Enum=Enabled;Disabled
type ProgramClusterRoutesMode string

// Values of ProgramClusterRoutesMode.
const (
	ProgramClusterRoutesModeEnabled  ProgramClusterRoutesMode = "Enabled"
	ProgramClusterRoutesModeDisabled ProgramClusterRoutesMode = "Disabled"
)

// WindowsManageFirewallRulesMode is the set of values of FelixConfiguration windowsManageFirewallRules.
// +kubebuilder:validation:Enum=Enabled;Disabled
type WindowsManageFirewallRulesMode string

// Values of WindowsManageFirewallRulesMode.
const (
	WindowsManageFirewallRulesModeEnabled  WindowsManageFirewallRulesMode = "Enabled"
	WindowsManageFirewallRulesModeDisabled WindowsManageFirewallRulesMode = "Disabled"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=felixconfigurations,singular=felixconfiguration

// FelixConfiguration configures Felix, calico-node's dataplane agent, for the whole cluster ("default")
// or for one node ("node.<name>").
type FelixConfiguration struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the configuration.
	// +optional
	Spec FelixConfigurationSpec `json:"spec,omitempty"`
}

// FelixConfigurationSpec holds Felix's configuration parameters. Every field is optional; an unset
// field leaves Felix's built-in default (or its environment variable) in effect. Field names and
// meanings are Felix's configuration parameters of the same name (Calico FelixConfiguration reference).
type FelixConfigurationSpec struct {
	// AllowIPIPPacketsFromWorkloads lets workloads send IPIP packets (dropped by default).
	// +optional
	AllowIPIPPacketsFromWorkloads *bool `json:"allowIPIPPacketsFromWorkloads,omitempty"`
	// AllowVXLANPacketsFromWorkloads lets workloads send VXLAN packets (dropped by default).
	// +optional
	AllowVXLANPacketsFromWorkloads *bool `json:"allowVXLANPacketsFromWorkloads,omitempty"`
	// AWSSrcDstCheck sets the AWS EC2 source/destination check of the node's interface.
	// +optional
	AWSSrcDstCheck *AWSSrcDstCheckOption `json:"awsSrcDstCheck,omitempty"`
	// BPFAttachType selects how eBPF programs are attached: TC or TCX.
	// +optional
	BPFAttachType *BPFAttachOption `json:"bpfAttachType,omitempty"`
	// BPFCTLBLogFilter filters the connect-time load balancer's debug logs.
	// +optional
	BPFCTLBLogFilter *string `json:"bpfCTLBLogFilter,omitempty"`
	// BPFConnectTimeLoadBalancing selects where the eBPF dataplane load-balances services at connect time: TCP only, all protocols (Enabled) or nowhere (Disabled).
	// +optional
	BPFConnectTimeLoadBalancing *BPFConnectTimeLBType `json:"bpfConnectTimeLoadBalancing,omitempty"`
	// BPFConnectTimeLoadBalancingEnabled is the older on/off switch for connect-time load balancing.
	// +optional
	BPFConnectTimeLoadBalancingEnabled *bool `json:"bpfConnectTimeLoadBalancingEnabled,omitempty"`
	// BPFConntrackLogLevel is the log level of the eBPF conntrack cleanup.
	// +optional
	BPFConntrackLogLevel *BPFConntrackLogLevel `json:"bpfConntrackLogLevel,omitempty"`
	// BPFConntrackMode selects how eBPF conntrack entries are cleaned up.
	// +optional
	BPFConntrackMode *BPFConntrackMode `json:"bpfConntrackMode,omitempty"`
	// BPFConntrackTimeouts are the eBPF conntrack timeouts per protocol state.
	// +optional
	BPFConntrackTimeouts *BPFConntrackTimeouts `json:"bpfConntrackTimeouts,omitempty"`
	// BPFDSROptoutCIDRs are client CIDRs for which DSR (direct server return) is not used.
	// +optional
	BPFDSROptoutCIDRs []string `json:"bpfDSROptoutCIDRs,omitempty"`
	// BPFDataIfacePattern is a regular expression of the host interfaces that carry workload traffic in eBPF mode.
	// +optional
	BPFDataIfacePattern *string `json:"bpfDataIfacePattern,omitempty"`
	// BPFDisableGROForIfaces is a regular expression of interfaces on which generic receive offload is switched off.
	// +optional
	BPFDisableGROForIfaces *string `json:"bpfDisableGROForIfaces,omitempty"`
	// BPFDisableUnprivileged sets kernel.unprivileged_bpf_disabled so that unprivileged users cannot load eBPF programs.
	// +optional
	BPFDisableUnprivileged *bool `json:"bpfDisableUnprivileged,omitempty"`
	// BPFEnabled switches Felix to the eBPF dataplane.
	// +optional
	BPFEnabled *bool `json:"bpfEnabled,omitempty"`
	// BPFEnforceRPF is the reverse path filter mode of the eBPF dataplane: Disabled, Strict or Loose.
	// +kubebuilder:validation:Pattern=`^(?i)(Disabled|Strict|Loose)?$`
	// +optional
	BPFEnforceRPF *string `json:"bpfEnforceRPF,omitempty"`
	// BPFExcludeCIDRsFromNAT are CIDRs that the eBPF dataplane never NATs.
	// +optional
	BPFExcludeCIDRsFromNAT []string `json:"bpfExcludeCIDRsFromNAT,omitempty"`
	// BPFExportBufferSizeMB is the size of the eBPF flow log export buffer in MiB.
	// +optional
	BPFExportBufferSizeMB *int `json:"bpfExportBufferSizeMB,omitempty"`
	// BPFExtToServiceConnmark is a connmark set on traffic from outside to services in eBPF mode.
	// +optional
	BPFExtToServiceConnmark *int `json:"bpfExtToServiceConnmark,omitempty"`
	// BPFExternalServiceMode is how traffic from outside reaches service backends on other nodes: Tunnel or DSR.
	// +kubebuilder:validation:Pattern=`^(?i)(Tunnel|DSR)?$`
	// +optional
	BPFExternalServiceMode *string `json:"bpfExternalServiceMode,omitempty"`
	// BPFForceTrackPacketsFromIfaces are interfaces whose traffic is always conntracked by Linux in eBPF mode.
	// +optional
	BPFForceTrackPacketsFromIfaces []string `json:"bpfForceTrackPacketsFromIfaces,omitempty"`
	// BPFHostConntrackBypass lets eBPF bypass Linux conntrack for host traffic it handles itself.
	// +optional
	BPFHostConntrackBypass *bool `json:"bpfHostConntrackBypass,omitempty"`
	// BPFHostNetworkedNATWithoutCTLB switches NAT of host-networked traffic to services when connect-time load balancing is off.
	// +optional
	BPFHostNetworkedNATWithoutCTLB *BPFHostNetworkedNATType `json:"bpfHostNetworkedNATWithoutCTLB,omitempty"`
	// BPFJITHardening sets the kernel's eBPF JIT hardening: Strict, or Auto (Strict when the kernel supports it). [Default: Auto]
	// +optional
	BPFJITHardening *BPFJITHardeningType `json:"bpfJITHardening,omitempty"`
	// BPFKubeProxyEndpointSlicesEnabled makes the eBPF kube-proxy replacement read EndpointSlices.
	// +optional
	BPFKubeProxyEndpointSlicesEnabled *bool `json:"bpfKubeProxyEndpointSlicesEnabled,omitempty"`
	// BPFKubeProxyHealthzPort is the port of the eBPF kube-proxy replacement's health endpoint.
	// +optional
	BPFKubeProxyHealthzPort *int `json:"bpfKubeProxyHealthzPort,omitempty"`
	// BPFKubeProxyIptablesCleanupEnabled removes kube-proxy's iptables rules when the eBPF dataplane takes over.
	// +optional
	BPFKubeProxyIptablesCleanupEnabled *bool `json:"bpfKubeProxyIptablesCleanupEnabled,omitempty"`
	// BPFKubeProxyMinSyncPeriod is the minimum interval between eBPF service map updates.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	BPFKubeProxyMinSyncPeriod *metav1.Duration `json:"bpfKubeProxyMinSyncPeriod,omitempty"`
	// BPFL3IfacePattern is a regular expression of layer-3 interfaces (without Ethernet header) handled in eBPF mode.
	// +optional
	BPFL3IfacePattern *string `json:"bpfL3IfacePattern,omitempty"`
	// BPFLogFilters are per-interface pcap filters for eBPF debug logs.
	// +optional
	BPFLogFilters map[string]string `json:"bpfLogFilters,omitempty"`
	// BPFLogLevel is the eBPF programs' log level: Off, Info or Debug.
	// +kubebuilder:validation:Pattern=`^(?i)(Off|Info|Debug)?$`
	// +optional
	BPFLogLevel *string `json:"bpfLogLevel,omitempty"`
	// BPFMapSizeConntrack is the size of the eBPF conntrack map.
	// +optional
	BPFMapSizeConntrack *int `json:"bpfMapSizeConntrack,omitempty"`
	// BPFMapSizeConntrackCleanupQueue is the size of the eBPF conntrack cleanup queue.
	// +kubebuilder:validation:Minimum=1
	// +optional
	BPFMapSizeConntrackCleanupQueue *int `json:"bpfMapSizeConntrackCleanupQueue,omitempty"`
	// BPFMapSizeConntrackScaling says whether the eBPF conntrack map grows when full: Disabled or DoubleIfFull.
	// +kubebuilder:validation:Pattern=`^(?i)(Disabled|DoubleIfFull)?$`
	// +optional
	BPFMapSizeConntrackScaling *string `json:"bpfMapSizeConntrackScaling,omitempty"`
	// BPFMapSizeIPSets is the size of the eBPF IP set map.
	// +optional
	BPFMapSizeIPSets *int `json:"bpfMapSizeIPSets,omitempty"`
	// BPFMapSizeIfState is the size of the eBPF interface state map.
	// +optional
	BPFMapSizeIfState *int `json:"bpfMapSizeIfState,omitempty"`
	// BPFMapSizeNATAffinity is the size of the eBPF service session affinity map.
	// +optional
	BPFMapSizeNATAffinity *int `json:"bpfMapSizeNATAffinity,omitempty"`
	// BPFMapSizeNATBackend is the size of the eBPF service backend map.
	// +optional
	BPFMapSizeNATBackend *int `json:"bpfMapSizeNATBackend,omitempty"`
	// BPFMapSizeNATFrontend is the size of the eBPF service frontend map.
	// +optional
	BPFMapSizeNATFrontend *int `json:"bpfMapSizeNATFrontend,omitempty"`
	// BPFMapSizePerCpuConntrack is the per-CPU size of the eBPF conntrack map.
	// +optional
	BPFMapSizePerCpuConntrack *int `json:"bpfMapSizePerCpuConntrack,omitempty"`
	// BPFMapSizeRoute is the size of the eBPF route map.
	// +optional
	BPFMapSizeRoute *int `json:"bpfMapSizeRoute,omitempty"`
	// BPFPSNATPorts is the port range used for eBPF source NAT when a source port clashes.
	// +kubebuilder:validation:Pattern=`^.*`
	// +kubebuilder:validation:XIntOrString
	// +optional
	BPFPSNATPorts *intstr.IntOrString `json:"bpfPSNATPorts,omitempty"`
	// BPFPolicyDebugEnabled records policy debug information of the eBPF programs.
	// +optional
	BPFPolicyDebugEnabled *bool `json:"bpfPolicyDebugEnabled,omitempty"`
	// BPFProfiling switches eBPF program profiling on or off.
	// +optional
	BPFProfiling *BPFProfilingMode `json:"bpfProfiling,omitempty"`
	// BPFRedirectToPeer lets eBPF redirect traffic directly to the peer interface.
	// +optional
	BPFRedirectToPeer *BPFRedirectToPeerMode `json:"bpfRedirectToPeer,omitempty"`
	// CgroupV2Path is where the cgroup v2 hierarchy is mounted.
	// +optional
	CgroupV2Path *string `json:"cgroupV2Path,omitempty"`
	// ChainInsertMode says whether Felix inserts its iptables hooks before other rules (Insert) or appends them (Append).
	// +kubebuilder:validation:Pattern=`^(?i)(Insert|Append)?$`
	// +optional
	ChainInsertMode *string `json:"chainInsertMode,omitempty"`
	// DataplaneDriver is the path of an external dataplane driver.
	// +optional
	DataplaneDriver *string `json:"dataplaneDriver,omitempty"`
	// DataplaneWatchdogTimeout is how long the dataplane may stay unresponsive before Felix reports itself unhealthy.
	// +optional
	DataplaneWatchdogTimeout *metav1.Duration `json:"dataplaneWatchdogTimeout,omitempty"`
	// DebugDisableLogDropping stops Felix from dropping logs when the log queue is full.
	// +optional
	DebugDisableLogDropping *bool `json:"debugDisableLogDropping,omitempty"`
	// DebugHost is the address of the debug (pprof) endpoint.
	// +optional
	DebugHost *string `json:"debugHost,omitempty"`
	// DebugMemoryProfilePath is where a memory profile is written on SIGUSR1.
	// +optional
	DebugMemoryProfilePath *string `json:"debugMemoryProfilePath,omitempty"`
	// DebugPort is the port of the debug (pprof) endpoint.
	// +optional
	DebugPort *int `json:"debugPort,omitempty"`
	// DebugSimulateCalcGraphHangAfter is a test hook that stalls the calculation graph.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	DebugSimulateCalcGraphHangAfter *metav1.Duration `json:"debugSimulateCalcGraphHangAfter,omitempty"`
	// DebugSimulateDataplaneApplyDelay is a test hook that delays every dataplane update.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	DebugSimulateDataplaneApplyDelay *metav1.Duration `json:"debugSimulateDataplaneApplyDelay,omitempty"`
	// DebugSimulateDataplaneHangAfter is a test hook that stalls the dataplane.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	DebugSimulateDataplaneHangAfter *metav1.Duration `json:"debugSimulateDataplaneHangAfter,omitempty"`
	// DefaultEndpointToHostAction is what happens to traffic from workloads to the host itself after policy: Drop, Accept or Return.
	// +kubebuilder:validation:Pattern=`^(?i)(Drop|Accept|Return)?$`
	// +optional
	DefaultEndpointToHostAction *string `json:"defaultEndpointToHostAction,omitempty"`
	// DeviceRouteProtocol is the protocol number set on routes Felix programs.
	// +optional
	DeviceRouteProtocol *int `json:"deviceRouteProtocol,omitempty"`
	// DeviceRouteSourceAddress is the IPv4 source address set on routes to local workloads.
	// +optional
	DeviceRouteSourceAddress *string `json:"deviceRouteSourceAddress,omitempty"`
	// DeviceRouteSourceAddressIPv6 is the IPv6 source address set on routes to local workloads.
	// +optional
	DeviceRouteSourceAddressIPv6 *string `json:"deviceRouteSourceAddressIPv6,omitempty"`
	// DisableConntrackInvalidCheck stops Felix from dropping packets that conntrack marks invalid.
	// +optional
	DisableConntrackInvalidCheck *bool `json:"disableConntrackInvalidCheck,omitempty"`
	// EndpointReportingDelay is the delay before endpoint status is reported.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	EndpointReportingDelay *metav1.Duration `json:"endpointReportingDelay,omitempty"`
	// EndpointReportingEnabled makes Felix report endpoint status to the datastore.
	// +optional
	EndpointReportingEnabled *bool `json:"endpointReportingEnabled,omitempty"`
	// EndpointStatusPathPrefix is the directory where Felix writes endpoint status files.
	// +optional
	EndpointStatusPathPrefix *string `json:"endpointStatusPathPrefix,omitempty"`
	// ExternalNodesList are CIDRs of external nodes allowed to send IPIP traffic.
	// +optional
	ExternalNodesList []string `json:"externalNodesList,omitempty"`
	// FailsafeInboundHostPorts are inbound host ports that policy can never block.
	// +optional
	FailsafeInboundHostPorts []ProtoPort `json:"failsafeInboundHostPorts,omitempty"`
	// FailsafeOutboundHostPorts are outbound host ports that policy can never block.
	// +optional
	FailsafeOutboundHostPorts []ProtoPort `json:"failsafeOutboundHostPorts,omitempty"`
	// FeatureDetectOverride overrides detected kernel features ("Feature=true,Other=false").
	// +kubebuilder:validation:Pattern=`^([a-zA-Z0-9-_]+=(true|false|),)*([a-zA-Z0-9-_]+=(true|false|))?$`
	// +optional
	FeatureDetectOverride *string `json:"featureDetectOverride,omitempty"`
	// FeatureGates switches experimental Felix features ("Name=value,...").
	// +kubebuilder:validation:Pattern=`^([a-zA-Z0-9-_]+=([^=]+),)*([a-zA-Z0-9-_]+=([^=]+))?$`
	// +optional
	FeatureGates *string `json:"featureGates,omitempty"`
	// FloatingIPs switches support for OpenStack floating IPs on or off.
	// +optional
	FloatingIPs *FloatingIPType `json:"floatingIPs,omitempty"`
	// FlowLogsCollectorDebugTrace logs every flow the flow log collector sees.
	// +optional
	FlowLogsCollectorDebugTrace *bool `json:"flowLogsCollectorDebugTrace,omitempty"`
	// FlowLogsFlushInterval is how often flow logs are flushed.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	FlowLogsFlushInterval *metav1.Duration `json:"flowLogsFlushInterval,omitempty"`
	// FlowLogsGoldmaneServer is the address of the Goldmane flow aggregator.
	// +optional
	FlowLogsGoldmaneServer *string `json:"flowLogsGoldmaneServer,omitempty"`
	// FlowLogsLocalReporter switches the node-local flow log reporter on or off.
	// +optional
	FlowLogsLocalReporter *FlowLogsLocalReporterMode `json:"flowLogsLocalReporter,omitempty"`
	// FlowLogsPolicyEvaluationMode says whether flows are evaluated against pending (staged) policies.
	// +optional
	FlowLogsPolicyEvaluationMode *FlowLogsPolicyEvaluationMode `json:"flowLogsPolicyEvaluationMode,omitempty"`
	// GenericXDPEnabled allows generic (driver-independent) XDP.
	// +optional
	GenericXDPEnabled *bool `json:"genericXDPEnabled,omitempty"`
	// GoGCThreshold is Felix's Go garbage collector target percentage (GOGC).
	// +optional
	GoGCThreshold *int `json:"goGCThreshold,omitempty"`
	// GoMaxProcs is Felix's GOMAXPROCS.
	// +optional
	GoMaxProcs *int `json:"goMaxProcs,omitempty"`
	// GoMemoryLimitMB is Felix's Go memory limit in MiB.
	// +optional
	GoMemoryLimitMB *int `json:"goMemoryLimitMB,omitempty"`
	// HealthEnabled switches Felix's health endpoint on.
	// +optional
	HealthEnabled *bool `json:"healthEnabled,omitempty"`
	// HealthHost is the address of Felix's health endpoint.
	// +optional
	HealthHost *string `json:"healthHost,omitempty"`
	// HealthPort is the port of Felix's health endpoint.
	// +optional
	HealthPort *int `json:"healthPort,omitempty"`
	// HealthTimeoutOverrides override the health timeouts of individual Felix components.
	// +optional
	HealthTimeoutOverrides []HealthTimeoutOverride `json:"healthTimeoutOverrides,omitempty"`
	// InterfaceExclude are interface names or /regex/ patterns Felix ignores.
	// +optional
	InterfaceExclude *string `json:"interfaceExclude,omitempty"`
	// InterfacePrefix is the name prefix of workload interfaces ("cali").
	// +optional
	InterfacePrefix *string `json:"interfacePrefix,omitempty"`
	// InterfaceRefreshInterval is how often Felix rescans host interfaces.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	InterfaceRefreshInterval *metav1.Duration `json:"interfaceRefreshInterval,omitempty"`
	// IPForwarding says whether Felix enables IP forwarding in the kernel.
	// +optional
	IPForwarding *IPForwardingMode `json:"ipForwarding,omitempty"`
	// IPIPEnabled makes Felix set up the IPIP tunnel device.
	// +optional
	IPIPEnabled *bool `json:"ipipEnabled,omitempty"`
	// IPIPMTU is the MTU of the IPIP tunnel device.
	// +optional
	IPIPMTU *int `json:"ipipMTU,omitempty"`
	// IPSetsRefreshInterval is how often Felix re-checks its IP sets.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	IPSetsRefreshInterval *metav1.Duration `json:"ipsetsRefreshInterval,omitempty"`
	// IptablesBackend selects the iptables backend: Auto, Legacy or NFT.
	// +kubebuilder:validation:Pattern=`^(?i)(Auto|Legacy|NFT)?$`
	// +optional
	IptablesBackend *string `json:"iptablesBackend,omitempty"`
	// IptablesFilterAllowAction is the iptables action for allowed traffic in the filter table: Accept or Return.
	// +kubebuilder:validation:Pattern=`^(?i)(Accept|Return)?$`
	// +optional
	IptablesFilterAllowAction *string `json:"iptablesFilterAllowAction,omitempty"`
	// IptablesFilterDenyAction is the iptables action for denied traffic: Drop or Reject.
	// +kubebuilder:validation:Pattern=`^(?i)(Drop|Reject)?$`
	// +optional
	IptablesFilterDenyAction *string `json:"iptablesFilterDenyAction,omitempty"`
	// IptablesLockFilePath is the path of the iptables lock file.
	// +optional
	IptablesLockFilePath *string `json:"iptablesLockFilePath,omitempty"`
	// IptablesLockProbeInterval is how often Felix retries the iptables lock.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	IptablesLockProbeInterval *metav1.Duration `json:"iptablesLockProbeInterval,omitempty"`
	// IptablesLockTimeout is how long Felix waits for the iptables lock.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	IptablesLockTimeout *metav1.Duration `json:"iptablesLockTimeout,omitempty"`
	// IptablesMangleAllowAction is the iptables action for allowed traffic in the mangle table: Accept or Return.
	// +kubebuilder:validation:Pattern=`^(?i)(Accept|Return)?$`
	// +optional
	IptablesMangleAllowAction *string `json:"iptablesMangleAllowAction,omitempty"`
	// IptablesMarkMask is the mask of packet mark bits Felix may use.
	// +optional
	IptablesMarkMask *uint32 `json:"iptablesMarkMask,omitempty"`
	// IptablesNATOutgoingInterfaceFilter restricts outgoing NAT to interfaces matching this name.
	// +optional
	IptablesNATOutgoingInterfaceFilter *string `json:"iptablesNATOutgoingInterfaceFilter,omitempty"`
	// IptablesPostWriteCheckInterval is the delay before Felix re-reads iptables after a write.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	IptablesPostWriteCheckInterval *metav1.Duration `json:"iptablesPostWriteCheckInterval,omitempty"`
	// IptablesRefreshInterval is how often Felix re-checks all iptables rules.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	IptablesRefreshInterval *metav1.Duration `json:"iptablesRefreshInterval,omitempty"`
	// IPv6Support switches Felix's IPv6 handling on or off.
	// +optional
	IPv6Support *bool `json:"ipv6Support,omitempty"`
	// KubeNodePortRanges are the NodePort ranges that Felix treats as service ports.
	// +optional
	KubeNodePortRanges []intstr.IntOrString `json:"kubeNodePortRanges,omitempty"`
	// LogActionRateLimit limits how often the policy Log action logs ("N/second|minute|hour|day").
	// +kubebuilder:validation:Pattern=`^[1-9]\d{0,3}/(?:second|minute|hour|day)$`
	// +optional
	LogActionRateLimit *string `json:"logActionRateLimit,omitempty"`
	// LogActionRateLimitBurst is the burst allowed by LogActionRateLimit.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=9999
	// +optional
	LogActionRateLimitBurst *int `json:"logActionRateLimitBurst,omitempty"`
	// LogDebugFilenameRegex restricts debug logs to source files matching this regular expression.
	// +optional
	LogDebugFilenameRegex *string `json:"logDebugFilenameRegex,omitempty"`
	// LogFilePath is the path of Felix's log file; "none" disables it.
	// +optional
	LogFilePath *string `json:"logFilePath,omitempty"`
	// LogPrefix is the prefix of log lines written by the policy Log action.
	// +kubebuilder:validation:Pattern=`^([a-zA-Z0-9%: /_-])*$`
	// +optional
	LogPrefix *string `json:"logPrefix,omitempty"`
	// LogSeverityFile is the log level of Felix's log file.
	// +kubebuilder:validation:Pattern=`^(?i)(Trace|Debug|Info|Warning|Error|Fatal)?$`
	// +optional
	LogSeverityFile *string `json:"logSeverityFile,omitempty"`
	// LogSeverityScreen is the log level of Felix's standard output.
	// +kubebuilder:validation:Pattern=`^(?i)(Trace|Debug|Info|Warning|Error|Fatal)?$`
	// +optional
	LogSeverityScreen *string `json:"logSeverityScreen,omitempty"`
	// LogSeveritySys is the log level of Felix's syslog output.
	// +kubebuilder:validation:Pattern=`^(?i)(Trace|Debug|Info|Warning|Error|Fatal)?$`
	// +optional
	LogSeveritySys *string `json:"logSeveritySys,omitempty"`
	// MaxIpsetSize is the maximum number of entries of an IP set.
	// +optional
	MaxIpsetSize *int `json:"maxIpsetSize,omitempty"`
	// MetadataAddr is the address of the OpenStack metadata server.
	// +optional
	MetadataAddr *string `json:"metadataAddr,omitempty"`
	// MetadataPort is the port of the OpenStack metadata server.
	// +optional
	MetadataPort *int `json:"metadataPort,omitempty"`
	// MTUIfacePattern is a regular expression of the host interfaces used to detect the MTU.
	// +optional
	MTUIfacePattern *string `json:"mtuIfacePattern,omitempty"`
	// NATOutgoingAddress is the source address for outgoing NAT instead of the interface address.
	// +optional
	NATOutgoingAddress *string `json:"natOutgoingAddress,omitempty"`
	// NATOutgoingExclusions says which destinations are exempt from outgoing NAT: pools only, or pools and host IPs.
	// +optional
	NATOutgoingExclusions *NATOutgoingExclusionsType `json:"natOutgoingExclusions,omitempty"`
	// NATPortRange is the source port range used for outgoing NAT.
	// +kubebuilder:validation:Pattern=`^.*`
	// +kubebuilder:validation:XIntOrString
	// +optional
	NATPortRange *intstr.IntOrString `json:"natPortRange,omitempty"`
	// NetlinkTimeout is the timeout of netlink requests.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	NetlinkTimeout *metav1.Duration `json:"netlinkTimeout,omitempty"`
	// NftablesFilterAllowAction is the nftables action for allowed traffic in the filter table: Accept or Return.
	// +kubebuilder:validation:Pattern=`^(?i)(Accept|Return)?$`
	// +optional
	NftablesFilterAllowAction *string `json:"nftablesFilterAllowAction,omitempty"`
	// NftablesFilterDenyAction is the nftables action for denied traffic: Drop or Reject.
	// +kubebuilder:validation:Pattern=`^(?i)(Drop|Reject)?$`
	// +optional
	NftablesFilterDenyAction *string `json:"nftablesFilterDenyAction,omitempty"`
	// NftablesMangleAllowAction is the nftables action for allowed traffic in the mangle table: Accept or Return.
	// +kubebuilder:validation:Pattern=`^(?i)(Accept|Return)?$`
	// +optional
	NftablesMangleAllowAction *string `json:"nftablesMangleAllowAction,omitempty"`
	// NftablesMarkMask is the mask of packet mark bits Felix may use in nftables mode.
	// +optional
	NftablesMarkMask *uint32 `json:"nftablesMarkMask,omitempty"`
	// NftablesMode selects the nftables dataplane: Enabled, Disabled or Auto.
	// +optional
	NftablesMode *NFTablesMode `json:"nftablesMode,omitempty"`
	// NftablesRefreshInterval is how often Felix re-checks its nftables rules.
	// +optional
	NftablesRefreshInterval *metav1.Duration `json:"nftablesRefreshInterval,omitempty"`
	// OpenstackRegion is the OpenStack region of the node.
	// +optional
	OpenstackRegion *string `json:"openstackRegion,omitempty"`
	// PolicySyncPathPrefix is the directory of the policy sync API socket; empty disables the API.
	// +optional
	PolicySyncPathPrefix *string `json:"policySyncPathPrefix,omitempty"`
	// ProgramClusterRoutes says whether Felix (rather than BIRD) programs routes to other nodes' blocks.
	// +optional
	ProgramClusterRoutes *ProgramClusterRoutesMode `json:"programClusterRoutes,omitempty"`
	// PrometheusGoMetricsEnabled includes Go runtime metrics in Felix's Prometheus metrics.
	// +optional
	PrometheusGoMetricsEnabled *bool `json:"prometheusGoMetricsEnabled,omitempty"`
	// PrometheusMetricsEnabled switches Felix's Prometheus metrics endpoint on.
	// +optional
	PrometheusMetricsEnabled *bool `json:"prometheusMetricsEnabled,omitempty"`
	// PrometheusMetricsHost is the address of Felix's Prometheus metrics endpoint.
	// +optional
	PrometheusMetricsHost *string `json:"prometheusMetricsHost,omitempty"`
	// PrometheusMetricsPort is the port of Felix's Prometheus metrics endpoint.
	// +optional
	PrometheusMetricsPort *int `json:"prometheusMetricsPort,omitempty"`
	// PrometheusProcessMetricsEnabled includes process metrics in Felix's Prometheus metrics.
	// +optional
	PrometheusProcessMetricsEnabled *bool `json:"prometheusProcessMetricsEnabled,omitempty"`
	// PrometheusWireGuardMetricsEnabled includes WireGuard metrics in Felix's Prometheus metrics.
	// +optional
	PrometheusWireGuardMetricsEnabled *bool `json:"prometheusWireGuardMetricsEnabled,omitempty"`
	// RemoveExternalRoutes makes Felix remove routes to workload interfaces that it did not program.
	// +optional
	RemoveExternalRoutes *bool `json:"removeExternalRoutes,omitempty"`
	// ReportingInterval is how often Felix reports its status to the datastore.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	ReportingInterval *metav1.Duration `json:"reportingInterval,omitempty"`
	// ReportingTTL is the time to live of Felix's status reports.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	ReportingTTL *metav1.Duration `json:"reportingTTL,omitempty"`
	// RequireMTUFile makes Felix wait for the MTU file written by calico-node before starting.
	// +optional
	RequireMTUFile *bool `json:"requireMTUFile,omitempty"`
	// RouteRefreshInterval is how often Felix re-checks its routes.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	RouteRefreshInterval *metav1.Duration `json:"routeRefreshInterval,omitempty"`
	// RouteSource says where Felix learns workload routes from: WorkloadIPs or CalicoIPAM.
	// +kubebuilder:validation:Pattern=`^(?i)(WorkloadIPs|CalicoIPAM)?$`
	// +optional
	RouteSource *string `json:"routeSource,omitempty"`
	// RouteSyncDisabled stops Felix from programming routes.
	// +optional
	RouteSyncDisabled *bool `json:"routeSyncDisabled,omitempty"`
	// RouteTableRange is the range of routing table indices Felix may use.
	//
	// Deprecated: use RouteTableRanges.
	// +optional
	RouteTableRange *RouteTableRange `json:"routeTableRange,omitempty"`
	// RouteTableRanges are the ranges of routing table indices Felix may use.
	// +optional
	RouteTableRanges []RouteTableRange `json:"routeTableRanges,omitempty"`
	// ServiceLoopPrevention is what Felix does with traffic to unused service IPs, which would loop: Drop, Reject or Disabled.
	// +kubebuilder:validation:Pattern=`^(?i)(Drop|Reject|Disabled)?$`
	// +optional
	ServiceLoopPrevention *string `json:"serviceLoopPrevention,omitempty"`
	// SidecarAccelerationEnabled switches eBPF acceleration of service mesh sidecars on.
	// +optional
	SidecarAccelerationEnabled *bool `json:"sidecarAccelerationEnabled,omitempty"`
	// UsageReportingEnabled sends anonymous usage statistics to the Calico project.
	// +optional
	UsageReportingEnabled *bool `json:"usageReportingEnabled,omitempty"`
	// UsageReportingInitialDelay is the delay before the first usage report.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	UsageReportingInitialDelay *metav1.Duration `json:"usageReportingInitialDelay,omitempty"`
	// UsageReportingInterval is the interval between usage reports.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	UsageReportingInterval *metav1.Duration `json:"usageReportingInterval,omitempty"`
	// UseInternalDataplaneDriver makes Felix use its built-in dataplane driver.
	// +optional
	UseInternalDataplaneDriver *bool `json:"useInternalDataplaneDriver,omitempty"`
	// VXLANEnabled makes Felix set up the IPv4 VXLAN device.
	// +optional
	VXLANEnabled *bool `json:"vxlanEnabled,omitempty"`
	// VXLANMTU is the MTU of the IPv4 VXLAN device.
	// +optional
	VXLANMTU *int `json:"vxlanMTU,omitempty"`
	// VXLANMTUV6 is the MTU of the IPv6 VXLAN device.
	// +optional
	VXLANMTUV6 *int `json:"vxlanMTUV6,omitempty"`
	// VXLANPort is the UDP port of VXLAN traffic.
	// +optional
	VXLANPort *int `json:"vxlanPort,omitempty"`
	// VXLANVNI is the VXLAN network identifier.
	// +optional
	VXLANVNI *int `json:"vxlanVNI,omitempty"`
	// WindowsManageFirewallRules makes Felix open the Windows firewall for its own ports.
	// +optional
	WindowsManageFirewallRules *WindowsManageFirewallRulesMode `json:"windowsManageFirewallRules,omitempty"`
	// WireguardEnabled switches WireGuard encryption of IPv4 pod traffic between nodes on.
	// +optional
	WireguardEnabled *bool `json:"wireguardEnabled,omitempty"`
	// WireguardEnabledV6 switches WireGuard encryption of IPv6 pod traffic between nodes on.
	// +optional
	WireguardEnabledV6 *bool `json:"wireguardEnabledV6,omitempty"`
	// WireguardHostEncryptionEnabled also encrypts host-networked traffic with WireGuard.
	// +optional
	WireguardHostEncryptionEnabled *bool `json:"wireguardHostEncryptionEnabled,omitempty"`
	// WireguardInterfaceName is the name of the IPv4 WireGuard interface.
	// +optional
	WireguardInterfaceName *string `json:"wireguardInterfaceName,omitempty"`
	// WireguardInterfaceNameV6 is the name of the IPv6 WireGuard interface.
	// +optional
	WireguardInterfaceNameV6 *string `json:"wireguardInterfaceNameV6,omitempty"`
	// WireguardKeepAlive is the WireGuard persistent keepalive interval; 0 disables it.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	WireguardKeepAlive *metav1.Duration `json:"wireguardKeepAlive,omitempty"`
	// WireguardListeningPort is the UDP port of IPv4 WireGuard.
	// +optional
	WireguardListeningPort *int `json:"wireguardListeningPort,omitempty"`
	// WireguardListeningPortV6 is the UDP port of IPv6 WireGuard.
	// +optional
	WireguardListeningPortV6 *int `json:"wireguardListeningPortV6,omitempty"`
	// WireguardMTU is the MTU of the IPv4 WireGuard interface.
	// +optional
	WireguardMTU *int `json:"wireguardMTU,omitempty"`
	// WireguardMTUV6 is the MTU of the IPv6 WireGuard interface.
	// +optional
	WireguardMTUV6 *int `json:"wireguardMTUV6,omitempty"`
	// WireguardRoutingRulePriority is the priority of the routing rule for WireGuard traffic.
	// +optional
	WireguardRoutingRulePriority *int `json:"wireguardRoutingRulePriority,omitempty"`
	// WireguardThreadingEnabled switches on threaded NAPI for the WireGuard device.
	// +optional
	WireguardThreadingEnabled *bool `json:"wireguardThreadingEnabled,omitempty"`
	// WorkloadSourceSpoofing says whether workloads may send from addresses other than their own: Disabled or Any.
	// +kubebuilder:validation:Pattern=`^(?i)(Disabled|Any)?$`
	// +optional
	WorkloadSourceSpoofing *string `json:"workloadSourceSpoofing,omitempty"`
	// XDPEnabled switches XDP acceleration of untracked deny policies on.
	// +optional
	XDPEnabled *bool `json:"xdpEnabled,omitempty"`
	// XDPRefreshInterval is how often Felix re-checks its XDP state.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	XDPRefreshInterval *metav1.Duration `json:"xdpRefreshInterval,omitempty"`
}

// BPFConntrackTimeouts are the eBPF conntrack timeouts: a duration, or "Auto" for Felix's choice.
type BPFConntrackTimeouts struct {
	// CreationGracePeriod is how long a new connection may stay unconfirmed.
	// +kubebuilder:validation:Pattern=`^(([0-9]*(\.[0-9]*)?(ms|s|h|m|us)+)+|Auto)$`
	// +optional
	CreationGracePeriod *string `json:"creationGracePeriod,omitempty"`
	// TCPSynSent is the timeout after a TCP SYN.
	// +kubebuilder:validation:Pattern=`^(([0-9]*(\.[0-9]*)?(ms|s|h|m|us)+)+|Auto)$`
	// +optional
	TCPSynSent *string `json:"tcpSynSent,omitempty"`
	// TCPEstablished is the idle timeout of an established TCP connection.
	// +kubebuilder:validation:Pattern=`^(([0-9]*(\.[0-9]*)?(ms|s|h|m|us)+)+|Auto)$`
	// +optional
	TCPEstablished *string `json:"tcpEstablished,omitempty"`
	// TCPFinsSeen is the timeout after both FINs.
	// +kubebuilder:validation:Pattern=`^(([0-9]*(\.[0-9]*)?(ms|s|h|m|us)+)+|Auto)$`
	// +optional
	TCPFinsSeen *string `json:"tcpFinsSeen,omitempty"`
	// TCPResetSeen is the timeout after a TCP RST.
	// +kubebuilder:validation:Pattern=`^(([0-9]*(\.[0-9]*)?(ms|s|h|m|us)+)+|Auto)$`
	// +optional
	TCPResetSeen *string `json:"tcpResetSeen,omitempty"`
	// UDPTimeout is the idle timeout of UDP flows.
	// +kubebuilder:validation:Pattern=`^(([0-9]*(\.[0-9]*)?(ms|s|h|m|us)+)+|Auto)$`
	// +optional
	UDPTimeout *string `json:"udpTimeout,omitempty"`
	// GenericTimeout is the idle timeout of other protocols.
	// +kubebuilder:validation:Pattern=`^(([0-9]*(\.[0-9]*)?(ms|s|h|m|us)+)+|Auto)$`
	// +optional
	GenericTimeout *string `json:"genericTimeout,omitempty"`
	// ICMPTimeout is the idle timeout of ICMP flows.
	// +kubebuilder:validation:Pattern=`^(([0-9]*(\.[0-9]*)?(ms|s|h|m|us)+)+|Auto)$`
	// +optional
	ICMPTimeout *string `json:"icmpTimeout,omitempty"`
}

// ProtoPort is a protocol, port and optional network, used for failsafe ports.
type ProtoPort struct {
	// Protocol is TCP, UDP or SCTP.
	// +optional
	Protocol string `json:"protocol,omitempty"`
	// Port is the port number.
	Port uint16 `json:"port"`
	// Net restricts the rule to a CIDR.
	// +optional
	Net string `json:"net,omitempty"`
}

// HealthTimeoutOverride overrides the health timeout of one Felix component.
type HealthTimeoutOverride struct {
	// Name is the component's name.
	Name string `json:"name"`
	// Timeout is the component's health timeout.
	Timeout metav1.Duration `json:"timeout"`
}

// RouteTableRange is a range of Linux routing table indices.
type RouteTableRange struct {
	// Min is the first table index.
	Min int `json:"min"`
	// Max is the last table index.
	Max int `json:"max"`
}

// +kubebuilder:object:root=true

// FelixConfigurationList is a list of FelixConfiguration.
type FelixConfigurationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the configurations.
	Items []FelixConfiguration `json:"items"`
}

// BPFJITHardeningType is the kernel's eBPF JIT hardening Felix asks for.
// +kubebuilder:validation:Enum=Auto;Strict
type BPFJITHardeningType string
