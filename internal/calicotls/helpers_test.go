package calicotls_test

import (
	"crypto/x509"
	"maps"
	"slices"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/calico-pilot/calico-pilot/internal/calicotls"
	"github.com/calico-pilot/calico-pilot/internal/calicotls/calicotlstest"
)

var t0 = time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

// table is every key pair of the operator's layout.
func table() calicotls.Table {
	return calicotls.TigeraOperatorTable(calicotls.TableOptions{Namespace: "calico-system", ClusterDomain: "cluster.local",
		TyphaTLS: true, APIServer: true, Goldmane: true, Whisker: true})
}

// cluster is the material a cluster holds, as Read gives it; write does what a caller does with a step.
type cluster struct{ in calicotls.Input }

func newCluster() *cluster {
	return &cluster{in: calicotls.Input{Table: table(), Secrets: map[string]*corev1.Secret{}, ConfigMaps: map[string]*corev1.ConfigMap{}}}
}

func (c *cluster) snapshot() calicotls.Input {
	in := c.in
	in.Secrets = maps.Clone(c.in.Secrets)
	in.ConfigMaps = maps.Clone(c.in.ConfigMaps)
	return in
}

func (c *cluster) write(s calicotls.Step) {
	for _, sec := range s.Secrets {
		if sec.Name == calicotls.CASecret {
			c.in.CASecret = sec
		} else {
			c.in.Secrets[sec.Name] = sec
		}
	}
	for _, cm := range s.ConfigMaps {
		c.in.ConfigMaps[cm.Name] = cm
	}
	if s.APIServiceCABundle != nil {
		c.in.APIServiceFound, c.in.APIServiceCABundle = true, s.APIServiceCABundle
	}
}

func mustPlan(t *testing.T, now time.Time, in calicotls.Input) *calicotls.Result {
	t.Helper()
	r, err := calicotls.Plan(now, in)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// settle plans and writes every step, and checks that a second plan has nothing to do.
func (c *cluster) settle(t *testing.T, now time.Time) *calicotls.Result {
	t.Helper()
	r := mustPlan(t, now, c.in)
	for _, s := range r.Steps {
		c.write(s)
	}
	again := mustPlan(t, now, c.in)
	if len(again.Steps) != 0 {
		t.Fatalf("a second plan has steps: %s", titles(again.Steps))
	}
	if !maps.Equal(again.Checksums, r.Checksums) {
		t.Fatalf("checksums after the steps %v, a second plan says %v", r.Checksums, again.Checksums)
	}
	return r
}

func titles(steps []calicotls.Step) []string {
	var out []string
	for _, s := range steps {
		out = append(out, s.Title)
	}
	return out
}

func bundleOf(in calicotls.Input, name string) []byte {
	if name == calicotls.APIServiceName {
		return in.APIServiceCABundle
	}
	if cm := in.ConfigMaps[name]; cm != nil {
		return []byte(cm.Data[calicotls.KeyBundle])
	}
	return nil
}

// checkTrust verifies with crypto/x509 that every bundle of every state in states trusts every key
// pair's certificate of every state in states, for the usages its peers check: the states are what
// runs side by side during a rollout.
func checkTrust(t *testing.T, now time.Time, states ...calicotls.Input) {
	t.Helper()
	for _, p := range table().Pairs {
		for _, via := range p.TrustedVia {
			for i, leafState := range states {
				sec := leafState.Secrets[p.Secret]
				if sec == nil {
					continue
				}
				for j, bundleState := range states {
					b := bundleOf(bundleState, via)
					if b == nil {
						continue
					}
					if err := calicotls.Trusts(b, sec.Data[corev1.TLSCertKey], now, p.Usages...); err != nil {
						t.Errorf("%s of state %d, bundle %s of state %d: %v", p.Secret, i, via, j, err)
					}
				}
			}
		}
	}
}

func secretNames(ss []*corev1.Secret) []string {
	var n []string
	for _, s := range ss {
		n = append(n, s.Name)
	}
	sort.Strings(n)
	return n
}

func configMapNames(cs []*corev1.ConfigMap) []string {
	var n []string
	for _, c := range cs {
		n = append(n, c.Name)
	}
	sort.Strings(n)
	return n
}

func workloadNames(ws []calicotls.Workload) []string {
	var n []string
	for _, w := range ws {
		n = append(n, w.Name)
	}
	sort.Strings(n)
	return n
}

func parse(t *testing.T, certPEM []byte) *x509.Certificate {
	t.Helper()
	c, err := calicotls.ParseCertificate(certPEM)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func rsaCA(t *testing.T, cn string, from time.Time) calicotls.KeyPair {
	return calicotlstest.OperatorCA(t, cn, from)
}

func rsaLeaf(t *testing.T, ca *calicotls.KeyPair, hosts []string, from time.Time, validity time.Duration) calicotls.KeyPair {
	return calicotlstest.OperatorLeaf(t, ca, hosts, from, validity)
}

func secret(name string, typ corev1.SecretType, kp calicotls.KeyPair) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "calico-system", Name: name}, Type: typ,
		Data: map[string][]byte{corev1.TLSCertKey: kp.CertPEM, corev1.TLSPrivateKeyKey: kp.KeyPEM}}
}

func bundleConfigMap(name string, certs, system []byte) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "calico-system", Name: name},
		Data: map[string]string{"tigera-ca-bundle.crt": string(certs), "ca.crt": string(certs), "ca-bundle.crt": string(system)}}
}

// operatorInstall is the tigera operator's TLS material as it runs (docs/certificates.md): its CA,
// the five key pairs issued at issued (825 days), the three bundles (tigera-ca-bundle with a system
// root) and the APIService's caBundle (the apiserver's tls.crt: leaf and CA). It returns the system
// root too.
func operatorInstall(t *testing.T, issued time.Time) (*cluster, calicotls.KeyPair, []byte) {
	t.Helper()
	c := newCluster()
	ca := rsaCA(t, "tigera-operator-signer@1764669600", issued.Add(-day))
	c.in.OperatorCA = ca
	for _, p := range c.in.Table.Pairs {
		hosts := append(slices.Clone(p.DNSNames), p.IPAddresses...)
		kp := rsaLeaf(t, &ca, hosts, issued, 825*day)
		c.in.Secrets[p.Secret] = secret(p.Secret, corev1.SecretTypeTLS, kp)
		if p.Secret == "calico-apiserver-certs" {
			c.in.APIServiceFound, c.in.APIServiceCABundle = true, kp.CertPEM
		}
	}
	root := rsaLeafRoot(t)
	c.in.ConfigMaps["tigera-ca-bundle"] = bundleConfigMap("tigera-ca-bundle", ca.CertPEM, append(slices.Clone(root), ca.CertPEM...))
	c.in.ConfigMaps["goldmane-ca-bundle"] = bundleConfigMap("goldmane-ca-bundle", ca.CertPEM, nil)
	c.in.ConfigMaps["whisker-ca-bundle"] = bundleConfigMap("whisker-ca-bundle", ca.CertPEM, nil)
	return c, ca, root
}

// rsaLeafRoot is a stand-in for one of the system's roots in ca-bundle.crt.
func rsaLeafRoot(t *testing.T) []byte {
	t.Helper()
	return rsaCA(t, "Some System Root CA", t0.Add(-365*day)).CertPEM
}
