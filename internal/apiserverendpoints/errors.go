package apiserverendpoints

import (
	"fmt"
)

// LookupError says why the kube-apiserver addresses of a namespace could not be determined. Every
// LookupError is retriable: the addresses are either not published yet, or a DNS answer may
// change; the reconcile should fail (never publish a partial set) and be retried.
type LookupError struct {
	// Namespace is the control-plane namespace looked in.
	Namespace string
	// Record is the DNSRecord at fault; empty when the failure is not about one record.
	Record string
	// RecordType is that record's type.
	RecordType string
	// Value is the record value at fault (a hostname for CNAME records).
	Value string
	// Err is the cause.
	Err error
}

// Error implements error.
func (e *LookupError) Error() string {
	switch {
	case e.Record == "":
		return fmt.Sprintf("kube-apiserver addresses in namespace %s: %v", e.Namespace, e.Err)
	case e.Value == "":
		return fmt.Sprintf("kube-apiserver addresses in namespace %s: DNSRecord %s (%s): %v", e.Namespace, e.Record, e.RecordType, e.Err)
	default:
		return fmt.Sprintf("kube-apiserver addresses in namespace %s: DNSRecord %s (%s %q): %v", e.Namespace, e.Record, e.RecordType, e.Value, e.Err)
	}
}

// Unwrap returns the cause.
func (e *LookupError) Unwrap() error { return e.Err }

// Retriable reports that the failure may go away on its own and the operation should be retried.
func (e *LookupError) Retriable() bool { return true }
