// Package calicotlstest builds TLS material as the tigera operator makes it (RSA 2048 CA and leaves,
// a leaf's tls.crt followed by its CA), for the tests of internal/calicotls and its integration
// suite; imported only by tests.
package calicotlstest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/calico-pilot/calico-pilot/internal/calicotls"
)

// OperatorCA is a CA as the tigera operator makes one: RSA 2048 with a PKCS#1 key, CN cn, valid from
// from for 100 years.
func OperatorCA(t testing.TB, cn string, from time.Time) calicotls.KeyPair {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(t), Subject: pkix.Name{CommonName: cn},
		NotBefore: from, NotAfter: from.Add(100 * 365 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return calicotls.KeyPair{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}),
	}
}

// OperatorLeaf is a leaf as the operator issues one: RSA 2048, CN the first of the sorted hosts (DNS
// names and IP addresses), EKU serverAuth and clientAuth, valid from from for validity, tls.crt the
// leaf followed by the CA. A nil ca makes it self-signed: a certificate the user brought.
func OperatorLeaf(t testing.TB, ca *calicotls.KeyPair, hosts []string, from time.Time, validity time.Duration) calicotls.KeyPair {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	sorted := slices.Sorted(slices.Values(hosts))
	tmpl := &x509.Certificate{
		SerialNumber: serial(t), Subject: pkix.Name{CommonName: sorted[0]},
		NotBefore: from, NotAfter: from.Add(validity),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	for _, h := range sorted {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	parent, signer := tmpl, any(key)
	var chain []byte
	if ca != nil {
		caCert, caKey, err := calicotls.ParseKeyPair(*ca)
		if err != nil {
			t.Fatal(err)
		}
		parent, signer, chain = caCert, caKey, ca.CertPEM
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		t.Fatal(err)
	}
	return calicotls.KeyPair{
		CertPEM: append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), chain...),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}),
	}
}

func serial(t testing.TB) *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		t.Fatal(err)
	}
	return n
}
