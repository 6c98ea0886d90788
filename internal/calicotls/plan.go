package calicotls

import (
	"bytes"
	"crypto/x509"
	"fmt"
	"net"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Validities and the renewal rule (docs/certificates.md).
const (
	// DefaultLeafValidity is the operator's (825 days): a leaf calico-pilot issues looks like one the
	// operator issued.
	DefaultLeafValidity = 825 * 24 * time.Hour
	// DefaultCAValidity is the validity of a CA calico-pilot creates; the operator's own is 100 years.
	DefaultCAValidity = 10 * 365 * 24 * time.Hour
	// RenewBefore is the operator's grace period: a leaf is re-issued when less than this is left.
	RenewBefore = 30 * 24 * time.Hour
)

// Input is what Plan decides on: the table, the CA material and the live objects (Read gathers it).
type Input struct {
	Table Table
	// OperatorCA is the operator's CA (Secret tigera-operator/tigera-ca-private; zero: none).
	OperatorCA KeyPair
	// CASecret is the live CASecret in the table's namespace (nil: none).
	CASecret *corev1.Secret
	// Secrets and ConfigMaps are the live key pair Secrets and bundle ConfigMaps by name (absent:
	// missing).
	Secrets    map[string]*corev1.Secret
	ConfigMaps map[string]*corev1.ConfigMap
	// APIServiceFound says whether the APIService exists; APIServiceCABundle is its spec.caBundle.
	APIServiceFound    bool
	APIServiceCABundle []byte
	// PreviousCAs are CA certificates (PEM) the caller says calico-pilot signed with before, besides
	// those CASecret lists: the key pairs they signed are re-issued (in the order of a CA change).
	// Without them a pair signed by another CA than calico-pilot's is the user's and never re-issued.
	PreviousCAs []byte
	// RotateCA asks for a new CA of calico-pilot's own now, even when the one it holds is not due.
	RotateCA bool
	// LeafValidity and CAValidity of what Plan issues (zero: DefaultLeafValidity, DefaultCAValidity).
	LeafValidity, CAValidity time.Duration
}

// CASource says where the CA calico-pilot signs with comes from.
type CASource string

// The sources of the CA.
const (
	// CAKept is the CA of CASecret.
	CAKept CASource = "kept"
	// CAAdopted is the operator's CA, copied into CASecret.
	CAAdopted CASource = "adopted"
	// CACreated is a CA of calico-pilot's own, created because there was none.
	CACreated CASource = "created"
	// CARotated is a CA of calico-pilot's own that replaces the one it held (due or RotateCA).
	CARotated CASource = "rotated"
)

// CAState is the CA after the plan.
type CAState struct {
	Source CASource
	// Reason says why it was rotated (CARotated).
	Reason string
	// CommonName, NotAfter and RenewAt (when it is due: a third of its lifetime left) of the CA.
	CommonName        string
	NotAfter, RenewAt time.Time
	// Previous are the common names of the CAs that signed before and are still trusted during the
	// plan's steps.
	Previous []string
}

// Action is what the plan does with a key pair.
type Action string

// The actions.
const (
	// Keep: the certificate stays.
	Keep Action = "keep"
	// Issue: a new certificate is issued with the CA (missing, due, wrong or the previous CA's).
	Issue Action = "issue"
	// UserOwned: the certificate is signed by neither calico-pilot's CA nor a previous one; it is
	// never re-issued, only trusted (its certificate is put in the bundles its peers verify it with).
	UserOwned Action = "user-owned"
)

// PairState is what the plan does with one key pair and the certificate it leaves.
type PairState struct {
	Secret string
	Action Action
	// Reason says why it is issued, or what is wrong with a certificate the user brought.
	Reason string
	// Issuer, NotAfter and RenewAt of the certificate after the plan (the new one when issued);
	// RenewAt is zero for a user's certificate.
	Issuer            string
	NotAfter, RenewAt time.Time
	// PreviousNotAfter is when the replaced certificate expired (zero when there was none).
	PreviousNotAfter time.Time
}

// Step is one ordered step of the plan. The caller waits until the rollouts of Await are complete,
// writes Secrets and ConfigMaps (WriteStep) and puts APIServiceCABundle (when not nil) into the
// APIService, renders the workloads with Checksums (checksum annotations), and waits for the
// rollouts of Rollouts before the next step.
type Step struct {
	// Title says what the step does.
	Title string
	// Await are workloads whose rollout must be complete before this step writes.
	Await []Workload
	// Secrets and ConfigMaps to write (server-side apply), APIServiceCABundle the APIService's new
	// caBundle (nil: unchanged).
	Secrets            []*corev1.Secret
	ConfigMaps         []*corev1.ConfigMap
	APIServiceCABundle []byte
	// Checksums are, per workload name, the checksum of exactly the material it mounts after this
	// step; Rollouts the workloads whose checksum this step changes.
	Checksums map[string]string
	Rollouts  []Workload
}

// Result is the plan.
type Result struct {
	CA    CAState
	Pairs []PairState
	// Steps are in order; none when everything is as it should be.
	Steps []Step
	// Checksums are, per workload name, the checksum of the material it mounts after every step
	// (the live material when there is no step): the renderer's checksum/<name> annotations.
	Checksums map[string]string
	// APIServiceCABundle is the APIService's caBundle after every step (nil without the APIService).
	APIServiceCABundle []byte
	// Warnings are what a person must act on: a user's certificate that expires soon, has expired or
	// no longer fits.
	Warnings []string
}

// material is what the cluster holds at one moment of the plan.
type material struct {
	secrets map[string]map[string][]byte
	bundles map[string]map[string][]byte // ConfigMap data; the APIService's under its name, key KeyBundle
}

func (m material) clone() material {
	c := material{secrets: map[string]map[string][]byte{}, bundles: map[string]map[string][]byte{}}
	for k, v := range m.secrets {
		c.secrets[k] = v
	}
	for k, v := range m.bundles {
		c.bundles[k] = v
	}
	return c
}

// planner holds the decisions of one Plan.
type planner struct {
	in       Input
	now      time.Time
	ca       *parsedCA
	previous []*x509.Certificate
	res      *Result
	// live is the material as it is; leaves the key pairs after issuing.
	live   material
	leaves map[string]*x509.Certificate // current certificate of each pair after the plan
	issued map[string]KeyPair
	// rotatedFrom are the pairs whose live certificate another known CA signed (a CA change).
	rotatedFrom map[string]bool
}

// Plan decides, at now, which CA signs, which key pairs are issued and in which steps the material is
// written so that every peer trusts every certificate during every rollout (docs/certificates.md):
//
//  1. the bundles gain what they must trust (calico-pilot's CA, a user's certificate) and keep all
//     they trust now; the CA is recorded in CASecret; the workloads mounting those bundles roll;
//  2. after those rollouts, the due key pairs are issued and written; the workloads mounting them roll;
//  3. after the rollouts of every workload mounting a key pair those bundles verify, the bundles drop
//     the previous CAs, expired certificates and leaves pinned no longer, and CASecret its previous CAs.
//
// A step with nothing to write is left out; steps 1 and 2 are one when no bundle step 1 changes exists
// yet (nothing runs that trusts it). A leaf renewal under the same CA is step 2 alone.
func Plan(now time.Time, in Input) (*Result, error) {
	if err := in.Table.Validate(); err != nil {
		return nil, fmt.Errorf("the key pair table: %w", err)
	}
	if in.LeafValidity == 0 {
		in.LeafValidity = DefaultLeafValidity
	}
	if in.CAValidity == 0 {
		in.CAValidity = DefaultCAValidity
	}
	p := &planner{in: in, now: now, res: &Result{}, issued: map[string]KeyPair{}, leaves: map[string]*x509.Certificate{}, rotatedFrom: map[string]bool{}}
	if err := p.chooseCA(); err != nil {
		return nil, err
	}
	p.live = p.liveMaterial()
	if err := p.decidePairs(); err != nil {
		return nil, err
	}
	p.steps()
	return p.res, nil
}

// chooseCA picks the CA: CASecret's, else the operator's (adopted), else a new one; a due CA (or
// RotateCA) is replaced by a new one and becomes a previous CA.
func (p *planner) chooseCA() error {
	ns := p.in.Table.Namespace
	if s := p.in.CASecret; s != nil {
		ca, err := parseCA(KeyPair{CertPEM: s.Data[corev1.TLSCertKey], KeyPEM: s.Data[corev1.TLSPrivateKeyKey]})
		if err != nil {
			return fmt.Errorf("calico-pilot's CA (Secret %s/%s, keys tls.crt and tls.key): %w; restore it, or delete it to have calico-pilot adopt the operator's CA or create one (every key pair is then issued anew)", ns, CASecret, err)
		}
		p.ca, p.res.CA.Source = ca, CAKept
		p.previous = parseCertificates(s.Data[KeyPreviousCAs])
	} else if !p.in.OperatorCA.IsZero() {
		ca, err := parseCA(p.in.OperatorCA)
		if err != nil {
			return fmt.Errorf("the tigera operator's CA (Secret %s/%s, keys tls.crt and tls.key): %w", OperatorNamespace, OperatorCASecret, err)
		}
		p.ca, p.res.CA.Source = ca, CAAdopted
	}
	for _, c := range parseCertificates(p.in.PreviousCAs) {
		if !containsCert(p.previous, c) {
			p.previous = append(p.previous, c)
		}
	}
	reason := ""
	switch {
	case p.ca == nil:
	case p.in.RotateCA:
		reason = "a new CA was asked for"
	case p.now.Before(p.ca.cert.NotBefore):
		reason = fmt.Sprintf("CA %q is not valid before %s", p.ca.cert.Subject.CommonName, day(p.ca.cert.NotBefore))
	case !p.now.Before(caRenewAt(p.ca.cert)):
		reason = fmt.Sprintf("CA %q expires %s: less than a third of its lifetime is left", p.ca.cert.Subject.CommonName, day(p.ca.cert.NotAfter))
	}
	if p.ca == nil || reason != "" {
		kp, err := newCA("calico-pilot-signer@"+strconv.FormatInt(p.now.Unix(), 10), p.now, p.in.CAValidity)
		if err != nil {
			return err
		}
		ca, err := parseCA(kp)
		if err != nil {
			return err
		}
		if p.ca == nil {
			p.res.CA.Source = CACreated
		} else {
			p.res.CA.Source, p.res.CA.Reason = CARotated, reason
			if !containsCert(p.previous, p.ca.cert) {
				p.previous = append(p.previous, p.ca.cert)
			}
		}
		p.ca = ca
	}
	p.previous = slices.DeleteFunc(p.previous, func(c *x509.Certificate) bool { return bytes.Equal(c.Raw, p.ca.cert.Raw) })
	p.res.CA.CommonName, p.res.CA.NotAfter, p.res.CA.RenewAt = p.ca.cert.Subject.CommonName, p.ca.cert.NotAfter, caRenewAt(p.ca.cert)
	for _, c := range p.previous {
		p.res.CA.Previous = append(p.res.CA.Previous, c.Subject.CommonName)
	}
	return nil
}

// caRenewAt is when a CA is replaced: a third of its lifetime before it expires, so that it outlives
// the leaves it signs and a CA change has time for its three steps.
func caRenewAt(c *x509.Certificate) time.Time {
	return c.NotAfter.Add(-c.NotAfter.Sub(c.NotBefore) / 3)
}

// RenewAt is when a leaf valid from notBefore to notAfter is re-issued: RenewBefore (the operator's
// 30 days) before it expires, or a third of its lifetime before when that is shorter (a leaf cut short
// by its CA's expiry), so a short leaf is not issued anew at every look.
func RenewAt(notBefore, notAfter time.Time) time.Time {
	before := RenewBefore
	if third := notAfter.Sub(notBefore) / 3; third < before {
		before = third
	}
	return notAfter.Add(-before)
}

func (p *planner) liveMaterial() material {
	m := material{secrets: map[string]map[string][]byte{}, bundles: map[string]map[string][]byte{}}
	for _, pr := range p.in.Table.Pairs {
		if s := p.in.Secrets[pr.Secret]; s != nil {
			m.secrets[pr.Secret] = map[string][]byte{corev1.TLSCertKey: s.Data[corev1.TLSCertKey], corev1.TLSPrivateKeyKey: s.Data[corev1.TLSPrivateKeyKey]}
		}
	}
	for _, b := range p.in.Table.Bundles {
		switch {
		case b.APIService && p.in.APIServiceFound:
			m.bundles[b.Name] = map[string][]byte{KeyBundle: p.in.APIServiceCABundle}
		case !b.APIService:
			if cm := p.in.ConfigMaps[b.Name]; cm != nil {
				d := map[string][]byte{}
				for k, v := range cm.Data {
					d[k] = []byte(v)
				}
				m.bundles[b.Name] = d
			}
		}
	}
	return m
}

// decidePairs classifies each live key pair and issues the new ones.
func (p *planner) decidePairs() error {
	for _, pr := range p.in.Table.Pairs {
		st := PairState{Secret: pr.Secret, Action: Keep}
		var cur *x509.Certificate
		data := p.live.secrets[pr.Secret]
		switch {
		case data == nil:
			st.Action, st.Reason = Issue, "missing"
		case len(data[corev1.TLSCertKey]) == 0:
			st.Action, st.Reason = Issue, "no tls.crt"
		default:
			c, err := ParseCertificate(data[corev1.TLSCertKey])
			if err != nil {
				st.Action, st.Reason = Issue, "unreadable: "+err.Error()
				break
			}
			cur, st.PreviousNotAfter = c, c.NotAfter
			st.Issuer = c.Issuer.CommonName
			_, _, keyErr := ParseKeyPair(KeyPair{CertPEM: data[corev1.TLSCertKey], KeyPEM: data[corev1.TLSPrivateKeyKey]})
			switch {
			case signedBy(c, p.ca.cert):
				if why := p.wrong(pr, c, keyErr); why != "" {
					st.Action, st.Reason = Issue, why
				}
			case slices.ContainsFunc(p.previous, func(ca *x509.Certificate) bool { return signedBy(c, ca) }):
				st.Action, st.Reason = Issue, fmt.Sprintf("signed by the previous CA %q", c.Issuer.CommonName)
				p.rotatedFrom[pr.Secret] = true
			default:
				st.Action = UserOwned
				if why := p.wrong(pr, c, keyErr); why != "" {
					st.Reason = why
					p.res.Warnings = append(p.res.Warnings, fmt.Sprintf("Secret %s/%s: the certificate (issuer %q) is not signed by calico-pilot's CA, so calico-pilot never re-issues it, but it is wrong: %s; replace it, or delete the Secret to have calico-pilot issue one",
						p.in.Table.Namespace, pr.Secret, c.Issuer.CommonName, why))
				}
			}
		}
		if st.Action == Issue {
			kp, err := issueLeaf(p.ca, pr, p.now, p.in.LeafValidity)
			if err != nil {
				return fmt.Errorf("key pair %s/%s: %w", p.in.Table.Namespace, pr.Secret, err)
			}
			p.issued[pr.Secret] = kp
			cur, _ = ParseCertificate(kp.CertPEM)
			st.Issuer = cur.Issuer.CommonName
		}
		p.leaves[pr.Secret] = cur
		st.NotAfter = cur.NotAfter
		if st.Action != UserOwned {
			st.RenewAt = RenewAt(cur.NotBefore, cur.NotAfter)
		}
		p.res.Pairs = append(p.res.Pairs, st)
	}
	return nil
}

// wrong says why the live certificate c of pr must be replaced, in the operator's order: not yet
// valid, expired, due, its key, its usages, its DNS names and IP addresses. Empty: it is right.
func (p *planner) wrong(pr Pair, c *x509.Certificate, keyErr error) string {
	switch {
	case p.now.Before(c.NotBefore):
		return fmt.Sprintf("not valid before %s", day(c.NotBefore))
	case !p.now.Before(c.NotAfter):
		return fmt.Sprintf("expired %s", day(c.NotAfter))
	case !p.now.Before(RenewAt(c.NotBefore, c.NotAfter)):
		return fmt.Sprintf("expires %s, less than %d days away", day(c.NotAfter), int(min(RenewBefore, c.NotAfter.Sub(c.NotBefore)/3)/(24*time.Hour)))
	case keyErr != nil:
		return keyErr.Error()
	}
	for _, u := range pr.Usages {
		if !slices.Contains(c.ExtKeyUsage, u) && !slices.Contains(c.ExtKeyUsage, x509.ExtKeyUsageAny) {
			return fmt.Sprintf("lacks the extended key usage %s", usageName(u))
		}
	}
	for _, d := range pr.DNSNames {
		if !slices.Contains(c.DNSNames, d) {
			return fmt.Sprintf("lacks the DNS name %s", d)
		}
	}
	for _, ip := range pr.IPAddresses {
		want := net.ParseIP(ip)
		if !slices.ContainsFunc(c.IPAddresses, want.Equal) {
			return fmt.Sprintf("lacks the IP address %s", ip)
		}
	}
	return ""
}

func usageName(u x509.ExtKeyUsage) string {
	switch u {
	case x509.ExtKeyUsageServerAuth:
		return "serverAuth"
	case x509.ExtKeyUsageClientAuth:
		return "clientAuth"
	}
	return strconv.Itoa(int(u))
}

func day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

func containsCert(cs []*x509.Certificate, c *x509.Certificate) bool {
	return slices.ContainsFunc(cs, func(x *x509.Certificate) bool { return bytes.Equal(x.Raw, c.Raw) })
}
