// Package calicotls tests the certificate manager (internal/calicotls) against a real kube-apiserver:
// the tigera operator's TLS material is written, read back with calicotls.Read, planned and written
// with calicotls.WriteStep; a renewal writes only the due Secret, and what is read back trusts it.
package calicotls
