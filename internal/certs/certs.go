package certs

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Keys of the Secret.
const (
	KeyCACert     = "ca.crt"
	KeyCAKey      = "ca.key"
	KeyOldCACert  = "old-ca.crt"
	KeyServerCert = "tls.crt"
	KeyServerKey  = "tls.key"
	// AnnotationOldCAUntil says until when the previous CA stays in the bundle (RFC 3339).
	AnnotationOldCAUntil = "calico-pilot.gardener.cloud/old-ca-until"
)

// Defaults as for Gardener's extension webhooks.
const (
	DefaultValidity   = 30 * 24 * time.Hour
	DefaultOldCAGrace = 24 * time.Hour
)

// Config says where the certificates live and what they are for.
type Config struct {
	// Namespace and Name of the Secret holding CA and serving certificate.
	Namespace, Name string
	// Hosts are the DNS names and IP addresses the serving certificate is for.
	Hosts []string
	// Validity of the CA and the serving certificate; default DefaultValidity.
	Validity time.Duration
	// OldCAGrace is how long a replaced CA stays in the bundle; default DefaultOldCAGrace.
	OldCAGrace time.Duration
	// Clock; nil means the real clock.
	Clock clock.PassiveClock
}

// Validate checks the configuration.
func (c Config) Validate() error {
	var errs []error
	if c.Namespace == "" || c.Name == "" {
		errs = append(errs, errors.New("certificate secret: namespace and name are required"))
	}
	if len(c.Hosts) == 0 {
		errs = append(errs, errors.New("certificate hosts: at least one DNS name or IP address is required"))
	}
	if c.Validity < 0 || c.OldCAGrace < 0 {
		errs = append(errs, errors.New("certificate validity and grace period must not be negative"))
	}
	return errors.Join(errs...)
}

// Bundle is what a webhook needs: the CA bundle for the webhook configuration and the serving pair.
type Bundle struct {
	CABundle []byte
	CertPEM  []byte
	KeyPEM   []byte
}

// Manager keeps the Secret current.
type Manager struct {
	c   client.Client
	cfg Config
}

// NewManager returns a manager writing through c.
func NewManager(c client.Client, cfg Config) (*Manager, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Validity == 0 {
		cfg.Validity = DefaultValidity
	}
	if cfg.OldCAGrace == 0 {
		cfg.OldCAGrace = DefaultOldCAGrace
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	return &Manager{c: c, cfg: cfg}, nil
}

// renewBefore is how long before expiry a certificate is replaced: 10 days (Gardener's rule), but at
// least a fifth and at most half of the validity, so short validities (tests) rotate sensibly.
func (m *Manager) renewBefore() time.Duration {
	d := 10 * 24 * time.Hour
	if min := m.cfg.Validity / 5; d < min {
		d = min
	}
	if max := m.cfg.Validity / 2; d > max {
		d = max
	}
	return d
}

func (m *Manager) due(cert *x509.Certificate, now time.Time) bool {
	return !now.Before(cert.NotAfter.Add(-m.renewBefore()))
}

// Ensure creates or renews the CA and the serving certificate as needed and returns the current bundle.
// Two replicas racing are settled by the Secret's resourceVersion: the loser gets a conflict and retries.
func (m *Manager) Ensure(ctx context.Context) (Bundle, error) {
	now := m.cfg.Clock.Now()
	secret, exists, err := m.readSecret(ctx)
	if err != nil {
		return Bundle{}, err
	}
	ca, caKey, caChanged, err := m.ensureCA(secret, now)
	if err != nil {
		return Bundle{}, err
	}
	oldCAChanged := dropExpiredOldCA(secret, now)
	serverChanged, err := m.ensureServer(secret, ca, caKey, now)
	if err != nil {
		return Bundle{}, err
	}
	if caChanged || oldCAChanged || serverChanged {
		if err := m.writeSecret(ctx, secret, exists); err != nil {
			return Bundle{}, err
		}
	}
	bundle := slices.Concat(secret.Data[KeyCACert], secret.Data[KeyOldCACert])
	return Bundle{CABundle: bundle, CertPEM: secret.Data[KeyServerCert], KeyPEM: secret.Data[KeyServerKey]}, nil
}

// readSecret reads the certificate Secret, or a new one to create (exists false); Data is never nil.
func (m *Manager) readSecret(ctx context.Context) (secret *corev1.Secret, exists bool, err error) {
	key := client.ObjectKey{Namespace: m.cfg.Namespace, Name: m.cfg.Name}
	secret = &corev1.Secret{}
	exists = true
	if err := m.c.Get(ctx, key, secret); apierrors.IsNotFound(err) {
		exists = false
		secret = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}, Type: corev1.SecretTypeOpaque}
	} else if err != nil {
		return nil, false, fmt.Errorf("reading certificate secret %s: %w", key, err)
	}
	if secret.Data == nil {
		secret.Data = map[string][]byte{}
	}
	return secret, exists, nil
}

// ensureCA returns the Secret's CA, replaced by a new one when it is missing, unreadable or due
// (the replaced one stays trusted for the grace period); changed says it was replaced.
func (m *Manager) ensureCA(secret *corev1.Secret, now time.Time) (ca *x509.Certificate, caKey *ecdsa.PrivateKey, changed bool, err error) {
	ca, caKey, err = parsePair(secret.Data[KeyCACert], secret.Data[KeyCAKey])
	if err == nil && !m.due(ca, now) {
		return ca, caKey, false, nil
	}
	if ca != nil {
		m.keepOldCA(secret, ca, now)
	}
	certPEM, keyPEM, err := newCA(m.cfg.Name, now, m.cfg.Validity)
	if err != nil {
		return nil, nil, false, err
	}
	secret.Data[KeyCACert], secret.Data[KeyCAKey] = certPEM, keyPEM
	if ca, caKey, err = parsePair(certPEM, keyPEM); err != nil {
		return nil, nil, false, err
	}
	return ca, caKey, true, nil
}

// keepOldCA keeps the replaced CA trusted for the grace period (not beyond its own expiry).
func (m *Manager) keepOldCA(secret *corev1.Secret, ca *x509.Certificate, now time.Time) {
	until := now.Add(m.cfg.OldCAGrace)
	if ca.NotAfter.Before(until) {
		until = ca.NotAfter
	}
	secret.Data[KeyOldCACert] = secret.Data[KeyCACert]
	if secret.Annotations == nil {
		secret.Annotations = map[string]string{}
	}
	secret.Annotations[AnnotationOldCAUntil] = until.UTC().Format(time.RFC3339)
}

// dropExpiredOldCA removes a replaced CA whose grace period ended (or cannot be read); it says
// whether it did.
func dropExpiredOldCA(secret *corev1.Secret, now time.Time) bool {
	until, ok := secret.Annotations[AnnotationOldCAUntil]
	if !ok {
		return false
	}
	if t, err := time.Parse(time.RFC3339, until); err == nil && now.Before(t) {
		return false
	}
	delete(secret.Data, KeyOldCACert)
	delete(secret.Annotations, AnnotationOldCAUntil)
	return true
}

// ensureServer issues a new serving certificate when the Secret's is missing, unreadable, due, not
// signed by ca or not for the configured hosts; changed says it did.
func (m *Manager) ensureServer(secret *corev1.Secret, ca *x509.Certificate, caKey *ecdsa.PrivateKey, now time.Time) (changed bool, err error) {
	server, _, err := parsePair(secret.Data[KeyServerCert], secret.Data[KeyServerKey])
	if err == nil && !m.due(server, now) && server.CheckSignatureFrom(ca) == nil && sameHosts(server, m.cfg.Hosts) {
		return false, nil
	}
	certPEM, keyPEM, err := newServerCert(ca, caKey, m.cfg.Hosts, now, m.cfg.Validity)
	if err != nil {
		return false, err
	}
	secret.Data[KeyServerCert], secret.Data[KeyServerKey] = certPEM, keyPEM
	return true, nil
}

// writeSecret creates or updates the Secret.
func (m *Manager) writeSecret(ctx context.Context, secret *corev1.Secret, exists bool) error {
	var err error
	if exists {
		err = m.c.Update(ctx, secret)
	} else {
		err = m.c.Create(ctx, secret)
	}
	if err != nil {
		return fmt.Errorf("writing certificate secret %s: %w", client.ObjectKey{Namespace: m.cfg.Namespace, Name: m.cfg.Name}, err)
	}
	return nil
}

func parsePair(certPEM, keyPEM []byte) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		return nil, nil, errors.New("missing certificate or key")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, nil, err
	}
	key, err := x509.ParseECPrivateKey(kb.Bytes)
	if err != nil {
		return nil, nil, err
	}
	return cert, key, nil
}

func sameHosts(cert *x509.Certificate, hosts []string) bool {
	var got []string
	got = append(got, cert.DNSNames...)
	for _, ip := range cert.IPAddresses {
		got = append(got, ip.String())
	}
	want := slices.Clone(hosts)
	slices.Sort(got)
	slices.Sort(want)
	return slices.Equal(got, want)
}

func serial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
}

func encode(der []byte, key *ecdsa.PrivateKey) ([]byte, []byte, error) {
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}

func newCA(name string, now time.Time, validity time.Duration) ([]byte, []byte, error) {
	return Issue("CA", &x509.Certificate{
		Subject:               pkix.Name{CommonName: name + "-ca-" + now.UTC().Format("20060102T150405Z")},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(validity),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
	}, nil, nil)
}

func newServerCert(ca *x509.Certificate, caKey *ecdsa.PrivateKey, hosts []string, now time.Time, validity time.Duration) ([]byte, []byte, error) {
	notAfter := now.Add(validity)
	if ca.NotAfter.Before(notAfter) {
		notAfter = ca.NotAfter
	}
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: hosts[0]},
		NotBefore:   now.Add(-time.Minute),
		NotAfter:    notAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	return Issue("serving", tmpl, ca, caKey)
}

// Issue creates the certificate tmpl describes with a new ECDSA P-256 key and a random serial number
// (set in tmpl), signed by parent with parentKey (any key type: an adopted CA may be RSA), or
// self-signed when parent is nil, and returns it and its key as PEM ("CERTIFICATE", "EC PRIVATE KEY").
// what names the certificate in errors ("CA", "serving"). The webhook's certificates and Typha's
// (internal/typhatls) are issued by it.
func Issue(what string, tmpl, parent *x509.Certificate, parentKey crypto.Signer) ([]byte, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generating %s key: %w", what, err)
	}
	if tmpl.SerialNumber, err = serial(); err != nil {
		return nil, nil, err
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		return nil, nil, fmt.Errorf("creating %s certificate: %w", what, err)
	}
	return encode(der, key)
}

// Equal reports whether two bundles are the same bytes.
func (b Bundle) Equal(o Bundle) bool {
	return bytes.Equal(b.CABundle, o.CABundle) && bytes.Equal(b.CertPEM, o.CertPEM) && bytes.Equal(b.KeyPEM, o.KeyPEM)
}
