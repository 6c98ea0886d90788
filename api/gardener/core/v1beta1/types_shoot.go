package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// +kubebuilder:object:root=true

// Shoot is the subset of a Gardener Shoot that a networking extension reads.
type Shoot struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state.
	// +optional
	Spec ShootSpec `json:"spec,omitempty"`
	// Status is the observed state.
	// +optional
	Status ShootStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ShootList is a list of Shoots.
type ShootList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the Shoots.
	Items []Shoot `json:"items"`
}

// ShootSpec is the subset of the Shoot spec a networking extension reads.
type ShootSpec struct {
	// Networking is the shoot's network configuration.
	// +optional
	Networking *Networking `json:"networking,omitempty"`
	// Kubernetes is the shoot's Kubernetes configuration.
	Kubernetes Kubernetes `json:"kubernetes"`
	// Hibernation is the desired hibernation state.
	// +optional
	Hibernation *Hibernation `json:"hibernation,omitempty"`
	// Provider is the infrastructure provider and the worker pools.
	Provider Provider `json:"provider"`
}

// Networking is the shoot's network configuration.
type Networking struct {
	// Type is the network plugin type ("calico").
	// +optional
	Type *string `json:"type,omitempty"`
	// ProviderConfig is the plugin's configuration (for calico: a NetworkConfig).
	// +optional
	ProviderConfig *runtime.RawExtension `json:"providerConfig,omitempty"`
	// Pods is the pod CIDR.
	// +optional
	Pods *string `json:"pods,omitempty"`
	// Nodes is the node CIDR.
	// +optional
	Nodes *string `json:"nodes,omitempty"`
	// Services is the service CIDR.
	// +optional
	Services *string `json:"services,omitempty"`
	// IPFamilies are the shoot's IP families; empty means ["IPv4"].
	// +optional
	IPFamilies []IPFamily `json:"ipFamilies,omitempty"`
}

// Kubernetes is the subset of the shoot's Kubernetes configuration a networking extension reads.
type Kubernetes struct {
	// Version is the Kubernetes version.
	// +optional
	Version string `json:"version,omitempty"`
	// KubeAPIServer is the kube-apiserver configuration.
	// +optional
	KubeAPIServer *KubeAPIServerConfig `json:"kubeAPIServer,omitempty"`
	// KubeProxy is the kube-proxy configuration.
	// +optional
	KubeProxy *KubeProxyConfig `json:"kubeProxy,omitempty"`
	// VerticalPodAutoscaler is the shoot VPA configuration; nil means VPA off.
	// +optional
	VerticalPodAutoscaler *VerticalPodAutoscaler `json:"verticalPodAutoscaler,omitempty"`
}

// KubeAPIServerConfig is the subset of the kube-apiserver configuration a networking extension reads.
type KubeAPIServerConfig struct {
	// FeatureGates are the kube-apiserver feature gates.
	// +optional
	FeatureGates map[string]bool `json:"featureGates,omitempty"`
	// RuntimeConfig switches API group/versions on or off.
	// +optional
	RuntimeConfig map[string]bool `json:"runtimeConfig,omitempty"`
}

// ProxyMode is kube-proxy's mode.
// +kubebuilder:validation:Enum=IPTables;IPVS;NFTables
type ProxyMode string

const (
	// ProxyModeIPTables is the iptables mode.
	ProxyModeIPTables ProxyMode = "IPTables"
	// ProxyModeIPVS is the IPVS mode.
	ProxyModeIPVS ProxyMode = "IPVS"
	// ProxyModeNFTables is the nftables mode.
	ProxyModeNFTables ProxyMode = "NFTables"
)

// KubeProxyConfig is the kube-proxy configuration.
type KubeProxyConfig struct {
	// FeatureGates are kube-proxy's feature gates.
	// +optional
	FeatureGates map[string]bool `json:"featureGates,omitempty"`
	// Mode is kube-proxy's mode.
	// +optional
	Mode *ProxyMode `json:"mode,omitempty"`
	// Enabled deploys kube-proxy; Gardener defaults it to true for shoots with workers.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`
}

// VerticalPodAutoscaler is the shoot VPA configuration.
type VerticalPodAutoscaler struct {
	// Enabled deploys the VPA in the shoot.
	Enabled bool `json:"enabled"`
}

// Hibernation is the desired hibernation state.
type Hibernation struct {
	// Enabled means the shoot should be hibernated.
	// +optional
	Enabled *bool `json:"enabled,omitempty"`
}

// Provider is the infrastructure provider and its worker pools.
type Provider struct {
	// Type is the infrastructure provider type.
	Type string `json:"type"`
	// Workers are the worker pools; none means a workerless shoot.
	// +optional
	Workers []Worker `json:"workers,omitempty"`
}

// Worker is a worker pool; only its name is modelled (a networking extension only needs to know
// whether there are workers).
type Worker struct {
	// Name is the pool name.
	Name string `json:"name"`
	// Minimum is the pool's minimum number of nodes.
	// +optional
	Minimum int32 `json:"minimum,omitempty"`
	// Maximum is the pool's maximum number of nodes (the admission webhook sums it to judge whether
	// turning typha off is risky).
	// +optional
	Maximum int32 `json:"maximum,omitempty"`
}

// ShootStatus is the subset of the Shoot status a networking extension reads.
type ShootStatus struct {
	// Constraints are conditions that constrain operations (e.g. DualStackNodesMigrationReady).
	// +optional
	Constraints []Condition `json:"constraints,omitempty"`
	// IsHibernated is true once hibernation has finished.
	IsHibernated bool `json:"hibernated"`
	// LastOperation is the shoot's last operation.
	// +optional
	LastOperation *LastOperation `json:"lastOperation,omitempty"`
	// Networking is the network state reported by infrastructure/gardenlet.
	// +optional
	Networking *NetworkingStatus `json:"networking,omitempty"`
}

// NetworkingStatus lists every CIDR in use.
type NetworkingStatus struct {
	// Nodes are the node CIDRs.
	// +optional
	Nodes []string `json:"nodes,omitempty"`
	// Pods are the pod CIDRs.
	// +optional
	Pods []string `json:"pods,omitempty"`
	// Services are the service CIDRs.
	// +optional
	Services []string `json:"services,omitempty"`
}

// ConditionDualStackNodesMigrationReady is the constraint the gardenlet keeps while nodes migrate to dual-stack.
const ConditionDualStackNodesMigrationReady ConditionType = "DualStackNodesMigrationReady"
