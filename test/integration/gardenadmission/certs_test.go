package gardenadmission

import (
	"context"
	"crypto/x509"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/calico-pilot/calico-pilot/internal/certs"
)

// TestCertificateLifecycle drives internal/certs with a fake clock over the real API server: a 30-day CA
// is replaced 10 days before it expires, the old one stays in the bundle for 24 hours, the serving
// certificate always verifies against the bundle.
func TestCertificateLifecycle(t *testing.T) {
	c := newClient(t, runtimeCP)
	if err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "certs-lifecycle"}}); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	clk := testingclock.NewFakeClock(start)
	m, err := certs.NewManager(c, certs.Config{Namespace: "certs-lifecycle", Name: "webhook-certs", Hosts: []string{"gardener-extension-admission-calico.garden"}, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	ensure := func(at time.Time) certs.Bundle {
		t.Helper()
		clk.SetTime(at)
		b, err := m.Ensure(context.Background())
		if err != nil {
			t.Fatalf("Ensure at %s: %v", at, err)
		}
		leaf, _ := parseCerts(b.CertPEM)
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(b.CABundle)
		if _, err := leaf[0].Verify(x509.VerifyOptions{Roots: pool, DNSName: "gardener-extension-admission-calico.garden", CurrentTime: at}); err != nil {
			t.Errorf("at %s the serving certificate does not verify against the bundle: %v", at, err)
		}
		return b
	}
	first := ensure(start)
	if n := len(bundleNames(first.CABundle)); n != 1 {
		t.Fatalf("initial bundle has %d CAs, want 1", n)
	}
	if again := ensure(start.Add(19 * 24 * time.Hour)); !again.Equal(first) {
		t.Errorf("day 19: certificates changed before the renewal point (10 days before expiry)")
	}
	rotated := ensure(start.Add(21 * 24 * time.Hour))
	names := bundleNames(rotated.CABundle)
	if len(names) != 2 || names[1] != bundleNames(first.CABundle)[0] {
		t.Fatalf("day 21: bundle %v, want the new CA followed by the old one", names)
	}
	if rotated.Equal(first) {
		t.Fatal("day 21: nothing was rotated")
	}
	later := ensure(start.Add(22*24*time.Hour + time.Hour))
	if got := bundleNames(later.CABundle); len(got) != 1 || got[0] != names[0] {
		t.Errorf("25 hours after the rotation the bundle is %v, want only the new CA %s", got, names[0])
	}
}
