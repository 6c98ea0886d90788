package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// IPIPMode says when IPIP encapsulation is used for a pool: Never, Always or CrossSubnet.
type IPIPMode string

// IPIP modes.
const (
	IPIPModeNever       IPIPMode = "Never"
	IPIPModeAlways      IPIPMode = "Always"
	IPIPModeCrossSubnet IPIPMode = "CrossSubnet"
)

// VXLANMode says when VXLAN encapsulation is used for a pool: Never, Always or CrossSubnet.
type VXLANMode string

// VXLAN modes.
const (
	VXLANModeNever       VXLANMode = "Never"
	VXLANModeAlways      VXLANMode = "Always"
	VXLANModeCrossSubnet VXLANMode = "CrossSubnet"
)

// AssignmentMode says whether addresses of a pool are handed out automatically or only on request.
// +kubebuilder:validation:Enum=Automatic;Manual
type AssignmentMode string

// Assignment modes.
const (
	AssignmentModeAutomatic AssignmentMode = "Automatic"
	AssignmentModeManual    AssignmentMode = "Manual"
)

// IPPoolAllowedUse is what addresses of a pool may be used for: Workload, Tunnel or LoadBalancer.
type IPPoolAllowedUse string

// Allowed uses of a pool.
const (
	IPPoolAllowedUseWorkload     IPPoolAllowedUse = "Workload"
	IPPoolAllowedUseTunnel       IPPoolAllowedUse = "Tunnel"
	IPPoolAllowedUseLoadBalancer IPPoolAllowedUse = "LoadBalancer"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=ippools,singular=ippool

// IPPool is a range of addresses Calico IPAM assigns from, with its encapsulation and NAT settings.
type IPPool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the pool.
	// +optional
	Spec IPPoolSpec `json:"spec,omitempty"`
}

// IPPoolSpec is the configuration of an IPPool.
type IPPoolSpec struct {
	// CIDR is the pool's address range.
	CIDR string `json:"cidr"`
	// VXLANMode says when VXLAN encapsulation is used.
	// +optional
	VXLANMode VXLANMode `json:"vxlanMode,omitempty"`
	// IPIPMode says when IPIP encapsulation is used.
	// +optional
	IPIPMode IPIPMode `json:"ipipMode,omitempty"`
	// NATOutgoing masquerades traffic from the pool to destinations outside all pools.
	// +optional
	NATOutgoing bool `json:"natOutgoing,omitempty"`
	// Disabled stops new assignments from the pool.
	// +optional
	Disabled bool `json:"disabled,omitempty"`
	// DisableBGPExport stops the pool's routes from being exported over BGP.
	// +optional
	DisableBGPExport bool `json:"disableBGPExport,omitempty"`
	// BlockSize is the prefix length of the blocks the pool is split into.
	// +optional
	BlockSize int `json:"blockSize,omitempty"`
	// NodeSelector picks the nodes that assign from the pool.
	// +optional
	NodeSelector string `json:"nodeSelector,omitempty"`
	// NamespaceSelector picks the namespaces whose pods assign from the pool.
	// +optional
	NamespaceSelector string `json:"namespaceSelector,omitempty"`
	// AllowedUses are what addresses of the pool may be used for.
	// +optional
	AllowedUses []IPPoolAllowedUse `json:"allowedUses,omitempty"`
	// AssignmentMode says whether addresses are assigned automatically or only on request.
	// +optional
	AssignmentMode *AssignmentMode `json:"assignmentMode,omitempty"`

	// IPIP is the pre-v3 IPIP configuration.
	//
	// Deprecated: Calico reads it only for pools created before IPIPMode existed; use IPIPMode.
	// +optional
	IPIP *IPIPConfiguration `json:"ipip,omitempty"`
	// NATOutgoingV1 is the pre-v3 spelling of NATOutgoing.
	//
	// Deprecated: use NATOutgoing.
	// +optional
	NATOutgoingV1 bool `json:"nat-outgoing,omitempty"`
}

// IPIPConfiguration is the pre-v3 IPIP configuration of a pool.
type IPIPConfiguration struct {
	// Enabled switches IPIP on.
	// +optional
	Enabled bool `json:"enabled,omitempty"`
	// Mode is "always" or "cross-subnet".
	// +optional
	Mode string `json:"mode,omitempty"`
}

// +kubebuilder:object:root=true

// IPPoolList is a list of IPPool.
type IPPoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the pools.
	Items []IPPool `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=ipreservations,singular=ipreservation

// IPReservation keeps addresses out of Calico IPAM's automatic assignment.
type IPReservation struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec holds the reserved ranges.
	// +optional
	Spec IPReservationSpec `json:"spec,omitempty"`
}

// IPReservationSpec holds the reserved ranges of an IPReservation.
type IPReservationSpec struct {
	// ReservedCIDRs are addresses or CIDRs that IPAM does not assign automatically.
	// +optional
	ReservedCIDRs []string `json:"reservedCIDRs,omitempty"`
}

// +kubebuilder:object:root=true

// IPReservationList is a list of IPReservation.
type IPReservationList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the reservations.
	Items []IPReservation `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=ipamconfigs,singular=ipamconfig

// IPAMConfig is the cluster-wide configuration of Calico IPAM (conventionally one object named "default").
type IPAMConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the IPAM configuration.
	// +optional
	Spec IPAMConfigSpec `json:"spec,omitempty"`
}

// IPAMConfigSpec is the configuration of Calico IPAM.
type IPAMConfigSpec struct {
	// StrictAffinity forbids borrowing addresses from blocks affine to other nodes.
	StrictAffinity bool `json:"strictAffinity"`
	// AutoAllocateBlocks lets nodes claim new blocks when theirs are full.
	AutoAllocateBlocks bool `json:"autoAllocateBlocks"`
	// MaxBlocksPerHost caps the blocks one node may own; 0 means no limit.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=2147483647
	// +optional
	MaxBlocksPerHost int `json:"maxBlocksPerHost,omitempty"`
}

// +kubebuilder:object:root=true

// IPAMConfigList is a list of IPAMConfig.
type IPAMConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the configurations.
	Items []IPAMConfig `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=ipamblocks,singular=ipamblock

// IPAMBlock is Calico IPAM's record of one block of a pool: which addresses are allocated to what.
// Calico writes these; calico-pilot only reads them.
type IPAMBlock struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the block's allocation state.
	// +optional
	Spec IPAMBlockSpec `json:"spec,omitempty"`
}

// IPAMBlockSpec is the allocation state of an IPAMBlock.
type IPAMBlockSpec struct {
	// CIDR is the block's range.
	CIDR string `json:"cidr"`
	// Affinity is the owner of the block, e.g. "host:node-1".
	// +optional
	Affinity *string `json:"affinity,omitempty"`
	// StrictAffinity forbids other hosts from borrowing from the block.
	StrictAffinity bool `json:"strictAffinity"`
	// Allocations maps each ordinal of the block to an index into Attributes; nil means free.
	Allocations []*int `json:"allocations"`
	// Unallocated are the free ordinals.
	Unallocated []int `json:"unallocated"`
	// Attributes describe the allocations.
	Attributes []AllocationAttribute `json:"attributes"`
	// Deleted marks a block that is being released.
	// +optional
	Deleted bool `json:"deleted,omitempty"`
	// SequenceNumber increases with every change of the block.
	// +kubebuilder:default=0
	// +optional
	SequenceNumber uint64 `json:"sequenceNumber,omitempty"`
	// SequenceNumberForAllocation records the SequenceNumber at which each ordinal was allocated.
	// +optional
	SequenceNumberForAllocation map[string]uint64 `json:"sequenceNumberForAllocation,omitempty"`
}

// AllocationAttribute describes one allocation of an IPAMBlock.
type AllocationAttribute struct {
	// HandleID is the IPAM handle that owns the allocation.
	// +optional
	HandleID *string `json:"handle_id,omitempty"`
	// Secondary holds further attributes (namespace, pod, node, ...).
	// +optional
	Secondary map[string]string `json:"secondary,omitempty"`
}

// +kubebuilder:object:root=true

// IPAMBlockList is a list of IPAMBlock.
type IPAMBlockList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the blocks.
	Items []IPAMBlock `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=ipamhandles,singular=ipamhandle

// IPAMHandle is Calico IPAM's record of the addresses one owner (e.g. a pod) holds, per block.
type IPAMHandle struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the handle.
	// +optional
	Spec IPAMHandleSpec `json:"spec,omitempty"`
}

// IPAMHandleSpec is the content of an IPAMHandle.
type IPAMHandleSpec struct {
	// HandleID identifies the owner.
	HandleID string `json:"handleID"`
	// Block maps block CIDRs to the number of addresses held there.
	Block map[string]int `json:"block"`
	// Deleted marks a handle that is being released.
	// +optional
	Deleted bool `json:"deleted,omitempty"`
}

// +kubebuilder:object:root=true

// IPAMHandleList is a list of IPAMHandle.
type IPAMHandleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the handles.
	Items []IPAMHandle `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=blockaffinities,singular=blockaffinity

// BlockAffinity is Calico IPAM's record that a block belongs to a node.
type BlockAffinity struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the affinity.
	// +optional
	Spec BlockAffinitySpec `json:"spec,omitempty"`
}

// BlockAffinitySpec is the content of a BlockAffinity.
type BlockAffinitySpec struct {
	// State is the affinity's state: pending, confirmed or pendingDeletion.
	State string `json:"state"`
	// Node is the node the block belongs to.
	Node string `json:"node"`
	// Type is the kind of owner ("host" or "virtual").
	// +optional
	Type string `json:"type,omitempty"`
	// CIDR is the block's range.
	CIDR string `json:"cidr"`
	// Deleted is "true" when the affinity is being removed; a string because Calico stores it so.
	Deleted string `json:"deleted"`
}

// +kubebuilder:object:root=true

// BlockAffinityList is a list of BlockAffinity.
type BlockAffinityList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the affinities.
	Items []BlockAffinity `json:"items"`
}
