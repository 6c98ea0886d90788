package v1

import (
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StagedAction says what a staged policy would do once committed: Set (create or update it) or Delete.
type StagedAction string

// Staged actions.
const (
	StagedActionSet    StagedAction = "Set"
	StagedActionDelete StagedAction = "Delete"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=globalnetworkpolicies,singular=globalnetworkpolicy

// GlobalNetworkPolicy is a cluster-wide Calico policy: ordered ingress/egress rules applied to the
// endpoints its selector picks, in every namespace and on host endpoints.
type GlobalNetworkPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the policy.
	// +optional
	Spec GlobalNetworkPolicySpec `json:"spec,omitempty"`
}

// GlobalNetworkPolicySpec is the policy of a GlobalNetworkPolicy.
type GlobalNetworkPolicySpec struct {
	// Tier is the tier the policy belongs to; empty means "default".
	// +optional
	Tier string `json:"tier,omitempty"`
	// Order is the precedence within the tier; lower orders are applied first, unset is applied last.
	// +optional
	Order *float64 `json:"order,omitempty"`
	// Ingress are the rules for traffic to the selected endpoints.
	// +optional
	Ingress []Rule `json:"ingress,omitempty"`
	// Egress are the rules for traffic from the selected endpoints.
	// +optional
	Egress []Rule `json:"egress,omitempty"`
	// Selector picks the endpoints the policy applies to.
	// +optional
	Selector string `json:"selector,omitempty"`
	// Types are the directions the policy applies to; derived from the rules when empty.
	// +optional
	Types []PolicyType `json:"types,omitempty"`
	// DoNotTrack applies the policy before connection tracking (untracked policy).
	// +optional
	DoNotTrack bool `json:"doNotTrack,omitempty"`
	// PreDNAT applies the policy before destination NAT (host endpoints only).
	// +optional
	PreDNAT bool `json:"preDNAT,omitempty"`
	// ApplyOnForward applies the policy to forwarded traffic as well.
	// +optional
	ApplyOnForward bool `json:"applyOnForward,omitempty"`
	// ServiceAccountSelector picks endpoints by the labels of their service account.
	// +optional
	ServiceAccountSelector string `json:"serviceAccountSelector,omitempty"`
	// NamespaceSelector picks endpoints by the labels of their namespace.
	// +optional
	NamespaceSelector string `json:"namespaceSelector,omitempty"`
	// PerformanceHints are optimisation hints for the dataplane (e.g. AssumeNeededOnEveryNode).
	// +optional
	PerformanceHints []string `json:"performanceHints,omitempty"`
}

// +kubebuilder:object:root=true

// GlobalNetworkPolicyList is a list of GlobalNetworkPolicy.
type GlobalNetworkPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the policies.
	Items []GlobalNetworkPolicy `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=stagedglobalnetworkpolicies,singular=stagedglobalnetworkpolicy

// StagedGlobalNetworkPolicy is a GlobalNetworkPolicy whose effect is only previewed until it is committed.
type StagedGlobalNetworkPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the staged policy.
	// +optional
	Spec StagedGlobalNetworkPolicySpec `json:"spec,omitempty"`
}

// StagedGlobalNetworkPolicySpec is a GlobalNetworkPolicySpec plus the staged action.
type StagedGlobalNetworkPolicySpec struct {
	// StagedAction is what committing the policy does.
	// +optional
	StagedAction StagedAction `json:"stagedAction,omitempty"`
	// GlobalNetworkPolicySpec holds the fields of the policy being staged, inline as in Calico's CRD.
	GlobalNetworkPolicySpec `json:",inline"`
}

// +kubebuilder:object:root=true

// StagedGlobalNetworkPolicyList is a list of StagedGlobalNetworkPolicy.
type StagedGlobalNetworkPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the staged policies.
	Items []StagedGlobalNetworkPolicy `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,path=networkpolicies,singular=networkpolicy

// NetworkPolicy is a namespaced Calico policy: ordered rules applied to endpoints of its namespace.
type NetworkPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the policy.
	// +optional
	Spec NetworkPolicySpec `json:"spec,omitempty"`
}

// NetworkPolicySpec is the policy of a NetworkPolicy.
type NetworkPolicySpec struct {
	// Tier is the tier the policy belongs to; empty means "default".
	// +optional
	Tier string `json:"tier,omitempty"`
	// Order is the precedence within the tier; lower orders are applied first, unset is applied last.
	// +optional
	Order *float64 `json:"order,omitempty"`
	// Ingress are the rules for traffic to the selected endpoints.
	// +optional
	Ingress []Rule `json:"ingress,omitempty"`
	// Egress are the rules for traffic from the selected endpoints.
	// +optional
	Egress []Rule `json:"egress,omitempty"`
	// Selector picks the endpoints of the namespace the policy applies to.
	// +optional
	Selector string `json:"selector,omitempty"`
	// Types are the directions the policy applies to; derived from the rules when empty.
	// +optional
	Types []PolicyType `json:"types,omitempty"`
	// ServiceAccountSelector picks endpoints by the labels of their service account.
	// +optional
	ServiceAccountSelector string `json:"serviceAccountSelector,omitempty"`
	// PerformanceHints are optimisation hints for the dataplane.
	// +optional
	PerformanceHints []string `json:"performanceHints,omitempty"`
}

// +kubebuilder:object:root=true

// NetworkPolicyList is a list of NetworkPolicy.
type NetworkPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the policies.
	Items []NetworkPolicy `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,path=stagednetworkpolicies,singular=stagednetworkpolicy

// StagedNetworkPolicy is a NetworkPolicy whose effect is only previewed until it is committed.
type StagedNetworkPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the staged policy.
	// +optional
	Spec StagedNetworkPolicySpec `json:"spec,omitempty"`
}

// StagedNetworkPolicySpec is a NetworkPolicySpec plus the staged action.
type StagedNetworkPolicySpec struct {
	// StagedAction is what committing the policy does.
	// +optional
	StagedAction StagedAction `json:"stagedAction,omitempty"`
	// NetworkPolicySpec holds the fields of the policy being staged, inline as in Calico's CRD.
	NetworkPolicySpec `json:",inline"`
}

// +kubebuilder:object:root=true

// StagedNetworkPolicyList is a list of StagedNetworkPolicy.
type StagedNetworkPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the staged policies.
	Items []StagedNetworkPolicy `json:"items"`
}

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,path=stagedkubernetesnetworkpolicies,singular=stagedkubernetesnetworkpolicy

// StagedKubernetesNetworkPolicy is a Kubernetes NetworkPolicy whose effect is only previewed until committed.
type StagedKubernetesNetworkPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the staged Kubernetes policy.
	// +optional
	Spec StagedKubernetesNetworkPolicySpec `json:"spec,omitempty"`
}

// StagedKubernetesNetworkPolicySpec is a Kubernetes NetworkPolicySpec plus the staged action.
type StagedKubernetesNetworkPolicySpec struct {
	// StagedAction is what committing the policy does.
	// +optional
	StagedAction StagedAction `json:"stagedAction,omitempty"`
	// PodSelector picks the pods of the namespace the policy applies to.
	// +optional
	PodSelector metav1.LabelSelector `json:"podSelector,omitempty"`
	// Ingress are the allowed incoming traffic rules.
	// +optional
	Ingress []networkingv1.NetworkPolicyIngressRule `json:"ingress,omitempty"`
	// Egress are the allowed outgoing traffic rules.
	// +optional
	Egress []networkingv1.NetworkPolicyEgressRule `json:"egress,omitempty"`
	// PolicyTypes are the directions the policy applies to.
	// +optional
	PolicyTypes []networkingv1.PolicyType `json:"policyTypes,omitempty"`
}

// +kubebuilder:object:root=true

// StagedKubernetesNetworkPolicyList is a list of StagedKubernetesNetworkPolicy.
type StagedKubernetesNetworkPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the staged policies.
	Items []StagedKubernetesNetworkPolicy `json:"items"`
}

// TierAction is what happens to traffic that no policy of a tier decides: Pass (to the next tier) or Deny.
// +kubebuilder:validation:Enum=Pass;Deny
type TierAction string

// Tier default actions.
const (
	TierActionPass TierAction = "Pass"
	TierActionDeny TierAction = "Deny"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=tiers,singular=tier

// Tier is an ordered group of Calico policies; tiers are evaluated in ascending order.
type Tier struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the tier.
	// +optional
	Spec TierSpec `json:"spec,omitempty"`
}

// TierSpec is the ordering and default action of a Tier.
type TierSpec struct {
	// Order is the tier's precedence; lower orders are evaluated first, unset is evaluated last.
	// +optional
	Order *float64 `json:"order,omitempty"`
	// DefaultAction applies to traffic that the tier's policies select but none decides.
	// +optional
	DefaultAction *TierAction `json:"defaultAction,omitempty"`
}

// +kubebuilder:object:root=true

// TierList is a list of Tier.
type TierList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the tiers.
	Items []Tier `json:"items"`
}
