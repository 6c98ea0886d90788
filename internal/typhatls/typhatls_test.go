package typhatls_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/calico-pilot/calico-pilot/internal/typhatls"
)

var t0 = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)

func mustCA(t *testing.T, cn string, validity time.Duration) typhatls.KeyPair {
	t.Helper()
	ca, err := typhatls.NewCA(cn, t0, validity)
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

func mustIssue(t *testing.T, ca typhatls.KeyPair, leaf typhatls.Leaf, now time.Time) typhatls.KeyPair {
	t.Helper()
	p, err := typhatls.Issue(ca, leaf, now)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func parse(t *testing.T, certPEM []byte) *x509.Certificate {
	t.Helper()
	b, _ := pem.Decode(certPEM)
	if b == nil {
		t.Fatal("no PEM")
	}
	c, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func wantErr(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("error = %v, want none", err)
		}
		return
	}
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %q", err, want)
	}
}

func TestIssue(t *testing.T) {
	ca := mustCA(t, "calico-pilot-typha-ca", 0)
	caCert := parse(t, ca.CertPEM)
	if !caCert.IsCA || caCert.Subject.CommonName != "calico-pilot-typha-ca" || caCert.CheckSignatureFrom(caCert) != nil {
		t.Fatalf("CA: IsCA %v, CN %q, self-signed %v", caCert.IsCA, caCert.Subject.CommonName, caCert.CheckSignatureFrom(caCert))
	}
	if !caCert.NotBefore.Equal(t0.Add(-time.Minute)) || !caCert.NotAfter.Equal(t0.Add(10*365*24*time.Hour)) {
		t.Errorf("CA valid %s to %s", caCert.NotBefore, caCert.NotAfter)
	}
	for _, tc := range []struct {
		leaf    typhatls.Leaf
		wantEKU x509.ExtKeyUsage
	}{
		{typhatls.Leaf{CommonName: "typha-server", Usage: typhatls.Server}, x509.ExtKeyUsageServerAuth},
		{typhatls.Leaf{CommonName: "typha-client", Usage: typhatls.Client}, x509.ExtKeyUsageClientAuth},
	} {
		t.Run(tc.leaf.CommonName, func(t *testing.T) {
			p := mustIssue(t, ca, tc.leaf, t0)
			c := parse(t, p.CertPEM)
			if c.Subject.CommonName != tc.leaf.CommonName || !slices.Equal(c.DNSNames, []string{tc.leaf.CommonName}) {
				t.Errorf("CN %q, DNS SANs %v", c.Subject.CommonName, c.DNSNames)
			}
			if !slices.Equal(c.ExtKeyUsage, []x509.ExtKeyUsage{tc.wantEKU}) || c.IsCA {
				t.Errorf("EKU %v, IsCA %v", c.ExtKeyUsage, c.IsCA)
			}
			if !c.NotBefore.Equal(t0.Add(-time.Minute)) || !c.NotAfter.Equal(t0.Add(365*24*time.Hour)) {
				t.Errorf("valid %s to %s", c.NotBefore, c.NotAfter)
			}
			if err := c.CheckSignatureFrom(parse(t, ca.CertPEM)); err != nil {
				t.Errorf("not signed by the CA: %v", err)
			}
			wantErr(t, typhatls.Check(p, ca.CertPEM, tc.leaf.Usage, tc.leaf.CommonName, "", t0), "")
		})
	}
}

func TestIssueNeverOutlivesTheCA(t *testing.T) {
	ca := mustCA(t, "short-ca", 48*time.Hour)
	c := parse(t, mustIssue(t, ca, typhatls.Leaf{CommonName: "typha-server", Usage: typhatls.Server}, t0).CertPEM)
	if !c.NotAfter.Equal(t0.Add(48 * time.Hour)) {
		t.Errorf("NotAfter = %s, want the CA's %s", c.NotAfter, t0.Add(48*time.Hour))
	}
}

func TestIssueURISAN(t *testing.T) {
	ca := mustCA(t, "ca", 0)
	p := mustIssue(t, ca, typhatls.Leaf{CommonName: "typha-client", URISAN: "spiffe://cluster.local/ns/calico-system/sa/calico-node", Usage: typhatls.Client}, t0)
	wantErr(t, typhatls.Check(p, ca.CertPEM, typhatls.Client, "", "spiffe://cluster.local/ns/calico-system/sa/calico-node", t0), "")
	wantErr(t, typhatls.Check(p, ca.CertPEM, typhatls.Client, "", "spiffe://other", t0), `certificate "typha-client": no URI SAN "spiffe://other"`)
}

func TestIssueErrors(t *testing.T) {
	ca := mustCA(t, "ca", 0)
	leaf := mustIssue(t, ca, typhatls.Leaf{CommonName: "typha-server", Usage: typhatls.Server}, t0)
	for _, tc := range []struct {
		name string
		ca   typhatls.KeyPair
		leaf typhatls.Leaf
		want string
	}{
		{"no CN", ca, typhatls.Leaf{Usage: typhatls.Client}, "issuing the typha client certificate: no common name"},
		{"not a CA", leaf, typhatls.Leaf{CommonName: "x", Usage: typhatls.Server}, `issuing the typha server certificate: the CA certificate "typha-server" is no CA`},
		{"no PEM", typhatls.KeyPair{CertPEM: []byte("junk"), KeyPEM: ca.KeyPEM}, typhatls.Leaf{CommonName: "x"}, "issuing the typha server certificate: the CA: no PEM certificate"},
		{"no key", typhatls.KeyPair{CertPEM: ca.CertPEM}, typhatls.Leaf{CommonName: "x"}, "issuing the typha server certificate: the CA: no PEM private key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := typhatls.Issue(tc.ca, tc.leaf, t0)
			wantErr(t, err, tc.want)
		})
	}
	_, err := typhatls.NewCA("", t0, 0)
	wantErr(t, err, "issuing the typha CA: no common name")
}

func TestTrusts(t *testing.T) {
	ca := mustCA(t, "ca", 0)
	other := mustCA(t, "other-ca", 0)
	server := mustIssue(t, ca, typhatls.Leaf{CommonName: "typha-server", Usage: typhatls.Server}, t0)
	for _, tc := range []struct {
		name   string
		bundle []byte
		usage  typhatls.Usage
		at     time.Time
		want   string
	}{
		{"own CA", ca.CertPEM, typhatls.Server, t0, ""},
		// A bundle during a CA rotation holds both CAs.
		{"bundle of two", append(append([]byte{}, other.CertPEM...), ca.CertPEM...), typhatls.Server, t0, ""},
		{"other CA", other.CertPEM, typhatls.Server, t0, `certificate "typha-server": x509: certificate signed by unknown authority`},
		{"wrong use", ca.CertPEM, typhatls.Client, t0, `certificate "typha-server": x509: certificate specifies an incompatible key usage`},
		{"expired", ca.CertPEM, typhatls.Server, t0.Add(366 * 24 * time.Hour), `certificate "typha-server": x509: certificate has expired or is not yet valid: current time 2027-12-03T10:00:00Z is after 2027-12-02T10:00:00Z`},
		{"empty bundle", nil, typhatls.Server, t0, "the CA bundle holds no certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantErr(t, typhatls.Trusts(tc.bundle, server.CertPEM, tc.usage, tc.at), tc.want)
		})
	}
}

func TestCheck(t *testing.T) {
	ca := mustCA(t, "ca", 0)
	client := mustIssue(t, ca, typhatls.Leaf{CommonName: "typha-client", Usage: typhatls.Client}, t0)
	another := mustIssue(t, ca, typhatls.Leaf{CommonName: "typha-client", Usage: typhatls.Client}, t0)
	wantErr(t, typhatls.Check(client, ca.CertPEM, typhatls.Client, "typha-client", "", t0), "")
	wantErr(t, typhatls.Check(client, ca.CertPEM, typhatls.Client, "typha-server", "", t0), `certificate "typha-client": common name is not "typha-server"`)
	wantErr(t, typhatls.Check(typhatls.KeyPair{CertPEM: client.CertPEM, KeyPEM: another.KeyPEM}, ca.CertPEM, typhatls.Client, "typha-client", "", t0),
		`certificate "typha-client": the key is not the certificate's`)
	wantErr(t, typhatls.Check(client, ca.CertPEM, typhatls.Server, "typha-client", "", t0), `certificate "typha-client": x509: certificate specifies an incompatible key usage`)
}

// TestRenewalDue: a certificate is due once less than a third of its lifetime is left, and when it
// is expired or not yet valid. The clock is the parameter.
func TestRenewalDue(t *testing.T) {
	ca := mustCA(t, "ca", 0)
	// Valid from t0-1m to t0+90d: lifetime 90d+1m, due when less than 30d+20s are left.
	p := mustIssue(t, ca, typhatls.Leaf{CommonName: "typha-server", Usage: typhatls.Server, Validity: 90 * 24 * time.Hour}, t0)
	for _, tc := range []struct {
		at   time.Time
		want bool
	}{
		{t0, false},
		{t0.Add(59 * 24 * time.Hour), false},
		{t0.Add(60*24*time.Hour - 21*time.Second), false},
		{t0.Add(60*24*time.Hour - 19*time.Second), true},
		{t0.Add(61 * 24 * time.Hour), true},
		{t0.Add(91 * 24 * time.Hour), true},
		{t0.Add(-2 * time.Minute), true},
	} {
		got, err := typhatls.RenewalDue(p.CertPEM, tc.at)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("RenewalDue at %s = %v, want %v", tc.at, got, tc.want)
		}
	}
	_, err := typhatls.RenewalDue([]byte("junk"), t0)
	wantErr(t, err, "no PEM certificate")
}

// TestAdoptedRSACA: the tigera operator's CA is RSA with a PKCS#1 key; leaves issued under it are
// trusted by a bundle that holds it, so calico-pilot can keep the CA the pods already trust.
func TestAdoptedRSACA(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "tigera-operator-signer"},
		NotBefore: t0.Add(-time.Hour), NotAfter: t0.Add(100 * 365 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca := typhatls.KeyPair{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}),
	}
	client := mustIssue(t, ca, typhatls.Leaf{CommonName: "typha-client", Usage: typhatls.Client}, t0)
	wantErr(t, typhatls.Check(client, ca.CertPEM, typhatls.Client, "typha-client", "", t0), "")
	if c := parse(t, client.CertPEM); c.SignatureAlgorithm != x509.SHA256WithRSA {
		t.Errorf("signature algorithm %s, want SHA256-RSA", c.SignatureAlgorithm)
	}
	// The same CA with its key in PKCS#8.
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	ca.KeyPEM = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8})
	server := mustIssue(t, ca, typhatls.Leaf{CommonName: "typha-server", Usage: typhatls.Server}, t0)
	wantErr(t, typhatls.Trusts(ca.CertPEM, server.CertPEM, typhatls.Server, t0), "")
}
