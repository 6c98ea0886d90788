package calicotls

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"

	"github.com/calico-pilot/calico-pilot/internal/certs"
)

// KeyPair is a PEM certificate and its PEM private key: the tls.crt and tls.key of a
// kubernetes.io/tls Secret. CertPEM may carry more certificates after the first (the operator's
// leaves carry their CA); the first is the key pair's certificate.
type KeyPair struct {
	CertPEM, KeyPEM []byte
}

// IsZero is true when neither a certificate nor a key is set.
func (p KeyPair) IsZero() bool { return len(p.CertPEM) == 0 && len(p.KeyPEM) == 0 }

// backdate is how far before now a certificate becomes valid, for clocks a little behind the issuer's.
const backdate = time.Minute

// newCA issues a self-signed CA named commonName, valid from now for validity.
func newCA(commonName string, now time.Time, validity time.Duration) (KeyPair, error) {
	certPEM, keyPEM, err := certs.Issue("CA", &x509.Certificate{
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-backdate),
		NotAfter:              now.Add(validity),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
	}, nil, nil)
	if err != nil {
		return KeyPair{}, fmt.Errorf("issuing the CA %s: %w", commonName, err)
	}
	return KeyPair{CertPEM: certPEM, KeyPEM: keyPEM}, nil
}

// issueLeaf issues p's certificate signed by ca, valid from now for validity but never beyond the
// CA: CN, DNS and IP SANs from p, EKU serverAuth and clientAuth as the operator issues every leaf.
func issueLeaf(ca *parsedCA, p Pair, now time.Time, validity time.Duration) (KeyPair, error) {
	notAfter := now.Add(validity)
	if ca.cert.NotAfter.Before(notAfter) {
		notAfter = ca.cert.NotAfter
	}
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: p.CommonName},
		DNSNames:    slices.Clone(p.DNSNames),
		NotBefore:   now.Add(-backdate),
		NotAfter:    notAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	for _, ip := range p.IPAddresses {
		tmpl.IPAddresses = append(tmpl.IPAddresses, net.ParseIP(ip))
	}
	certPEM, keyPEM, err := certs.Issue(p.Secret, tmpl, ca.cert, ca.key)
	if err != nil {
		return KeyPair{}, fmt.Errorf("issuing %s: %w", p.Secret, err)
	}
	return KeyPair{CertPEM: certPEM, KeyPEM: keyPEM}, nil
}

// Trusts says why bundlePEM (CA certificates, or pinned certificates) does not trust the first
// certificate of leafPEM at now for every one of usages (none: any usage), or nil when it does: the
// chain, the validity period and the extended key usages, as crypto/x509 verifies them for Go's TLS.
func Trusts(bundlePEM, leafPEM []byte, now time.Time, usages ...x509.ExtKeyUsage) error {
	cert, err := ParseCertificate(leafPEM)
	if err != nil {
		return err
	}
	return trusts(bundlePEM, cert, now, usages)
}

func trusts(bundlePEM []byte, cert *x509.Certificate, now time.Time, usages []x509.ExtKeyUsage) error {
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(bundlePEM) {
		return errors.New("the CA bundle holds no certificate")
	}
	if len(usages) == 0 {
		usages = []x509.ExtKeyUsage{x509.ExtKeyUsageAny}
	}
	// crypto/x509 accepts a chain when any one of KeyUsages is allowed: check each on its own.
	for _, u := range usages {
		if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{u}}); err != nil {
			return fmt.Errorf("certificate %q: %w", cert.Subject.CommonName, err)
		}
	}
	return nil
}

// ParseCertificate parses the first certificate of certPEM.
func ParseCertificate(certPEM []byte) (*x509.Certificate, error) {
	rest := certPEM
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return nil, errors.New("no PEM certificate")
		}
		if b.Type == "CERTIFICATE" {
			cert, err := x509.ParseCertificate(b.Bytes)
			if err != nil {
				return nil, fmt.Errorf("parsing the certificate: %w", err)
			}
			return cert, nil
		}
	}
}

// parseCertificates parses every certificate of a PEM bundle, skipping what is not one.
func parseCertificates(bundlePEM []byte) []*x509.Certificate {
	var out []*x509.Certificate
	rest := bundlePEM
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return out
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		if c, err := x509.ParseCertificate(b.Bytes); err == nil {
			out = append(out, c)
		}
	}
}

// ParseKeyPair parses a key pair's first certificate and its key, and checks that the key is the
// certificate's.
func ParseKeyPair(pair KeyPair) (*x509.Certificate, crypto.Signer, error) {
	cert, err := ParseCertificate(pair.CertPEM)
	if err != nil {
		return nil, nil, err
	}
	key, err := ParsePrivateKey(pair.KeyPEM)
	if err != nil {
		return nil, nil, err
	}
	if !samePublicKey(cert.PublicKey, key.Public()) {
		return nil, nil, fmt.Errorf("certificate %q: the key is not the certificate's", cert.Subject.CommonName)
	}
	return cert, key, nil
}

// ParsePrivateKey parses a PEM private key: PKCS#1 (RSA, as the operator writes its CA), SEC 1 (EC)
// or PKCS#8.
func ParsePrivateKey(keyPEM []byte) (crypto.Signer, error) {
	b, _ := pem.Decode(bytes.TrimSpace(keyPEM))
	if b == nil {
		return nil, errors.New("no PEM private key")
	}
	if k, err := x509.ParsePKCS1PrivateKey(b.Bytes); err == nil {
		return k, nil
	}
	if k, err := x509.ParseECPrivateKey(b.Bytes); err == nil {
		return k, nil
	}
	k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		return nil, fmt.Errorf("parsing the private key (%s): not PKCS#1, SEC 1 or PKCS#8", b.Type)
	}
	switch k := k.(type) {
	case *rsa.PrivateKey:
		return k, nil
	case *ecdsa.PrivateKey:
		return k, nil
	case ed25519.PrivateKey:
		return k, nil
	}
	return nil, fmt.Errorf("parsing the private key (%s): unsupported key type %T", b.Type, k)
}

func samePublicKey(a, b crypto.PublicKey) bool {
	k, ok := a.(interface{ Equal(crypto.PublicKey) bool })
	return ok && k.Equal(b)
}

// parsedCA is a CA calico-pilot signs with.
type parsedCA struct {
	pair KeyPair
	cert *x509.Certificate
	key  crypto.Signer
}

func parseCA(pair KeyPair) (*parsedCA, error) {
	cert, key, err := ParseKeyPair(pair)
	if err != nil {
		return nil, err
	}
	if !cert.IsCA {
		return nil, fmt.Errorf("certificate %q is no CA", cert.Subject.CommonName)
	}
	// Only the CA's own certificate: an operator's tls.crt may carry more.
	return &parsedCA{pair: KeyPair{CertPEM: encodeCert(cert), KeyPEM: pair.KeyPEM}, cert: cert, key: key}, nil
}

// signedBy says whether cert's signature is ca's (the issuing CA's key, as the operator checks with
// the AuthorityKeyId).
func signedBy(cert, ca *x509.Certificate) bool {
	return bytes.Equal(cert.RawIssuer, ca.RawSubject) && cert.CheckSignatureFrom(ca) == nil
}

func encodeCert(c *x509.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})
}

func encodeCerts(cs []*x509.Certificate) []byte {
	var b []byte
	for _, c := range cs {
		b = append(b, encodeCert(c)...)
	}
	return b
}
