// Package calicotls is the one certificate manager of every TLS key pair calico-pilot owns outside
// Gardener, in the tigera operator's layout: Typha's and calico-node's mutual TLS, calico-apiserver's
// serving certificate (and the APIService's caBundle), Goldmane's and Whisker's key pairs, and the CA
// bundles their peers trust (docs/certificates.md).
//
// The key pairs are data (Table: each Secret, its names, usages, the bundles its peers verify it with
// and the workloads that mount it). Read gathers the live material from the cluster into an Input;
// Plan decides, purely with the time as a parameter, which CA signs (the copy calico-pilot keeps, the
// operator's adopted CA, or a CA of its own), which key pairs are issued anew (the operator's rule:
// missing, less than 30 days left, expired or not yet valid, DNS names, IP addresses, usages or issuing
// CA no longer right; never a certificate the user brought) and in which order the objects are
// written so that every peer trusts every certificate at every moment of a rollout: Steps, each a set
// of objects to write, the workloads whose rollouts to wait for first and those that roll because of
// it, with per-workload checksums of exactly what each workload mounts. Trusts is the check of a
// bundle against a certificate that the callers and the tests share.
//
// Certificates are created by internal/certs.Issue (ECDSA P-256 keys); adopted CAs may be RSA
// (the operator's), ECDSA or Ed25519.
package calicotls
