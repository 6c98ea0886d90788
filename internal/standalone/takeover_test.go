package standalone

import (
	"testing"
	"time"

	"github.com/calico-pilot/calico-pilot/internal/install"
	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/typhatls"
)

// TestTakeoverRenewsDueCertificates: calico-node's and Typha's key pairs are issued anew with the
// operator's CA once less than a third of their lifetime is left (or when missing), the new ones
// are trusted by the same CA bundle for their use and CN, and the pods' checksum changes with them;
// pairs that are not due are kept and the checksum stays.
func TestTakeoverRenewsDueCertificates(t *testing.T) {
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	ca, err := typhatls.NewCA("tigera-operator-signer", start, 0)
	if err != nil {
		t.Fatal(err)
	}
	leaf := func(cn string, usage typhatls.Usage) typhatls.KeyPair {
		kp, err := typhatls.Issue(ca, typhatls.Leaf{CommonName: cn, Usage: usage, Validity: 90 * 24 * time.Hour}, start)
		if err != nil {
			t.Fatal(err)
		}
		return kp
	}
	typha := leaf("typha-server", typhatls.Server)
	newTakeover := func(node typhatls.KeyPair) *takeover {
		tls := layout.TigeraOperatorTyphaTLS()
		return &takeover{lay: layout.TigeraOperator(), tls: &tls, op: &install.Operator{TLS: &install.OperatorTLS{
			Bundle: map[string]string{"tigera-ca-bundle.crt": string(ca.CertPEM)}, CA: ca,
			Node: node, Typha: typha,
		}}}
	}
	node := leaf("typha-client", typhatls.Client)

	early := newTakeover(node)
	if err := early.renew(start.Add(24 * time.Hour)); err != nil {
		t.Fatal(err)
	}
	again := newTakeover(node)
	if err := again.renew(start.Add(48 * time.Hour)); err != nil {
		t.Fatal(err)
	}
	if len(early.renewed) != 0 || early.tls.Checksum == "" || early.tls.Checksum != again.tls.Checksum {
		t.Fatalf("not due: renewed %v, checksums %q and %q", early.renewed, early.tls.Checksum, again.tls.Checksum)
	}

	late := start.Add(70 * 24 * time.Hour) // 20 of 90 days left
	due := newTakeover(node)
	if err := due.renew(late); err != nil {
		t.Fatal(err)
	}
	if len(due.renewed) != 2 || due.tls.Checksum == early.tls.Checksum {
		t.Fatalf("due: renewed %d pair(s), checksum %q (was %q)", len(due.renewed), due.tls.Checksum, early.tls.Checksum)
	}
	for secret, want := range map[string]struct {
		cn    string
		usage typhatls.Usage
	}{"node-certs": {"typha-client", typhatls.Client}, "typha-certs": {"typha-server", typhatls.Server}} {
		if err := typhatls.Check(due.renewed[secret], ca.CertPEM, want.usage, want.cn, "", late); err != nil {
			t.Errorf("renewed %s: %v", secret, err)
		}
		if again, err := typhatls.RenewalDue(due.renewed[secret].CertPEM, late); err != nil || again {
			t.Errorf("renewed %s is due again at once: %v, %v", secret, again, err)
		}
	}

	missing := newTakeover(typhatls.KeyPair{})
	if err := missing.renew(start.Add(24 * time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, ok := missing.renewed["node-certs"]; !ok || len(missing.renewed) != 1 {
		t.Errorf("a missing node-certs is not issued: %v", missing.renewed)
	}
}
