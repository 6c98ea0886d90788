package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ClusterName is the one name a Cluster object may have: there is one Calico per cluster.
const ClusterName = "default"

// Cluster is the cluster file of `calico-pilot apply -f` and the object `calico-pilot manage`
// reconciles: the NetworkConfig, the facts about the cluster that Gardener would otherwise tell, and
// which optional components run. Its fields are at the top level, as in the file (docs/manage.md).
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=cpc
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Available",type=string,JSONPath=`.status.conditions[?(@.type=="Available")].status`
// +kubebuilder:printcolumn:name="Progressing",type=string,JSONPath=`.status.conditions[?(@.type=="Progressing")].status`
// +kubebuilder:printcolumn:name="Degraded",type=string,JSONPath=`.status.conditions[?(@.type=="Degraded")].status`
// +kubebuilder:printcolumn:name="Release",type=string,JSONPath=`.status.release`
// +kubebuilder:printcolumn:name="CRDs",type=string,JSONPath=`.status.crdRelease`
// +kubebuilder:printcolumn:name="Reason",type=string,priority=1,JSONPath=`.status.conditions[?(@.type=="Degraded")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="self.metadata.name == 'default'",message="metadata.name must be default: one Cluster object describes the cluster's Calico"
type Cluster struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// NetworkConfig is the calico.networking.extensions.gardener.cloud/v1alpha1 NetworkConfig, the
	// same API and validation as a shoot's providerConfig (validated by calico-pilot, not by the
	// API server's schema).
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	// +optional
	NetworkConfig *runtime.RawExtension `json:"networkConfig,omitempty"`
	// Facts are the facts about the cluster; each one left out is read from the cluster.
	// +optional
	Facts ClusterFacts `json:"cluster,omitempty"`
	// Components says which optional components run; unset keeps what runs.
	// +optional
	Components *Components `json:"components,omitempty"`

	// Status is written by `calico-pilot manage`.
	// +optional
	Status ClusterStatus `json:"status,omitempty"`
}

// ClusterFacts are the facts a Cluster may state.
type ClusterFacts struct {
	// KubernetesVersion is the cluster's Kubernetes version ("1.33.2").
	// +kubebuilder:validation:Pattern=`^v?[0-9]+\.[0-9]+\.[0-9]+$`
	// +optional
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	// PodCIDR is the pod network (kubeadm's networking.podSubnet); with two families, two CIDRs
	// separated by a comma, IPv4 first.
	// +kubebuilder:validation:MaxLength=100
	// +kubebuilder:validation:XValidation:rule="self.split(',').size() <= 2 && self.split(',').all(c, isCIDR(c.trim()))",message="must be a CIDR, or two separated by a comma (one per IP family)"
	// +optional
	PodCIDR string `json:"podCIDR,omitempty"`
	// ServiceCIDR is the service network (kubeadm's networking.serviceSubnet).
	// +kubebuilder:validation:MaxLength=100
	// +kubebuilder:validation:XValidation:rule="self.split(',').size() <= 2 && self.split(',').all(c, isCIDR(c.trim()))",message="must be a CIDR, or two separated by a comma (one per IP family)"
	// +optional
	ServiceCIDR string `json:"serviceCIDR,omitempty"`
	// NodeCIDR is the network the nodes' addresses are in (Calico autodetects addresses in it).
	// +kubebuilder:validation:MaxLength=100
	// +kubebuilder:validation:XValidation:rule="self.split(',').size() <= 2 && self.split(',').all(c, isCIDR(c.trim()))",message="must be a CIDR, or two separated by a comma (one per IP family)"
	// +optional
	NodeCIDR string `json:"nodeCIDR,omitempty"`
	// IPFamilies are IPv4 and/or IPv6; default: the families of PodCIDR.
	// +kubebuilder:validation:MaxItems=2
	// +kubebuilder:validation:items:Enum=IPv4;IPv6
	// +listType=set
	// +optional
	IPFamilies []string `json:"ipFamilies,omitempty"`
	// KubeProxy says whether kube-proxy runs and in which mode.
	// +optional
	KubeProxy *KubeProxy `json:"kubeProxy,omitempty"`
}

// KubeProxy is kube-proxy as the cluster runs it.
type KubeProxy struct {
	// Enabled is whether kube-proxy runs.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`
	// Mode is IPTables, IPVS or NFTables.
	// +kubebuilder:validation:Enum=IPTables;IPVS;NFTables
	// +optional
	Mode string `json:"mode,omitempty"`
}

// Components are the optional components of a Calico install beside calico-node, Typha and
// kube-controllers. A component left unset keeps what runs: after a takeover of the tigera
// operator's install the ones the operator ran keep running; a fresh install or an adoption of
// upstream's manifest runs none.
//
// +kubebuilder:validation:XValidation:rule="!has(self.whisker) || !has(self.whisker.enabled) || !self.whisker.enabled || (has(self.goldmane) && has(self.goldmane.enabled) && self.goldmane.enabled)",message="whisker needs goldmane, where it reads its flows from: set components.goldmane.enabled: true, or components.whisker.enabled: false",fieldPath=".whisker.enabled"
type Components struct {
	// APIServer is Calico's API server (projectcalico.org/v3).
	// +optional
	APIServer *Component `json:"apiServer,omitempty"`
	// Goldmane is Calico's flow aggregator.
	// +optional
	Goldmane *Component `json:"goldmane,omitempty"`
	// Whisker is Calico's flow viewer; it needs Goldmane.
	// +optional
	Whisker *Component `json:"whisker,omitempty"`
	// CSIDriver is Calico's CSI node driver (csi.tigera.io).
	// +optional
	CSIDriver *Component `json:"csiDriver,omitempty"`
}

// Component switches one optional component.
type Component struct {
	// Enabled runs the component (true), removes it (false) or keeps what runs (unset).
	// +optional
	Enabled *bool `json:"enabled,omitempty"`
}

// Condition types of a Cluster's status.
const (
	// ConditionAvailable is True when the last reconcile applied the Cluster and every component
	// rolled out.
	ConditionAvailable = "Available"
	// ConditionProgressing is True while a release moves or a rollout is awaited.
	ConditionProgressing = "Progressing"
	// ConditionDegraded is True when the last reconcile could not apply the Cluster; its reason and
	// message say what to do.
	ConditionDegraded = "Degraded"
)

// ClusterStatus is what `calico-pilot manage` last did with the Cluster.
type ClusterStatus struct {
	// ObservedGeneration is the generation of the Cluster the last reconcile applied (or refused).
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions are Available, Progressing and Degraded.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// Release is the Calico release every component runs once no move is in progress.
	// +optional
	Release string `json:"release,omitempty"`
	// CRDRelease is the newest release whose CRDs were applied (CRDs never go down).
	// +optional
	CRDRelease string `json:"crdRelease,omitempty"`
	// Move is the release move in progress (nil: none).
	// +optional
	Move *Move `json:"move,omitempty"`
	// Components are the release each component runs.
	// +listType=map
	// +listMapKey=name
	// +optional
	Components []ComponentStatus `json:"components,omitempty"`
	// Blockers are what refuses the apply, each with what to do.
	// +optional
	Blockers []string `json:"blockers,omitempty"`
	// LastApplied is when the last reconcile completed an apply.
	// +optional
	LastApplied *metav1.Time `json:"lastApplied,omitempty"`
}

// Move is a release move in progress.
type Move struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Phase string `json:"phase"`
}

// ComponentStatus is one component as it runs.
type ComponentStatus struct {
	// Name is the component's workload (calico-node, calico-typha, calico-apiserver, ...).
	Name string `json:"name"`
	// Release is the Calico release it runs (from the state; an unmanaged component's from its
	// image's tag).
	// +optional
	Release string `json:"release,omitempty"`
	// Managed is true when calico-pilot applies the component; false for one that runs unmanaged.
	Managed bool `json:"managed"`
	// Message says more (why a component runs unmanaged, and how to remove it).
	// +optional
	Message string `json:"message,omitempty"`
}

// ClusterList is a list of Clusters.
//
// +kubebuilder:object:root=true
type ClusterList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Cluster `json:"items"`
}
