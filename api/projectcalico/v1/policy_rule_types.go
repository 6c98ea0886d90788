package v1

import (
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Action is what a policy rule does with matching traffic: Allow, Deny, Log or Pass.
type Action string

// Actions a Calico policy rule can take.
const (
	ActionAllow Action = "Allow"
	ActionDeny  Action = "Deny"
	ActionLog   Action = "Log"
	ActionPass  Action = "Pass"
)

// PolicyType names a direction a policy applies to: Ingress or Egress.
type PolicyType string

// Policy directions.
const (
	PolicyTypeIngress PolicyType = "Ingress"
	PolicyTypeEgress  PolicyType = "Egress"
)

// Rule is one ingress or egress rule of a Calico policy. Traffic matches when every set criterion matches.
type Rule struct {
	// Action is what happens to matching traffic.
	Action Action `json:"action"`
	// IPVersion restricts the rule to IPv4 (4) or IPv6 (6) traffic.
	// +optional
	IPVersion *int `json:"ipVersion,omitempty"`
	// Protocol matches the IP protocol by name (TCP, UDP, ICMP, ICMPv6, SCTP, UDPLite) or number.
	// +kubebuilder:validation:Pattern=`^.*`
	// +kubebuilder:validation:XIntOrString
	// +optional
	Protocol *intstr.IntOrString `json:"protocol,omitempty"`
	// ICMP matches ICMP type and code (Protocol must be ICMP or ICMPv6).
	// +optional
	ICMP *ICMPFields `json:"icmp,omitempty"`
	// NotProtocol is the negation of Protocol.
	// +kubebuilder:validation:Pattern=`^.*`
	// +kubebuilder:validation:XIntOrString
	// +optional
	NotProtocol *intstr.IntOrString `json:"notProtocol,omitempty"`
	// NotICMP is the negation of ICMP.
	// +optional
	NotICMP *ICMPFields `json:"notICMP,omitempty"`
	// Source matches the traffic's source.
	// +optional
	Source EntityRule `json:"source,omitempty"`
	// Destination matches the traffic's destination.
	// +optional
	Destination EntityRule `json:"destination,omitempty"`
	// HTTP matches HTTP attributes (only with an application layer policy enforcer).
	// +optional
	HTTP *HTTPMatch `json:"http,omitempty"`
	// Metadata carries annotations of the rule for people and tools; it does not affect matching.
	// +optional
	Metadata *RuleMetadata `json:"metadata,omitempty"`
}

// ICMPFields matches ICMP type and code.
type ICMPFields struct {
	// Type is the ICMP type.
	// +optional
	Type *int `json:"type,omitempty"`
	// Code is the ICMP code; it needs Type.
	// +optional
	Code *int `json:"code,omitempty"`
}

// EntityRule matches one end (source or destination) of the traffic.
type EntityRule struct {
	// Nets matches addresses in any of these CIDRs.
	// +optional
	Nets []string `json:"nets,omitempty"`
	// Selector matches endpoints (and network sets) by label selector expression.
	// +optional
	Selector string `json:"selector,omitempty"`
	// NamespaceSelector matches endpoints in namespaces selected by this expression.
	// +optional
	NamespaceSelector string `json:"namespaceSelector,omitempty"`
	// Services matches the endpoints of a Kubernetes Service.
	// +optional
	Services *ServiceMatch `json:"services,omitempty"`
	// Ports matches ports, port ranges ("1000:2000") or named ports.
	// +optional
	Ports []intstr.IntOrString `json:"ports,omitempty"`
	// NotNets is the negation of Nets.
	// +optional
	NotNets []string `json:"notNets,omitempty"`
	// NotSelector is the negation of Selector.
	// +optional
	NotSelector string `json:"notSelector,omitempty"`
	// NotPorts is the negation of Ports.
	// +optional
	NotPorts []intstr.IntOrString `json:"notPorts,omitempty"`
	// ServiceAccounts matches endpoints running as the given service accounts.
	// +optional
	ServiceAccounts *ServiceAccountMatch `json:"serviceAccounts,omitempty"`
}

// ServiceMatch names a Kubernetes Service.
type ServiceMatch struct {
	// Name is the Service's name.
	// +optional
	Name string `json:"name,omitempty"`
	// Namespace is the Service's namespace.
	// +optional
	Namespace string `json:"namespace,omitempty"`
}

// ServiceAccountMatch matches service accounts by name and/or label selector.
type ServiceAccountMatch struct {
	// Names are service account names.
	// +optional
	Names []string `json:"names,omitempty"`
	// Selector is a label selector expression on service accounts.
	// +optional
	Selector string `json:"selector,omitempty"`
}

// HTTPMatch matches HTTP requests.
type HTTPMatch struct {
	// Methods are HTTP methods (GET, PUT, ...).
	// +optional
	Methods []string `json:"methods,omitempty"`
	// Paths are path matches; a request matches when any of them matches.
	// +optional
	Paths []HTTPPath `json:"paths,omitempty"`
}

// HTTPPath matches an HTTP path exactly or by prefix.
type HTTPPath struct {
	// Exact matches the whole path.
	// +optional
	Exact string `json:"exact,omitempty"`
	// Prefix matches the beginning of the path.
	// +optional
	Prefix string `json:"prefix,omitempty"`
}

// RuleMetadata annotates a rule.
type RuleMetadata struct {
	// Annotations are free-form key/value pairs.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}
