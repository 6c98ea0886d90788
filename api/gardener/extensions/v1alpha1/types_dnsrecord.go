package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,path=dnsrecords,shortName=dns
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=".spec.type"
// +kubebuilder:printcolumn:name="Domain Name",type=string,JSONPath=".spec.name"
// +kubebuilder:printcolumn:name="Record Type",type=string,JSONPath=".spec.recordType"
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=".status.lastOperation.state"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"

// DNSRecord is a DNS record a DNS provider extension maintains. The gardenlet publishes the
// kube-apiserver address of a shoot in the records labelled role=external and role=internal.
type DNSRecord struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired record.
	Spec DNSRecordSpec `json:"spec"`
	// Status is the observed state of the record.
	// +optional
	Status DNSRecordStatus `json:"status"`
}

// +kubebuilder:object:root=true

// DNSRecordList is a list of DNSRecords.
type DNSRecordList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the DNSRecords.
	Items []DNSRecord `json:"items"`
}

// DNSRecordType is the type of a DNS record.
// +kubebuilder:validation:Enum=A;AAAA;CNAME;TXT
type DNSRecordType string

const (
	// DNSRecordTypeA is a record of IPv4 addresses.
	DNSRecordTypeA DNSRecordType = "A"
	// DNSRecordTypeAAAA is a record of IPv6 addresses.
	DNSRecordTypeAAAA DNSRecordType = "AAAA"
	// DNSRecordTypeCNAME is an alias to one hostname.
	DNSRecordTypeCNAME DNSRecordType = "CNAME"
	// DNSRecordTypeTXT is a record of texts.
	DNSRecordTypeTXT DNSRecordType = "TXT"
)

// DNSRecordSpec is the desired DNS record.
// +kubebuilder:validation:XValidation:rule="!has(oldSelf.class) || (has(self.class) && self.class == oldSelf.class)",message="class is immutable once set"
type DNSRecordSpec struct {
	DefaultSpec `json:",inline"`

	// SecretRef is the Secret with the DNS provider credentials.
	SecretRef corev1.SecretReference `json:"secretRef"`
	// Region is the provider region; unset means taken from the secret or the extension's default.
	// +optional
	Region *string `json:"region,omitempty"`
	// Zone is the hosted zone; unset means the longest zone that is a suffix of Name.
	// +optional
	Zone *string `json:"zone,omitempty"`
	// Name is the fully qualified record name. Immutable.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="name is immutable"
	Name string `json:"name"`
	// RecordType is the record type. Immutable: the gardenlet deletes and recreates a record to
	// change it.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="recordType is immutable"
	RecordType DNSRecordType `json:"recordType"`
	// Values are IP addresses (A, AAAA), one hostname (CNAME) or texts (TXT).
	Values []string `json:"values"`
	// TTL is the record's time to live in seconds; unset is treated as 120.
	// +optional
	TTL *int64 `json:"ttl,omitempty"`
}

// DNSRecordStatus is the observed state of a DNSRecord.
type DNSRecordStatus struct {
	DefaultStatus `json:",inline"`

	// Zone is the zone actually used.
	// +optional
	Zone *string `json:"zone,omitempty"`
}
