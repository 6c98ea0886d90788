package typhatls

import (
	"crypto"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/calico-pilot/calico-pilot/internal/calicotls"
	"github.com/calico-pilot/calico-pilot/internal/certs"
)

// Validities of what Issue creates by default: the CA outlives many leaf renewals; a leaf is renewed
// after two thirds of its year (RenewalDue).
const (
	DefaultCAValidity   = 10 * 365 * 24 * time.Hour
	DefaultLeafValidity = 365 * 24 * time.Hour
)

// backdate is how far before now a certificate becomes valid, for clocks a little behind the issuer's.
const backdate = time.Minute

// KeyPair is a PEM certificate and its PEM private key: the tls.crt and tls.key of a kubernetes.io/tls
// Secret (the type of internal/calicotls, which manages Typha's key pairs with the others).
type KeyPair = calicotls.KeyPair

// Usage is what a leaf certificate is for.
type Usage int

// The two uses of Typha's TLS.
const (
	// Server is Typha's certificate: EKU serverAuth, checked by Felix (TyphaCN, TyphaURISAN).
	Server Usage = iota
	// Client is calico-node's certificate: EKU clientAuth, checked by Typha (ClientCN, ClientURISAN).
	Client
)

func (u Usage) extKeyUsage() x509.ExtKeyUsage {
	if u == Client {
		return x509.ExtKeyUsageClientAuth
	}
	return x509.ExtKeyUsageServerAuth
}

func (u Usage) String() string {
	if u == Client {
		return "client"
	}
	return "server"
}

// Leaf describes a leaf certificate to issue.
type Leaf struct {
	// CommonName is the subject's CN (and its one DNS SAN, as the operator's certificates carry).
	CommonName string
	// URISAN is an optional URI SAN (for TyphaURISAN or ClientURISAN; the operator sets none).
	URISAN string
	// Usage is Server or Client.
	Usage Usage
	// Validity is how long it is valid from now; zero means DefaultLeafValidity. It never outlives its CA.
	Validity time.Duration
}

// NewCA issues a self-signed CA named commonName, valid from now for validity (zero: DefaultCAValidity).
func NewCA(commonName string, now time.Time, validity time.Duration) (KeyPair, error) {
	if commonName == "" {
		return KeyPair{}, errors.New("issuing the typha CA: no common name")
	}
	if validity == 0 {
		validity = DefaultCAValidity
	}
	certPEM, keyPEM, err := certs.Issue("typha CA", &x509.Certificate{
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-backdate),
		NotAfter:              now.Add(validity),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
	}, nil, nil)
	if err != nil {
		return KeyPair{}, fmt.Errorf("issuing the typha CA: %w", err)
	}
	return KeyPair{CertPEM: certPEM, KeyPEM: keyPEM}, nil
}

// Issue issues leaf signed by ca (its own, or one adopted from the cluster: RSA, ECDSA or Ed25519 keys
// in PKCS#1, SEC 1 or PKCS#8), valid from now.
func Issue(ca KeyPair, leaf Leaf, now time.Time) (KeyPair, error) {
	what := "typha " + leaf.Usage.String() + " certificate"
	if leaf.CommonName == "" {
		return KeyPair{}, fmt.Errorf("issuing the %s: no common name", what)
	}
	caCert, caKey, err := parsePair(ca)
	if err != nil {
		return KeyPair{}, fmt.Errorf("issuing the %s: the CA: %w", what, err)
	}
	if !caCert.IsCA {
		return KeyPair{}, fmt.Errorf("issuing the %s: the CA certificate %q is no CA", what, caCert.Subject.CommonName)
	}
	validity := leaf.Validity
	if validity == 0 {
		validity = DefaultLeafValidity
	}
	notAfter := now.Add(validity)
	if caCert.NotAfter.Before(notAfter) {
		notAfter = caCert.NotAfter
	}
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: leaf.CommonName},
		DNSNames:    []string{leaf.CommonName},
		NotBefore:   now.Add(-backdate),
		NotAfter:    notAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{leaf.Usage.extKeyUsage()},
	}
	if leaf.URISAN != "" {
		u, err := url.Parse(leaf.URISAN)
		if err != nil {
			return KeyPair{}, fmt.Errorf("issuing the %s: URI SAN %q: %w", what, leaf.URISAN, err)
		}
		tmpl.URIs = []*url.URL{u}
	}
	certPEM, keyPEM, err := certs.Issue(what, tmpl, caCert, caKey)
	if err != nil {
		return KeyPair{}, fmt.Errorf("issuing the %s: %w", what, err)
	}
	return KeyPair{CertPEM: certPEM, KeyPEM: keyPEM}, nil
}

// RenewalDue says whether the certificate of certPEM should be replaced at now: when less than a third
// of its lifetime is left, when it has expired, or when it is not yet valid.
func RenewalDue(certPEM []byte, now time.Time) (bool, error) {
	cert, err := parseCert(certPEM)
	if err != nil {
		return false, err
	}
	return renewalDue(cert, now), nil
}

func renewalDue(cert *x509.Certificate, now time.Time) bool {
	if now.Before(cert.NotBefore) {
		return true
	}
	lifetime := cert.NotAfter.Sub(cert.NotBefore)
	return cert.NotAfter.Sub(now) < lifetime/3
}

// Trusts says why bundlePEM (one or more CA certificates) does not trust the certificate of certPEM
// for usage at now, or nil when it does: the chain, the validity period and the extended key usage.
func Trusts(bundlePEM, certPEM []byte, usage Usage, now time.Time) error {
	cert, err := parseCert(certPEM)
	if err != nil {
		return err
	}
	return trusts(bundlePEM, cert, usage, now)
}

func trusts(bundlePEM []byte, cert *x509.Certificate, usage Usage, now time.Time) error {
	return calicotls.Trusts(bundlePEM, encodeCert(cert), now, usage.extKeyUsage())
}

func encodeCert(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}

// Check says why pair is not a working Typha key pair for usage at now, or nil: its key must match its
// certificate, bundlePEM must trust it for usage, its CN must be commonName (when not empty) and it must
// carry uriSAN (when not empty), as Felix's TyphaCN/TyphaURISAN and Typha's ClientCN/ClientURISAN check.
// It does not say whether it is due for renewal (RenewalDue).
func Check(pair KeyPair, bundlePEM []byte, usage Usage, commonName, uriSAN string, now time.Time) error {
	cert, _, err := parsePair(pair)
	if err != nil {
		return err
	}
	if err := trusts(bundlePEM, cert, usage, now); err != nil {
		return err
	}
	if commonName != "" && cert.Subject.CommonName != commonName {
		return fmt.Errorf("certificate %q: common name is not %q", cert.Subject.CommonName, commonName)
	}
	if uriSAN != "" && !hasURI(cert, uriSAN) {
		return fmt.Errorf("certificate %q: no URI SAN %q", cert.Subject.CommonName, uriSAN)
	}
	return nil
}

func hasURI(cert *x509.Certificate, uri string) bool {
	for _, u := range cert.URIs {
		if u.String() == uri {
			return true
		}
	}
	return false
}

// parseCert parses the first certificate of certPEM.
func parseCert(certPEM []byte) (*x509.Certificate, error) { return calicotls.ParseCertificate(certPEM) }

// parsePair parses a key pair's certificate and key (calicotls.ParseKeyPair: the key must be the
// certificate's).
func parsePair(pair KeyPair) (*x509.Certificate, crypto.Signer, error) {
	return calicotls.ParseKeyPair(pair)
}

// Validity reads a certificate's common name and validity period, to say when it expires and when
// RenewalDue turns true.
func Validity(certPEM []byte) (commonName string, notBefore, notAfter time.Time, err error) {
	cert, err := parseCert(certPEM)
	if err != nil {
		return "", time.Time{}, time.Time{}, err
	}
	return cert.Subject.CommonName, cert.NotBefore, cert.NotAfter, nil
}

// RenewalTime is when RenewalDue turns true for a certificate valid from notBefore to notAfter.
func RenewalTime(notBefore, notAfter time.Time) time.Time {
	return notAfter.Add(-notAfter.Sub(notBefore) / 3)
}
