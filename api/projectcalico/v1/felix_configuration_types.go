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
	// AllowIPIPPacketsFromWorkloads is Felix's AllowIPIPPacketsFromWorkloads parameter.
	// +optional
	AllowIPIPPacketsFromWorkloads *bool `json:"allowIPIPPacketsFromWorkloads,omitempty"`
	// AllowVXLANPacketsFromWorkloads is Felix's AllowVXLANPacketsFromWorkloads parameter.
	// +optional
	AllowVXLANPacketsFromWorkloads *bool `json:"allowVXLANPacketsFromWorkloads,omitempty"`
	// AWSSrcDstCheck is Felix's AWSSrcDstCheck parameter.
	// +optional
	AWSSrcDstCheck *AWSSrcDstCheckOption `json:"awsSrcDstCheck,omitempty"`
	// BPFAttachType is Felix's BPFAttachType parameter.
	// +optional
	BPFAttachType *BPFAttachOption `json:"bpfAttachType,omitempty"`
	// BPFCTLBLogFilter is Felix's BPFCTLBLogFilter parameter.
	// +optional
	BPFCTLBLogFilter *string `json:"bpfCTLBLogFilter,omitempty"`
	// BPFConnectTimeLoadBalancing is Felix's BPFConnectTimeLoadBalancing parameter.
	// +optional
	BPFConnectTimeLoadBalancing *BPFConnectTimeLBType `json:"bpfConnectTimeLoadBalancing,omitempty"`
	// BPFConnectTimeLoadBalancingEnabled is Felix's BPFConnectTimeLoadBalancingEnabled parameter.
	// +optional
	BPFConnectTimeLoadBalancingEnabled *bool `json:"bpfConnectTimeLoadBalancingEnabled,omitempty"`
	// BPFConntrackLogLevel is Felix's BPFConntrackLogLevel parameter.
	// +optional
	BPFConntrackLogLevel *BPFConntrackLogLevel `json:"bpfConntrackLogLevel,omitempty"`
	// BPFConntrackMode is Felix's BPFConntrackMode parameter.
	// +optional
	BPFConntrackMode *BPFConntrackMode `json:"bpfConntrackMode,omitempty"`
	// BPFConntrackTimeouts is Felix's BPFConntrackTimeouts parameter.
	// +optional
	BPFConntrackTimeouts *BPFConntrackTimeouts `json:"bpfConntrackTimeouts,omitempty"`
	// BPFDSROptoutCIDRs is Felix's BPFDSROptoutCIDRs parameter.
	// +optional
	BPFDSROptoutCIDRs []string `json:"bpfDSROptoutCIDRs,omitempty"`
	// BPFDataIfacePattern is Felix's BPFDataIfacePattern parameter.
	// +optional
	BPFDataIfacePattern *string `json:"bpfDataIfacePattern,omitempty"`
	// BPFDisableGROForIfaces is Felix's BPFDisableGROForIfaces parameter.
	// +optional
	BPFDisableGROForIfaces *string `json:"bpfDisableGROForIfaces,omitempty"`
	// BPFDisableUnprivileged is Felix's BPFDisableUnprivileged parameter.
	// +optional
	BPFDisableUnprivileged *bool `json:"bpfDisableUnprivileged,omitempty"`
	// BPFEnabled is Felix's BPFEnabled parameter.
	// +optional
	BPFEnabled *bool `json:"bpfEnabled,omitempty"`
	// BPFEnforceRPF is Felix's BPFEnforceRPF parameter.
	// +kubebuilder:validation:Pattern=`^(?i)(Disabled|Strict|Loose)?$`
	// +optional
	BPFEnforceRPF *string `json:"bpfEnforceRPF,omitempty"`
	// BPFExcludeCIDRsFromNAT is Felix's BPFExcludeCIDRsFromNAT parameter.
	// +optional
	BPFExcludeCIDRsFromNAT []string `json:"bpfExcludeCIDRsFromNAT,omitempty"`
	// BPFExportBufferSizeMB is Felix's BPFExportBufferSizeMB parameter.
	// +optional
	BPFExportBufferSizeMB *int `json:"bpfExportBufferSizeMB,omitempty"`
	// BPFExtToServiceConnmark is Felix's BPFExtToServiceConnmark parameter.
	// +optional
	BPFExtToServiceConnmark *int `json:"bpfExtToServiceConnmark,omitempty"`
	// BPFExternalServiceMode is Felix's BPFExternalServiceMode parameter.
	// +kubebuilder:validation:Pattern=`^(?i)(Tunnel|DSR)?$`
	// +optional
	BPFExternalServiceMode *string `json:"bpfExternalServiceMode,omitempty"`
	// BPFForceTrackPacketsFromIfaces is Felix's BPFForceTrackPacketsFromIfaces parameter.
	// +optional
	BPFForceTrackPacketsFromIfaces []string `json:"bpfForceTrackPacketsFromIfaces,omitempty"`
	// BPFHostConntrackBypass is Felix's BPFHostConntrackBypass parameter.
	// +optional
	BPFHostConntrackBypass *bool `json:"bpfHostConntrackBypass,omitempty"`
	// BPFHostNetworkedNATWithoutCTLB is Felix's BPFHostNetworkedNATWithoutCTLB parameter.
	// +optional
	BPFHostNetworkedNATWithoutCTLB *BPFHostNetworkedNATType `json:"bpfHostNetworkedNATWithoutCTLB,omitempty"`
	// BPFJITHardening is Felix's BPFJITHardening parameter.
	// +optional
	BPFJITHardening *string `json:"bpfJITHardening,omitempty"`
	// BPFKubeProxyEndpointSlicesEnabled is Felix's BPFKubeProxyEndpointSlicesEnabled parameter.
	// +optional
	BPFKubeProxyEndpointSlicesEnabled *bool `json:"bpfKubeProxyEndpointSlicesEnabled,omitempty"`
	// BPFKubeProxyHealthzPort is Felix's BPFKubeProxyHealthzPort parameter.
	// +optional
	BPFKubeProxyHealthzPort *int `json:"bpfKubeProxyHealthzPort,omitempty"`
	// BPFKubeProxyIptablesCleanupEnabled is Felix's BPFKubeProxyIptablesCleanupEnabled parameter.
	// +optional
	BPFKubeProxyIptablesCleanupEnabled *bool `json:"bpfKubeProxyIptablesCleanupEnabled,omitempty"`
	// BPFKubeProxyMinSyncPeriod is Felix's BPFKubeProxyMinSyncPeriod parameter.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	BPFKubeProxyMinSyncPeriod *metav1.Duration `json:"bpfKubeProxyMinSyncPeriod,omitempty"`
	// BPFL3IfacePattern is Felix's BPFL3IfacePattern parameter.
	// +optional
	BPFL3IfacePattern *string `json:"bpfL3IfacePattern,omitempty"`
	// BPFLogFilters is Felix's BPFLogFilters parameter.
	// +optional
	BPFLogFilters map[string]string `json:"bpfLogFilters,omitempty"`
	// BPFLogLevel is Felix's BPFLogLevel parameter.
	// +kubebuilder:validation:Pattern=`^(?i)(Off|Info|Debug)?$`
	// +optional
	BPFLogLevel *string `json:"bpfLogLevel,omitempty"`
	// BPFMapSizeConntrack is Felix's BPFMapSizeConntrack parameter.
	// +optional
	BPFMapSizeConntrack *int `json:"bpfMapSizeConntrack,omitempty"`
	// BPFMapSizeConntrackCleanupQueue is Felix's BPFMapSizeConntrackCleanupQueue parameter.
	// +kubebuilder:validation:Minimum=1
	// +optional
	BPFMapSizeConntrackCleanupQueue *int `json:"bpfMapSizeConntrackCleanupQueue,omitempty"`
	// BPFMapSizeConntrackScaling is Felix's BPFMapSizeConntrackScaling parameter.
	// +kubebuilder:validation:Pattern=`^(?i)(Disabled|DoubleIfFull)?$`
	// +optional
	BPFMapSizeConntrackScaling *string `json:"bpfMapSizeConntrackScaling,omitempty"`
	// BPFMapSizeIPSets is Felix's BPFMapSizeIPSets parameter.
	// +optional
	BPFMapSizeIPSets *int `json:"bpfMapSizeIPSets,omitempty"`
	// BPFMapSizeIfState is Felix's BPFMapSizeIfState parameter.
	// +optional
	BPFMapSizeIfState *int `json:"bpfMapSizeIfState,omitempty"`
	// BPFMapSizeNATAffinity is Felix's BPFMapSizeNATAffinity parameter.
	// +optional
	BPFMapSizeNATAffinity *int `json:"bpfMapSizeNATAffinity,omitempty"`
	// BPFMapSizeNATBackend is Felix's BPFMapSizeNATBackend parameter.
	// +optional
	BPFMapSizeNATBackend *int `json:"bpfMapSizeNATBackend,omitempty"`
	// BPFMapSizeNATFrontend is Felix's BPFMapSizeNATFrontend parameter.
	// +optional
	BPFMapSizeNATFrontend *int `json:"bpfMapSizeNATFrontend,omitempty"`
	// BPFMapSizePerCpuConntrack is Felix's BPFMapSizePerCpuConntrack parameter.
	// +optional
	BPFMapSizePerCpuConntrack *int `json:"bpfMapSizePerCpuConntrack,omitempty"`
	// BPFMapSizeRoute is Felix's BPFMapSizeRoute parameter.
	// +optional
	BPFMapSizeRoute *int `json:"bpfMapSizeRoute,omitempty"`
	// BPFPSNATPorts is Felix's BPFPSNATPorts parameter.
	// +kubebuilder:validation:Pattern=`^.*`
	// +kubebuilder:validation:XIntOrString
	// +optional
	BPFPSNATPorts *intstr.IntOrString `json:"bpfPSNATPorts,omitempty"`
	// BPFPolicyDebugEnabled is Felix's BPFPolicyDebugEnabled parameter.
	// +optional
	BPFPolicyDebugEnabled *bool `json:"bpfPolicyDebugEnabled,omitempty"`
	// BPFProfiling is Felix's BPFProfiling parameter.
	// +optional
	BPFProfiling *BPFProfilingMode `json:"bpfProfiling,omitempty"`
	// BPFRedirectToPeer is Felix's BPFRedirectToPeer parameter.
	// +optional
	BPFRedirectToPeer *BPFRedirectToPeerMode `json:"bpfRedirectToPeer,omitempty"`
	// CgroupV2Path is Felix's CgroupV2Path parameter.
	// +optional
	CgroupV2Path *string `json:"cgroupV2Path,omitempty"`
	// ChainInsertMode is Felix's ChainInsertMode parameter.
	// +kubebuilder:validation:Pattern=`^(?i)(Insert|Append)?$`
	// +optional
	ChainInsertMode *string `json:"chainInsertMode,omitempty"`
	// DataplaneDriver is Felix's DataplaneDriver parameter.
	// +optional
	DataplaneDriver *string `json:"dataplaneDriver,omitempty"`
	// DataplaneWatchdogTimeout is Felix's DataplaneWatchdogTimeout parameter.
	// +optional
	DataplaneWatchdogTimeout *metav1.Duration `json:"dataplaneWatchdogTimeout,omitempty"`
	// DebugDisableLogDropping is Felix's DebugDisableLogDropping parameter.
	// +optional
	DebugDisableLogDropping *bool `json:"debugDisableLogDropping,omitempty"`
	// DebugHost is Felix's DebugHost parameter.
	// +optional
	DebugHost *string `json:"debugHost,omitempty"`
	// DebugMemoryProfilePath is Felix's DebugMemoryProfilePath parameter.
	// +optional
	DebugMemoryProfilePath *string `json:"debugMemoryProfilePath,omitempty"`
	// DebugPort is Felix's DebugPort parameter.
	// +optional
	DebugPort *int `json:"debugPort,omitempty"`
	// DebugSimulateCalcGraphHangAfter is Felix's DebugSimulateCalcGraphHangAfter parameter.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	DebugSimulateCalcGraphHangAfter *metav1.Duration `json:"debugSimulateCalcGraphHangAfter,omitempty"`
	// DebugSimulateDataplaneApplyDelay is Felix's DebugSimulateDataplaneApplyDelay parameter.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	DebugSimulateDataplaneApplyDelay *metav1.Duration `json:"debugSimulateDataplaneApplyDelay,omitempty"`
	// DebugSimulateDataplaneHangAfter is Felix's DebugSimulateDataplaneHangAfter parameter.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	DebugSimulateDataplaneHangAfter *metav1.Duration `json:"debugSimulateDataplaneHangAfter,omitempty"`
	// DefaultEndpointToHostAction is Felix's DefaultEndpointToHostAction parameter.
	// +kubebuilder:validation:Pattern=`^(?i)(Drop|Accept|Return)?$`
	// +optional
	DefaultEndpointToHostAction *string `json:"defaultEndpointToHostAction,omitempty"`
	// DeviceRouteProtocol is Felix's DeviceRouteProtocol parameter.
	// +optional
	DeviceRouteProtocol *int `json:"deviceRouteProtocol,omitempty"`
	// DeviceRouteSourceAddress is Felix's DeviceRouteSourceAddress parameter.
	// +optional
	DeviceRouteSourceAddress *string `json:"deviceRouteSourceAddress,omitempty"`
	// DeviceRouteSourceAddressIPv6 is Felix's DeviceRouteSourceAddressIPv6 parameter.
	// +optional
	DeviceRouteSourceAddressIPv6 *string `json:"deviceRouteSourceAddressIPv6,omitempty"`
	// DisableConntrackInvalidCheck is Felix's DisableConntrackInvalidCheck parameter.
	// +optional
	DisableConntrackInvalidCheck *bool `json:"disableConntrackInvalidCheck,omitempty"`
	// EndpointReportingDelay is Felix's EndpointReportingDelay parameter.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	EndpointReportingDelay *metav1.Duration `json:"endpointReportingDelay,omitempty"`
	// EndpointReportingEnabled is Felix's EndpointReportingEnabled parameter.
	// +optional
	EndpointReportingEnabled *bool `json:"endpointReportingEnabled,omitempty"`
	// EndpointStatusPathPrefix is Felix's EndpointStatusPathPrefix parameter.
	// +optional
	EndpointStatusPathPrefix *string `json:"endpointStatusPathPrefix,omitempty"`
	// ExternalNodesList is Felix's ExternalNodesList parameter.
	// +optional
	ExternalNodesList []string `json:"externalNodesList,omitempty"`
	// FailsafeInboundHostPorts is Felix's FailsafeInboundHostPorts parameter.
	// +optional
	FailsafeInboundHostPorts []ProtoPort `json:"failsafeInboundHostPorts,omitempty"`
	// FailsafeOutboundHostPorts is Felix's FailsafeOutboundHostPorts parameter.
	// +optional
	FailsafeOutboundHostPorts []ProtoPort `json:"failsafeOutboundHostPorts,omitempty"`
	// FeatureDetectOverride is Felix's FeatureDetectOverride parameter.
	// +kubebuilder:validation:Pattern=`^([a-zA-Z0-9-_]+=(true|false|),)*([a-zA-Z0-9-_]+=(true|false|))?$`
	// +optional
	FeatureDetectOverride *string `json:"featureDetectOverride,omitempty"`
	// FeatureGates is Felix's FeatureGates parameter.
	// +kubebuilder:validation:Pattern=`^([a-zA-Z0-9-_]+=([^=]+),)*([a-zA-Z0-9-_]+=([^=]+))?$`
	// +optional
	FeatureGates *string `json:"featureGates,omitempty"`
	// FloatingIPs is Felix's FloatingIPs parameter.
	// +optional
	FloatingIPs *FloatingIPType `json:"floatingIPs,omitempty"`
	// FlowLogsCollectorDebugTrace is Felix's FlowLogsCollectorDebugTrace parameter.
	// +optional
	FlowLogsCollectorDebugTrace *bool `json:"flowLogsCollectorDebugTrace,omitempty"`
	// FlowLogsFlushInterval is Felix's FlowLogsFlushInterval parameter.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	FlowLogsFlushInterval *metav1.Duration `json:"flowLogsFlushInterval,omitempty"`
	// FlowLogsGoldmaneServer is Felix's FlowLogsGoldmaneServer parameter.
	// +optional
	FlowLogsGoldmaneServer *string `json:"flowLogsGoldmaneServer,omitempty"`
	// FlowLogsLocalReporter is Felix's FlowLogsLocalReporter parameter.
	// +optional
	FlowLogsLocalReporter *FlowLogsLocalReporterMode `json:"flowLogsLocalReporter,omitempty"`
	// FlowLogsPolicyEvaluationMode is Felix's FlowLogsPolicyEvaluationMode parameter.
	// +optional
	FlowLogsPolicyEvaluationMode *FlowLogsPolicyEvaluationMode `json:"flowLogsPolicyEvaluationMode,omitempty"`
	// GenericXDPEnabled is Felix's GenericXDPEnabled parameter.
	// +optional
	GenericXDPEnabled *bool `json:"genericXDPEnabled,omitempty"`
	// GoGCThreshold is Felix's GoGCThreshold parameter.
	// +optional
	GoGCThreshold *int `json:"goGCThreshold,omitempty"`
	// GoMaxProcs is Felix's GoMaxProcs parameter.
	// +optional
	GoMaxProcs *int `json:"goMaxProcs,omitempty"`
	// GoMemoryLimitMB is Felix's GoMemoryLimitMB parameter.
	// +optional
	GoMemoryLimitMB *int `json:"goMemoryLimitMB,omitempty"`
	// HealthEnabled is Felix's HealthEnabled parameter.
	// +optional
	HealthEnabled *bool `json:"healthEnabled,omitempty"`
	// HealthHost is Felix's HealthHost parameter.
	// +optional
	HealthHost *string `json:"healthHost,omitempty"`
	// HealthPort is Felix's HealthPort parameter.
	// +optional
	HealthPort *int `json:"healthPort,omitempty"`
	// HealthTimeoutOverrides is Felix's HealthTimeoutOverrides parameter.
	// +optional
	HealthTimeoutOverrides []HealthTimeoutOverride `json:"healthTimeoutOverrides,omitempty"`
	// InterfaceExclude is Felix's InterfaceExclude parameter.
	// +optional
	InterfaceExclude *string `json:"interfaceExclude,omitempty"`
	// InterfacePrefix is Felix's InterfacePrefix parameter.
	// +optional
	InterfacePrefix *string `json:"interfacePrefix,omitempty"`
	// InterfaceRefreshInterval is Felix's InterfaceRefreshInterval parameter.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	InterfaceRefreshInterval *metav1.Duration `json:"interfaceRefreshInterval,omitempty"`
	// IPForwarding is Felix's IPForwarding parameter.
	// +optional
	IPForwarding *IPForwardingMode `json:"ipForwarding,omitempty"`
	// IPIPEnabled is Felix's IPIPEnabled parameter.
	// +optional
	IPIPEnabled *bool `json:"ipipEnabled,omitempty"`
	// IPIPMTU is Felix's IPIPMTU parameter.
	// +optional
	IPIPMTU *int `json:"ipipMTU,omitempty"`
	// IPSetsRefreshInterval is Felix's IPSetsRefreshInterval parameter.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	IPSetsRefreshInterval *metav1.Duration `json:"ipsetsRefreshInterval,omitempty"`
	// IptablesBackend is Felix's IptablesBackend parameter.
	// +kubebuilder:validation:Pattern=`^(?i)(Auto|Legacy|NFT)?$`
	// +optional
	IptablesBackend *string `json:"iptablesBackend,omitempty"`
	// IptablesFilterAllowAction is Felix's IptablesFilterAllowAction parameter.
	// +kubebuilder:validation:Pattern=`^(?i)(Accept|Return)?$`
	// +optional
	IptablesFilterAllowAction *string `json:"iptablesFilterAllowAction,omitempty"`
	// IptablesFilterDenyAction is Felix's IptablesFilterDenyAction parameter.
	// +kubebuilder:validation:Pattern=`^(?i)(Drop|Reject)?$`
	// +optional
	IptablesFilterDenyAction *string `json:"iptablesFilterDenyAction,omitempty"`
	// IptablesLockFilePath is Felix's IptablesLockFilePath parameter.
	// +optional
	IptablesLockFilePath *string `json:"iptablesLockFilePath,omitempty"`
	// IptablesLockProbeInterval is Felix's IptablesLockProbeInterval parameter.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	IptablesLockProbeInterval *metav1.Duration `json:"iptablesLockProbeInterval,omitempty"`
	// IptablesLockTimeout is Felix's IptablesLockTimeout parameter.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	IptablesLockTimeout *metav1.Duration `json:"iptablesLockTimeout,omitempty"`
	// IptablesMangleAllowAction is Felix's IptablesMangleAllowAction parameter.
	// +kubebuilder:validation:Pattern=`^(?i)(Accept|Return)?$`
	// +optional
	IptablesMangleAllowAction *string `json:"iptablesMangleAllowAction,omitempty"`
	// IptablesMarkMask is Felix's IptablesMarkMask parameter.
	// +optional
	IptablesMarkMask *uint32 `json:"iptablesMarkMask,omitempty"`
	// IptablesNATOutgoingInterfaceFilter is Felix's IptablesNATOutgoingInterfaceFilter parameter.
	// +optional
	IptablesNATOutgoingInterfaceFilter *string `json:"iptablesNATOutgoingInterfaceFilter,omitempty"`
	// IptablesPostWriteCheckInterval is Felix's IptablesPostWriteCheckInterval parameter.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	IptablesPostWriteCheckInterval *metav1.Duration `json:"iptablesPostWriteCheckInterval,omitempty"`
	// IptablesRefreshInterval is Felix's IptablesRefreshInterval parameter.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	IptablesRefreshInterval *metav1.Duration `json:"iptablesRefreshInterval,omitempty"`
	// IPv6Support is Felix's IPv6Support parameter.
	// +optional
	IPv6Support *bool `json:"ipv6Support,omitempty"`
	// KubeNodePortRanges is Felix's KubeNodePortRanges parameter.
	// +optional
	KubeNodePortRanges []intstr.IntOrString `json:"kubeNodePortRanges,omitempty"`
	// LogActionRateLimit is Felix's LogActionRateLimit parameter.
	// +kubebuilder:validation:Pattern=`^[1-9]\d{0,3}/(?:second|minute|hour|day)$`
	// +optional
	LogActionRateLimit *string `json:"logActionRateLimit,omitempty"`
	// LogActionRateLimitBurst is Felix's LogActionRateLimitBurst parameter.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=9999
	// +optional
	LogActionRateLimitBurst *int `json:"logActionRateLimitBurst,omitempty"`
	// LogDebugFilenameRegex is Felix's LogDebugFilenameRegex parameter.
	// +optional
	LogDebugFilenameRegex *string `json:"logDebugFilenameRegex,omitempty"`
	// LogFilePath is Felix's LogFilePath parameter.
	// +optional
	LogFilePath *string `json:"logFilePath,omitempty"`
	// LogPrefix is Felix's LogPrefix parameter.
	// +kubebuilder:validation:Pattern=`^([a-zA-Z0-9%: /_-])*$`
	// +optional
	LogPrefix *string `json:"logPrefix,omitempty"`
	// LogSeverityFile is Felix's LogSeverityFile parameter.
	// +kubebuilder:validation:Pattern=`^(?i)(Trace|Debug|Info|Warning|Error|Fatal)?$`
	// +optional
	LogSeverityFile *string `json:"logSeverityFile,omitempty"`
	// LogSeverityScreen is Felix's LogSeverityScreen parameter.
	// +kubebuilder:validation:Pattern=`^(?i)(Trace|Debug|Info|Warning|Error|Fatal)?$`
	// +optional
	LogSeverityScreen *string `json:"logSeverityScreen,omitempty"`
	// LogSeveritySys is Felix's LogSeveritySys parameter.
	// +kubebuilder:validation:Pattern=`^(?i)(Trace|Debug|Info|Warning|Error|Fatal)?$`
	// +optional
	LogSeveritySys *string `json:"logSeveritySys,omitempty"`
	// MaxIpsetSize is Felix's MaxIpsetSize parameter.
	// +optional
	MaxIpsetSize *int `json:"maxIpsetSize,omitempty"`
	// MetadataAddr is Felix's MetadataAddr parameter.
	// +optional
	MetadataAddr *string `json:"metadataAddr,omitempty"`
	// MetadataPort is Felix's MetadataPort parameter.
	// +optional
	MetadataPort *int `json:"metadataPort,omitempty"`
	// MTUIfacePattern is Felix's MTUIfacePattern parameter.
	// +optional
	MTUIfacePattern *string `json:"mtuIfacePattern,omitempty"`
	// NATOutgoingAddress is Felix's NATOutgoingAddress parameter.
	// +optional
	NATOutgoingAddress *string `json:"natOutgoingAddress,omitempty"`
	// NATOutgoingExclusions is Felix's NATOutgoingExclusions parameter.
	// +optional
	NATOutgoingExclusions *NATOutgoingExclusionsType `json:"natOutgoingExclusions,omitempty"`
	// NATPortRange is Felix's NATPortRange parameter.
	// +kubebuilder:validation:Pattern=`^.*`
	// +kubebuilder:validation:XIntOrString
	// +optional
	NATPortRange *intstr.IntOrString `json:"natPortRange,omitempty"`
	// NetlinkTimeout is Felix's NetlinkTimeout parameter.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	NetlinkTimeout *metav1.Duration `json:"netlinkTimeout,omitempty"`
	// NftablesFilterAllowAction is Felix's NftablesFilterAllowAction parameter.
	// +kubebuilder:validation:Pattern=`^(?i)(Accept|Return)?$`
	// +optional
	NftablesFilterAllowAction *string `json:"nftablesFilterAllowAction,omitempty"`
	// NftablesFilterDenyAction is Felix's NftablesFilterDenyAction parameter.
	// +kubebuilder:validation:Pattern=`^(?i)(Drop|Reject)?$`
	// +optional
	NftablesFilterDenyAction *string `json:"nftablesFilterDenyAction,omitempty"`
	// NftablesMangleAllowAction is Felix's NftablesMangleAllowAction parameter.
	// +kubebuilder:validation:Pattern=`^(?i)(Accept|Return)?$`
	// +optional
	NftablesMangleAllowAction *string `json:"nftablesMangleAllowAction,omitempty"`
	// NftablesMarkMask is Felix's NftablesMarkMask parameter.
	// +optional
	NftablesMarkMask *uint32 `json:"nftablesMarkMask,omitempty"`
	// NftablesMode is Felix's NftablesMode parameter.
	// +optional
	NftablesMode *NFTablesMode `json:"nftablesMode,omitempty"`
	// NftablesRefreshInterval is Felix's NftablesRefreshInterval parameter.
	// +optional
	NftablesRefreshInterval *metav1.Duration `json:"nftablesRefreshInterval,omitempty"`
	// OpenstackRegion is Felix's OpenstackRegion parameter.
	// +optional
	OpenstackRegion *string `json:"openstackRegion,omitempty"`
	// PolicySyncPathPrefix is Felix's PolicySyncPathPrefix parameter.
	// +optional
	PolicySyncPathPrefix *string `json:"policySyncPathPrefix,omitempty"`
	// ProgramClusterRoutes is Felix's ProgramClusterRoutes parameter.
	// +optional
	ProgramClusterRoutes *ProgramClusterRoutesMode `json:"programClusterRoutes,omitempty"`
	// PrometheusGoMetricsEnabled is Felix's PrometheusGoMetricsEnabled parameter.
	// +optional
	PrometheusGoMetricsEnabled *bool `json:"prometheusGoMetricsEnabled,omitempty"`
	// PrometheusMetricsEnabled is Felix's PrometheusMetricsEnabled parameter.
	// +optional
	PrometheusMetricsEnabled *bool `json:"prometheusMetricsEnabled,omitempty"`
	// PrometheusMetricsHost is Felix's PrometheusMetricsHost parameter.
	// +optional
	PrometheusMetricsHost *string `json:"prometheusMetricsHost,omitempty"`
	// PrometheusMetricsPort is Felix's PrometheusMetricsPort parameter.
	// +optional
	PrometheusMetricsPort *int `json:"prometheusMetricsPort,omitempty"`
	// PrometheusProcessMetricsEnabled is Felix's PrometheusProcessMetricsEnabled parameter.
	// +optional
	PrometheusProcessMetricsEnabled *bool `json:"prometheusProcessMetricsEnabled,omitempty"`
	// PrometheusWireGuardMetricsEnabled is Felix's PrometheusWireGuardMetricsEnabled parameter.
	// +optional
	PrometheusWireGuardMetricsEnabled *bool `json:"prometheusWireGuardMetricsEnabled,omitempty"`
	// RemoveExternalRoutes is Felix's RemoveExternalRoutes parameter.
	// +optional
	RemoveExternalRoutes *bool `json:"removeExternalRoutes,omitempty"`
	// ReportingInterval is Felix's ReportingInterval parameter.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	ReportingInterval *metav1.Duration `json:"reportingInterval,omitempty"`
	// ReportingTTL is Felix's ReportingTTL parameter.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	ReportingTTL *metav1.Duration `json:"reportingTTL,omitempty"`
	// RequireMTUFile is Felix's RequireMTUFile parameter.
	// +optional
	RequireMTUFile *bool `json:"requireMTUFile,omitempty"`
	// RouteRefreshInterval is Felix's RouteRefreshInterval parameter.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	RouteRefreshInterval *metav1.Duration `json:"routeRefreshInterval,omitempty"`
	// RouteSource is Felix's RouteSource parameter.
	// +kubebuilder:validation:Pattern=`^(?i)(WorkloadIPs|CalicoIPAM)?$`
	// +optional
	RouteSource *string `json:"routeSource,omitempty"`
	// RouteSyncDisabled is Felix's RouteSyncDisabled parameter.
	// +optional
	RouteSyncDisabled *bool `json:"routeSyncDisabled,omitempty"`
	// RouteTableRange is Felix's RouteTableRange parameter.
	// +optional
	RouteTableRange *RouteTableRange `json:"routeTableRange,omitempty"`
	// RouteTableRanges is Felix's RouteTableRanges parameter.
	// +optional
	RouteTableRanges []RouteTableRange `json:"routeTableRanges,omitempty"`
	// ServiceLoopPrevention is Felix's ServiceLoopPrevention parameter.
	// +kubebuilder:validation:Pattern=`^(?i)(Drop|Reject|Disabled)?$`
	// +optional
	ServiceLoopPrevention *string `json:"serviceLoopPrevention,omitempty"`
	// SidecarAccelerationEnabled is Felix's SidecarAccelerationEnabled parameter.
	// +optional
	SidecarAccelerationEnabled *bool `json:"sidecarAccelerationEnabled,omitempty"`
	// UsageReportingEnabled is Felix's UsageReportingEnabled parameter.
	// +optional
	UsageReportingEnabled *bool `json:"usageReportingEnabled,omitempty"`
	// UsageReportingInitialDelay is Felix's UsageReportingInitialDelay parameter.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	UsageReportingInitialDelay *metav1.Duration `json:"usageReportingInitialDelay,omitempty"`
	// UsageReportingInterval is Felix's UsageReportingInterval parameter.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	UsageReportingInterval *metav1.Duration `json:"usageReportingInterval,omitempty"`
	// UseInternalDataplaneDriver is Felix's UseInternalDataplaneDriver parameter.
	// +optional
	UseInternalDataplaneDriver *bool `json:"useInternalDataplaneDriver,omitempty"`
	// VXLANEnabled is Felix's VXLANEnabled parameter.
	// +optional
	VXLANEnabled *bool `json:"vxlanEnabled,omitempty"`
	// VXLANMTU is Felix's VXLANMTU parameter.
	// +optional
	VXLANMTU *int `json:"vxlanMTU,omitempty"`
	// VXLANMTUV6 is Felix's VXLANMTUV6 parameter.
	// +optional
	VXLANMTUV6 *int `json:"vxlanMTUV6,omitempty"`
	// VXLANPort is Felix's VXLANPort parameter.
	// +optional
	VXLANPort *int `json:"vxlanPort,omitempty"`
	// VXLANVNI is Felix's VXLANVNI parameter.
	// +optional
	VXLANVNI *int `json:"vxlanVNI,omitempty"`
	// WindowsManageFirewallRules is Felix's WindowsManageFirewallRules parameter.
	// +optional
	WindowsManageFirewallRules *WindowsManageFirewallRulesMode `json:"windowsManageFirewallRules,omitempty"`
	// WireguardEnabled is Felix's WireguardEnabled parameter.
	// +optional
	WireguardEnabled *bool `json:"wireguardEnabled,omitempty"`
	// WireguardEnabledV6 is Felix's WireguardEnabledV6 parameter.
	// +optional
	WireguardEnabledV6 *bool `json:"wireguardEnabledV6,omitempty"`
	// WireguardHostEncryptionEnabled is Felix's WireguardHostEncryptionEnabled parameter.
	// +optional
	WireguardHostEncryptionEnabled *bool `json:"wireguardHostEncryptionEnabled,omitempty"`
	// WireguardInterfaceName is Felix's WireguardInterfaceName parameter.
	// +optional
	WireguardInterfaceName *string `json:"wireguardInterfaceName,omitempty"`
	// WireguardInterfaceNameV6 is Felix's WireguardInterfaceNameV6 parameter.
	// +optional
	WireguardInterfaceNameV6 *string `json:"wireguardInterfaceNameV6,omitempty"`
	// WireguardKeepAlive is Felix's WireguardKeepAlive parameter.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\\.[0-9]+)?(ms|s|m|h))*$`
	// +optional
	WireguardKeepAlive *metav1.Duration `json:"wireguardKeepAlive,omitempty"`
	// WireguardListeningPort is Felix's WireguardListeningPort parameter.
	// +optional
	WireguardListeningPort *int `json:"wireguardListeningPort,omitempty"`
	// WireguardListeningPortV6 is Felix's WireguardListeningPortV6 parameter.
	// +optional
	WireguardListeningPortV6 *int `json:"wireguardListeningPortV6,omitempty"`
	// WireguardMTU is Felix's WireguardMTU parameter.
	// +optional
	WireguardMTU *int `json:"wireguardMTU,omitempty"`
	// WireguardMTUV6 is Felix's WireguardMTUV6 parameter.
	// +optional
	WireguardMTUV6 *int `json:"wireguardMTUV6,omitempty"`
	// WireguardRoutingRulePriority is Felix's WireguardRoutingRulePriority parameter.
	// +optional
	WireguardRoutingRulePriority *int `json:"wireguardRoutingRulePriority,omitempty"`
	// WireguardThreadingEnabled is Felix's WireguardThreadingEnabled parameter.
	// +optional
	WireguardThreadingEnabled *bool `json:"wireguardThreadingEnabled,omitempty"`
	// WorkloadSourceSpoofing is Felix's WorkloadSourceSpoofing parameter.
	// +kubebuilder:validation:Pattern=`^(?i)(Disabled|Any)?$`
	// +optional
	WorkloadSourceSpoofing *string `json:"workloadSourceSpoofing,omitempty"`
	// XDPEnabled is Felix's XDPEnabled parameter.
	// +optional
	XDPEnabled *bool `json:"xdpEnabled,omitempty"`
	// XDPRefreshInterval is Felix's XDPRefreshInterval parameter.
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
