package calicotls_test

import (
	"crypto/x509"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/calico-pilot/calico-pilot/internal/calicotls"
	"github.com/calico-pilot/calico-pilot/internal/install"
	"github.com/calico-pilot/calico-pilot/internal/layout"
)

// TestFreshCluster: without any material calico-pilot creates a CA and issues every key pair and
// bundle in one step (nothing runs yet that trusts anything); a second plan has nothing to do.
func TestFreshCluster(t *testing.T) {
	c := newCluster()
	r := c.settle(t, t0)
	if r.CA.Source != calicotls.CACreated || !strings.HasPrefix(r.CA.CommonName, "calico-pilot-signer@") {
		t.Errorf("CA %+v", r.CA)
	}
	if len(r.Steps) != 1 {
		t.Fatalf("steps %q, want one", titles(r.Steps))
	}
	s := r.Steps[0]
	if diff := cmp.Diff([]string{"calico-apiserver-certs", "calico-pilot-typha-ca", "goldmane-key-pair", "node-certs", "typha-certs", "whisker-backend-key-pair"}, secretNames(s.Secrets)); diff != "" {
		t.Errorf("secrets (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"goldmane-ca-bundle", "tigera-ca-bundle", "whisker-ca-bundle"}, configMapNames(s.ConfigMaps)); diff != "" {
		t.Errorf("config maps (-want +got):\n%s", diff)
	}
	if s.Await != nil {
		t.Errorf("await %v, want none", s.Await)
	}
	checkTrust(t, t0, c.in)
	// The APIService's caBundle is the CA: it trusts the serving certificate.
	if err := calicotls.Trusts(r.APIServiceCABundle, c.in.Secrets["calico-apiserver-certs"].Data["tls.crt"], t0, x509.ExtKeyUsageServerAuth); err != nil {
		t.Error(err)
	}
	for _, p := range r.Pairs {
		if p.Action != calicotls.Issue || p.Reason != "missing" || !p.NotAfter.Equal(t0.Add(825*day)) || !p.RenewAt.Equal(t0.Add(795*day)) {
			t.Errorf("%+v", p)
		}
	}
	// Every Secret is new: kubernetes.io/tls.
	for _, sec := range s.Secrets {
		if sec.Type != corev1.SecretTypeTLS {
			t.Errorf("Secret %s type %q", sec.Name, sec.Type)
		}
	}
	// Each workload's checksum covers what it mounts: six workloads, each its own.
	if len(r.Checksums) != 5 || r.Checksums["calico-node"] == r.Checksums["calico-typha"] {
		t.Errorf("checksums %v", r.Checksums)
	}
}

// TestIssuedCertificates: the SANs, CN and usages of what calico-pilot issues are the operator's.
func TestIssuedCertificates(t *testing.T) {
	c := newCluster()
	c.settle(t, t0)
	for _, tc := range []struct {
		secret, cn string
		dns, ips   []string
	}{
		{"typha-certs", "typha-server", []string{"typha-server"}, nil},
		{"node-certs", "typha-client", []string{"typha-client"}, nil},
		{"calico-apiserver-certs", "calico-api", []string{"calico-api", "calico-api.calico-system", "calico-api.calico-system.svc", "calico-api.calico-system.svc.cluster.local"}, nil},
		{"goldmane-key-pair", "goldmane", []string{"goldmane", "goldmane.calico-system", "goldmane.calico-system.svc", "goldmane.calico-system.svc.cluster.local"}, nil},
		{"whisker-backend-key-pair", "127.0.0.1", []string{"whisker-backend", "whisker-backend.calico-system", "whisker-backend.calico-system.svc", "whisker-backend.calico-system.svc.cluster.local", "localhost"}, []string{"127.0.0.1"}},
	} {
		cert := parse(t, c.in.Secrets[tc.secret].Data["tls.crt"])
		var ips []string
		for _, ip := range cert.IPAddresses {
			ips = append(ips, ip.String())
		}
		if cert.Subject.CommonName != tc.cn || !slices.Equal(cert.DNSNames, tc.dns) || !slices.Equal(ips, tc.ips) || cert.IsCA ||
			!slices.Equal(cert.ExtKeyUsage, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}) {
			t.Errorf("%s: CN %q, DNS %v, IP %v, EKU %v, CA %v", tc.secret, cert.Subject.CommonName, cert.DNSNames, ips, cert.ExtKeyUsage, cert.IsCA)
		}
	}
}

// TestAdoptOperator: the operator's RSA CA is adopted and copied; its leaves, valid for a long time
// yet, are kept and its bundles left byte for byte; the APIService's caBundle drops the operator's
// copy of the leaf (the CA trusts it), after calico-apiserver's rollout.
func TestAdoptOperator(t *testing.T) {
	c, ca, _ := operatorInstall(t, t0.Add(-100*day))
	before := c.snapshot()
	r := mustPlan(t, t0, c.in)
	if r.CA.Source != calicotls.CAAdopted || r.CA.CommonName != "tigera-operator-signer@1764669600" {
		t.Errorf("CA %+v", r.CA)
	}
	for _, p := range r.Pairs {
		if p.Action != calicotls.Keep || !p.NotAfter.Equal(t0.Add(725*day)) || !p.RenewAt.Equal(t0.Add(695*day)) {
			t.Errorf("%+v", p)
		}
	}
	if len(r.Steps) != 2 {
		t.Fatalf("steps %q", titles(r.Steps))
	}
	record, drop := r.Steps[0], r.Steps[1]
	if diff := cmp.Diff([]string{"calico-pilot-typha-ca"}, secretNames(record.Secrets)); diff != "" || len(record.ConfigMaps) != 0 || record.Rollouts != nil {
		t.Errorf("first step %q: secrets %v, config maps %v, rollouts %v", record.Title, secretNames(record.Secrets), configMapNames(record.ConfigMaps), record.Rollouts)
	}
	if got := record.Secrets[0].Data["tls.key"]; string(got) != string(ca.KeyPEM) {
		t.Error("the copy is not the operator's CA key")
	}
	if len(drop.Secrets)+len(drop.ConfigMaps) != 0 || drop.APIServiceCABundle == nil || string(drop.APIServiceCABundle) != string(ca.CertPEM) {
		t.Errorf("second step %q: secrets %v, config maps %v, caBundle %q", drop.Title, secretNames(drop.Secrets), configMapNames(drop.ConfigMaps), drop.APIServiceCABundle)
	}
	if diff := cmp.Diff([]string{"calico-apiserver"}, workloadNames(drop.Await)); diff != "" {
		t.Errorf("await (-want +got):\n%s", diff)
	}
	for _, s := range r.Steps {
		c.write(s)
		checkTrust(t, t0, before, c.in)
	}
	// No workload rolls: nothing it mounts changed.
	if !maps.Equal(r.Checksums, mustPlan(t, t0, before).Steps[0].Checksums) {
		t.Error("the checksums changed")
	}
	var out strings.Builder
	r.Report(&out, "calico-system")
	for _, want := range []string{
		`CA "tigera-operator-signer@1764669600" (the tigera operator's, adopted from Secret tigera-operator/tigera-ca-private; Secret calico-system/calico-pilot-typha-ca): valid until 2126-07-30, replaced from 2093-04-06`,
		"calico-apiserver-certs: valid until 2028-11-26, renewed from 2028-10-27",
		"step 2: drop from the bundles v3.projectcalico.org what no key pair needs any more",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

// TestRenewalNearExpiry: under the same CA only the due key pair is written and only the workloads
// that mount it roll; the bundles, unchanged, trust the old and the new certificate.
func TestRenewalNearExpiry(t *testing.T) {
	c, _, root := operatorInstall(t, t0.Add(-100*day))
	c.settle(t, t0)
	// The apiserver's certificate is issued again later than the others by hand: at 30 days before
	// the others expire only theirs are due.
	old := c.snapshot()
	at := t0.Add(725*day - 29*day)
	r := mustPlan(t, at, c.in)
	if len(r.Steps) != 1 {
		t.Fatalf("steps %q", titles(r.Steps))
	}
	s := r.Steps[0]
	if diff := cmp.Diff([]string{"calico-apiserver-certs", "goldmane-key-pair", "node-certs", "typha-certs", "whisker-backend-key-pair"}, secretNames(s.Secrets)); diff != "" || len(s.ConfigMaps) != 0 || s.APIServiceCABundle != nil || s.Await != nil {
		t.Errorf("secrets (-want +got):\n%s\nconfig maps %v, caBundle %q, await %v", diff, configMapNames(s.ConfigMaps), s.APIServiceCABundle, s.Await)
	}
	for _, p := range r.Pairs {
		if p.Action != calicotls.Issue || p.Reason != "expires 2028-11-26, less than 30 days away" {
			t.Errorf("%+v", p)
		}
		// The operator's Secrets keep their type.
	}
	if diff := cmp.Diff([]string{"calico-apiserver", "calico-node", "calico-typha", "goldmane", "whisker"}, workloadNames(s.Rollouts)); diff != "" {
		t.Errorf("rollouts (-want +got):\n%s", diff)
	}
	c.write(s)
	checkTrust(t, at, old, c.in)
	// The system root stays in ca-bundle.crt.
	if !strings.Contains(c.in.ConfigMaps["tigera-ca-bundle"].Data["ca-bundle.crt"], string(root)) {
		t.Error("the system root left ca-bundle.crt")
	}

}

// TestOneDuePair: when one key pair is due, the step writes only its Secret and rolls only the
// workload that mounts it.
func TestOneDuePair(t *testing.T) {
	c := newCluster()
	c.settle(t, t0)
	// Goldmane's pair issued 100 days later than the others.
	r := mustPlan(t, t0.Add(100*day), calicotls.Input{Table: c.in.Table, CASecret: c.in.CASecret, Secrets: map[string]*corev1.Secret{}, ConfigMaps: c.in.ConfigMaps})
	for _, s := range r.Steps {
		for _, sec := range s.Secrets {
			if sec.Name == "goldmane-key-pair" {
				c.in.Secrets[sec.Name] = sec
			}
		}
	}
	before := c.snapshot()
	at := t0.Add(825*day - 29*day)
	r = mustPlan(t, at, c.in)
	if len(r.Steps) != 1 {
		t.Fatalf("steps %q", titles(r.Steps))
	}
	s := r.Steps[0]
	if diff := cmp.Diff([]string{"calico-apiserver-certs", "node-certs", "typha-certs", "whisker-backend-key-pair"}, secretNames(s.Secrets)); diff != "" {
		t.Errorf("secrets (-want +got):\n%s", diff)
	}
	if slices.Contains(workloadNames(s.Rollouts), "goldmane") {
		t.Errorf("goldmane rolls: %v", s.Rollouts)
	}
	if s.Checksums["goldmane"] != mustPlan(t, t0.Add(100*day), before).Checksums["goldmane"] {
		t.Error("goldmane's checksum changed")
	}
	c.write(s)
	checkTrust(t, at, before, c.in)
}

// TestCARotation: a CA with a third of its lifetime left is replaced by a new one in three steps, and
// at every step every bundle that may run trusts every certificate that may run, by crypto/x509.
func TestCARotation(t *testing.T) {
	c := newCluster()
	c.in.CAValidity = 300 * day
	c.in.LeafValidity = 90 * day
	c.settle(t, t0)
	oldCA := parse(t, c.in.CASecret.Data["tls.crt"])
	at := t0.Add(201 * day)
	// Renew the leaves on the way, as periodic applies would.
	c.settle(t, t0.Add(100*day))
	c.settle(t, t0.Add(190*day))
	r := mustPlan(t, at, c.in)
	if r.CA.Source != calicotls.CARotated || !strings.Contains(r.CA.Reason, "less than a third of its lifetime is left") || !slices.Equal(r.CA.Previous, []string{oldCA.Subject.CommonName}) {
		t.Fatalf("CA %+v", r.CA)
	}
	if len(r.Steps) != 3 {
		t.Fatalf("steps %q", titles(r.Steps))
	}
	trust, issue, drop := r.Steps[0], r.Steps[1], r.Steps[2]
	if diff := cmp.Diff([]string{"calico-pilot-typha-ca"}, secretNames(trust.Secrets)); diff != "" {
		t.Errorf("step 1 secrets (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"goldmane-ca-bundle", "tigera-ca-bundle", "whisker-ca-bundle"}, configMapNames(trust.ConfigMaps)); diff != "" || trust.APIServiceCABundle == nil {
		t.Errorf("step 1 config maps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"calico-node", "calico-typha", "goldmane", "whisker"}, workloadNames(trust.Rollouts)); diff != "" {
		t.Errorf("step 1 rollouts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"calico-node", "calico-typha", "goldmane", "whisker"}, workloadNames(issue.Await)); diff != "" {
		t.Errorf("step 2 await (-want +got):\n%s", diff)
	}
	if len(issue.Secrets) != 5 || len(issue.ConfigMaps) != 0 {
		t.Errorf("step 2: secrets %v, config maps %v", secretNames(issue.Secrets), configMapNames(issue.ConfigMaps))
	}
	if diff := cmp.Diff([]string{"calico-apiserver", "calico-node", "calico-typha", "goldmane", "whisker"}, workloadNames(drop.Await)); diff != "" {
		t.Errorf("step 3 await (-want +got):\n%s", diff)
	}
	if _, ok := drop.Secrets[0].Data["previous-ca.crt"]; ok || drop.Secrets[0].Name != "calico-pilot-typha-ca" {
		t.Errorf("step 3 keeps the previous CA")
	}
	states := []calicotls.Input{c.snapshot()}
	for i, s := range r.Steps {
		c.write(s)
		states = append(states, c.snapshot())
		// What runs during this step's rollouts: the material before and after it.
		checkTrust(t, at, states[i], states[i+1])
	}
	// Skipping the order breaks trust: the old bundles do not trust the new leaves.
	for _, p := range table().Pairs {
		for _, via := range p.TrustedVia {
			if err := calicotls.Trusts(bundleOf(states[0], via), states[3].Secrets[p.Secret].Data["tls.crt"], at); err == nil {
				t.Errorf("the bundle %s before the rotation trusts the new %s", via, p.Secret)
			}
		}
	}
	final := states[3]
	for _, b := range []string{"tigera-ca-bundle", "goldmane-ca-bundle", "whisker-ca-bundle", calicotls.APIServiceName} {
		if n := strings.Count(string(bundleOf(final, b)), "BEGIN CERTIFICATE"); n != 1 {
			t.Errorf("bundle %s holds %d certificates after the rotation, want the new CA", b, n)
		}
	}
	if again := mustPlan(t, at, c.in); len(again.Steps) != 0 {
		t.Errorf("steps after the rotation: %q", titles(again.Steps))
	}
}

// TestCARotationContinues: an apply that stopped after step 1 is continued by the next plan with the
// same CA: step 2 waits for the peers' rollouts, then step 3.
func TestCARotationContinues(t *testing.T) {
	c := newCluster()
	c.in.CAValidity = 300 * day
	c.settle(t, t0)
	at := t0.Add(201 * day)
	r := mustPlan(t, at, c.in)
	c.write(r.Steps[0])
	newCA := parse(t, c.in.CASecret.Data["tls.crt"])
	r2 := mustPlan(t, at.Add(time.Hour), c.in)
	if r2.CA.Source != calicotls.CAKept || r2.CA.CommonName != newCA.Subject.CommonName {
		t.Fatalf("CA %+v", r2.CA)
	}
	if len(r2.Steps) != 2 || len(r2.Steps[0].Secrets) != 5 || len(r2.Steps[0].Await) != 4 {
		t.Fatalf("steps %q, first step secrets %v await %v", titles(r2.Steps), secretNames(r2.Steps[0].Secrets), r2.Steps[0].Await)
	}
	for _, p := range r2.Pairs {
		if !strings.HasPrefix(p.Reason, "signed by the previous CA") {
			t.Errorf("%+v", p)
		}
	}
}

// TestUserCertificate: a certificate the user brought is never re-issued, even near expiry or with
// other names; the bundles pin it so that its peers trust it; a warning says what to do.
func TestUserCertificate(t *testing.T) {
	c := newCluster()
	c.settle(t, t0)
	user := rsaLeaf(t, nil, []string{"my-api.example.com"}, t0, 40*day)
	c.in.Secrets["calico-apiserver-certs"] = secret("calico-apiserver-certs", corev1.SecretTypeOpaque, user)
	at := t0.Add(30 * day)
	r := mustPlan(t, at, c.in)
	i := slices.IndexFunc(r.Pairs, func(p calicotls.PairState) bool { return p.Secret == "calico-apiserver-certs" })
	if p := r.Pairs[i]; p.Action != calicotls.UserOwned || p.Reason != "expires 2027-01-11, less than 13 days away" {
		t.Errorf("%+v", p)
	}
	for _, s := range r.Steps {
		if slices.Contains(secretNames(s.Secrets), "calico-apiserver-certs") {
			t.Errorf("step %q re-issues the user's certificate", s.Title)
		}
	}
	want := `Secret calico-system/calico-apiserver-certs: the certificate (issuer "my-api.example.com") is not signed by calico-pilot's CA, so calico-pilot never re-issues it, but it is wrong: expires 2027-01-11, less than 13 days away; replace it, or delete the Secret to have calico-pilot issue one`
	if diff := cmp.Diff([]string{want}, r.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if err := calicotls.Trusts(r.APIServiceCABundle, user.CertPEM, at, x509.ExtKeyUsageServerAuth); err != nil {
		t.Errorf("the APIService's caBundle does not trust the user's certificate: %v", err)
	}
	for _, s := range r.Steps {
		c.write(s)
	}
	if again := mustPlan(t, at, c.in); len(again.Steps) != 0 {
		t.Errorf("steps: %q", titles(again.Steps))
	}
}

// TestPreviousCAFromCaller: a pair signed by another CA is the user's unless the caller says that CA
// was calico-pilot's: then it is re-issued in a CA change's order.
func TestPreviousCAFromCaller(t *testing.T) {
	c, opCA, _ := operatorInstall(t, t0.Add(-100*day))
	// calico-pilot holds a CA of its own; the operator's leaves are signed by the operator's CA.
	own := newCluster()
	own.settle(t, t0)
	c.in.CASecret = own.in.CASecret
	r := mustPlan(t, t0, c.in)
	for _, p := range r.Pairs {
		if p.Action != calicotls.UserOwned {
			t.Errorf("without PreviousCAs: %+v", p)
		}
	}
	c.in.PreviousCAs = opCA.CertPEM
	r = mustPlan(t, t0, c.in)
	if len(r.Steps) != 3 {
		t.Fatalf("steps %q", titles(r.Steps))
	}
	states := []calicotls.Input{c.snapshot()}
	for i, s := range r.Steps {
		c.write(s)
		states = append(states, c.snapshot())
		checkTrust(t, t0, states[i], states[i+1])
	}
	c.in.PreviousCAs = nil
	if again := mustPlan(t, t0, c.in); len(again.Steps) != 0 {
		t.Errorf("steps: %q", titles(again.Steps))
	}
}

// TestReissueReasons: what makes calico-pilot issue a certificate of its CA anew.
func TestReissueReasons(t *testing.T) {
	base := newCluster()
	base.settle(t, t0)
	// The apiserver's pair as it would be issued ten days later.
	noAPIServer := base.snapshot()
	delete(noAPIServer.Secrets, "calico-apiserver-certs")
	future := mustPlan(t, t0.Add(10*day), noAPIServer).Steps[0].Secrets[0]
	for _, tc := range []struct {
		name   string
		edit   func(*corev1.Secret)
		at     time.Time
		reason string
	}{
		{"SAN mismatch", func(s *corev1.Secret) {
			// goldmane's pair in the apiserver's Secret: same CA, other names.
			s.Data = base.in.Secrets["goldmane-key-pair"].Data
		}, t0, "lacks the DNS name calico-api"},
		{"not yet valid", func(s *corev1.Secret) { s.Data = future.Data }, t0.Add(5 * day), "not valid before 2026-12-12"},
		{"expired", nil, t0.Add(826 * day), "expired 2029-03-06"},
		{"key mismatch", func(s *corev1.Secret) {
			s.Data = map[string][]byte{"tls.crt": s.Data["tls.crt"], "tls.key": base.in.Secrets["typha-certs"].Data["tls.key"]}
		}, t0, `certificate "calico-api": the key is not the certificate's`},
		{"unreadable", func(s *corev1.Secret) { s.Data = map[string][]byte{"tls.crt": []byte("junk")} }, t0, "unreadable: no PEM certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := base.snapshot()
			sec := in.Secrets["calico-apiserver-certs"].DeepCopy()
			if tc.edit != nil {
				tc.edit(sec)
			}
			in.Secrets["calico-apiserver-certs"] = sec
			r := mustPlan(t, tc.at, in)
			i := slices.IndexFunc(r.Pairs, func(p calicotls.PairState) bool { return p.Secret == "calico-apiserver-certs" })
			if p := r.Pairs[i]; p.Action != calicotls.Issue || p.Reason != tc.reason {
				t.Errorf("%+v, want reason %q", p, tc.reason)
			}
		})
	}
}

// TestEKUMismatch: a certificate of calico-pilot's CA without the usage its peers check is issued anew.
func TestEKUMismatch(t *testing.T) {
	c, _, _ := operatorInstall(t, t0.Add(-100*day))
	c.settle(t, t0)
	tbl := table()
	tbl.Pairs[0].Usages = []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning}
	c.in.Table = tbl
	r := mustPlan(t, t0, c.in)
	if p := r.Pairs[0]; p.Action != calicotls.Issue || p.Reason != "lacks the extended key usage 3" {
		t.Errorf("%+v", p)
	}
}

func TestCASecretErrors(t *testing.T) {
	c := newCluster()
	c.in.CASecret = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "calico-pilot-typha-ca"}, Data: map[string][]byte{"tls.crt": []byte("junk")}}
	_, err := calicotls.Plan(t0, c.in)
	want := "calico-pilot's CA (Secret calico-system/calico-pilot-typha-ca, keys tls.crt and tls.key): no PEM certificate; restore it, or delete it to have calico-pilot adopt the operator's CA or create one (every key pair is then issued anew)"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	c = newCluster()
	leaf := rsaLeaf(t, nil, []string{"x"}, t0, day)
	c.in.OperatorCA = leaf
	_, err = calicotls.Plan(t0, c.in)
	want = `the tigera operator's CA (Secret tigera-operator/tigera-ca-private, keys tls.crt and tls.key): certificate "x" is no CA`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

func TestRenewAt(t *testing.T) {
	for _, tc := range []struct {
		validity time.Duration
		want     time.Duration
	}{
		{825 * day, 795 * day},
		{365 * day, 335 * day},
		{90 * day, 60 * day},
		{30 * day, 20 * day},
	} {
		if got := calicotls.RenewAt(t0, t0.Add(tc.validity)); !got.Equal(t0.Add(tc.want)) {
			t.Errorf("RenewAt for %s = %s, want %s", tc.validity, got, t0.Add(tc.want))
		}
	}
}

func TestTrusts(t *testing.T) {
	c := newCluster()
	c.settle(t, t0)
	ca := c.in.CASecret.Data["tls.crt"]
	other := newCluster()
	other.settle(t, t0)
	server := c.in.Secrets["typha-certs"].Data["tls.crt"]
	for _, tc := range []struct {
		name   string
		bundle []byte
		at     time.Time
		usages []x509.ExtKeyUsage
		want   string
	}{
		{"own CA", ca, t0, nil, ""},
		{"both usages", ca, t0, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}, ""},
		{"bundle of two", append(append([]byte{}, other.in.CASecret.Data["tls.crt"]...), ca...), t0, nil, ""},
		{"other CA", other.in.CASecret.Data["tls.crt"], t0, nil, `certificate "typha-server": x509: certificate signed by unknown authority (possibly because of "x509: ECDSA verification failure" while trying to verify candidate authority certificate "` + parse(t, other.in.CASecret.Data["tls.crt"]).Subject.CommonName + `")`},
		{"wrong usage", ca, t0, []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning}, `certificate "typha-server": x509: certificate specifies an incompatible key usage`},
		{"expired", ca, t0.Add(826 * day), nil, `certificate "typha-server": x509: certificate has expired or is not yet valid: current time 2029-03-07T10:00:00Z is after 2029-03-06T10:00:00Z`},
		{"empty", nil, t0, nil, "the CA bundle holds no certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := calicotls.Trusts(tc.bundle, server, tc.at, tc.usages...)
			if (err == nil) != (tc.want == "") || (err != nil && err.Error() != tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestTableValidate(t *testing.T) {
	if err := table().Validate(); err != nil {
		t.Fatal(err)
	}
	bad := calicotls.Table{Namespace: "calico-system", Pairs: []calicotls.Pair{
		{Secret: "Bad_Name", IPAddresses: []string{"x"}, TrustedVia: []string{"nowhere"}},
	}}
	want := `pairs[0].secret "Bad_Name": not a DNS label` + "\n" + `pairs[0].commonName: empty` + "\n" + `pairs[0].ipAddresses: "x" is not an IP address` + "\n" +
		`pairs[0].trustedVia: no bundle "nowhere" in the table` + "\n" + `pairs[0].mountedBy: no workload mounts Bad_Name`
	if err := bad.Validate(); err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestNamesAgree: the names calicotls shares with internal/install and internal/layout are the same.
func TestNamesAgree(t *testing.T) {
	tls := layout.TigeraOperatorTyphaTLS()
	for _, tc := range []struct{ got, want string }{
		{calicotls.CASecret, install.CopiedCASecret},
		{calicotls.OperatorCASecret, install.OperatorCASecret},
		{calicotls.OperatorNamespace, install.OperatorNamespace},
		{calicotls.TyphaCertsSecret, tls.TyphaSecret},
		{calicotls.NodeCertsSecret, tls.NodeSecret},
		{calicotls.TigeraCABundle, tls.CABundle.ConfigMap},
		{calicotls.KeyBundle, tls.CABundle.Key},
		{table().Pairs[0].CommonName, tls.ServerCN},
		{table().Pairs[1].CommonName, tls.ClientCN},
	} {
		if tc.got != tc.want {
			t.Errorf("%q, want %q", tc.got, tc.want)
		}
	}
}
