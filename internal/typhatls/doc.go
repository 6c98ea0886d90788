// Package typhatls issues and checks the mutual TLS material of Felix (calico-node) and Typha: a
// self-signed CA, Typha's server certificate (CN typha-server, EKU serverAuth) and calico-node's
// client certificate (CN typha-client, EKU clientAuth), each with its expiry. It says whether a key
// pair is due for renewal (less than a third of its lifetime left) and whether a CA bundle trusts a
// certificate for a use, so a caller that takes over a cluster can keep the CA it finds (the tigera
// operator's, RSA) or issue its own, and renew the leaves before they expire (docs/layouts.md).
//
// It is pure: the time is a parameter, nothing is read or written; the certificates are created
// by internal/certs.Issue (ECDSA P-256 keys). Parsing and the trust check are internal/calicotls's,
// which manages Typha's and calico-node's key pairs together with every other key pair calico-pilot
// owns outside Gardener (its Plan uses the operator's 30-day rule; docs/certificates.md); this
// package stays for the takeover's renewal of Typha's pairs until that moves to calicotls.Plan.
package typhatls
