package calicotls

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// bundleSets are a bundle's certificates at the three moments of the plan.
type bundleSets struct {
	b Bundle
	// live is what the bundle holds now (nil when it does not exist); during what it holds while key
	// pairs are issued and rolled (all it holds now plus what it must trust); final what it keeps.
	live, during, final []*x509.Certificate
	exists              bool
	// roots are the system's roots in the live KeySystemBundle, kept as they are.
	roots []*x509.Certificate
}

// steps computes the bundles' sets, then the ordered steps with their objects and checksums.
func (p *planner) steps() {
	var sets []bundleSets
	for _, b := range p.in.Table.Bundles {
		sets = append(sets, p.bundleSets(b))
	}

	caFirst := p.caSecret(p.previous)
	caFinal := p.caSecret(nil)

	state := p.live.clone()
	sums := p.checksums(state)
	var steps []Step
	// emit closes a step: applies its writes to state and computes its checksums and rollouts.
	emit := func(s Step) {
		for _, sec := range s.Secrets {
			state.secrets[sec.Name] = sec.Data
		}
		for _, cm := range s.ConfigMaps {
			state.bundles[cm.Name] = toBytes(cm.Data)
		}
		if s.APIServiceCABundle != nil {
			state.bundles[APIServiceName] = map[string][]byte{KeyBundle: s.APIServiceCABundle}
		}
		next := p.checksums(state)
		for _, w := range p.in.Table.Workloads() {
			if next[w.Name] != sums[w.Name] {
				s.Rollouts = append(s.Rollouts, w)
			}
		}
		s.Checksums, sums = next, next
		steps = append(steps, s)
	}

	// Step 1: the bundles gain what they must trust; the CA is recorded.
	trust := Step{}
	var gained []string
	existing := false
	for _, bs := range sets {
		if bs.exists && sameCerts(bs.during, bs.live) && p.complete(bs) {
			continue
		}
		gained = append(gained, bs.b.Name)
		existing = existing || bs.exists
		p.writeBundle(&trust, bs, bs.during)
	}
	if !sameCASecret(p.in.CASecret, caFirst) {
		trust.Secrets = append(trust.Secrets, caFirst)
	}
	// Step 2: the key pairs are issued.
	issue := Step{}
	var issuedNames []string
	for _, pr := range p.in.Table.Pairs {
		kp, ok := p.issued[pr.Secret]
		if !ok {
			continue
		}
		issuedNames = append(issuedNames, pr.Secret)
		issue.Secrets = append(issue.Secrets, p.pairSecret(pr, kp))
		// The peers must run with bundles that trust the CA before its leaf changes: those of the
		// bundles step 1 changes, and, in a CA change (perhaps continued from an apply that stopped
		// after step 1), those of every bundle that verifies the leaf.
		for _, via := range pr.TrustedVia {
			if p.rotatedFrom[pr.Secret] || slices.Contains(gained, via) {
				b, _ := p.in.Table.Bundle(via)
				issue.Await = appendNew(issue.Await, b.MountedBy...)
			}
		}
	}
	switch {
	case len(trust.Secrets)+len(trust.ConfigMaps) > 0 || trust.APIServiceCABundle != nil:
		if !existing && len(issue.Secrets) > 0 {
			// Nothing runs yet that trusts the bundles step 1 writes: one step.
			issue.Secrets = append(trust.Secrets, issue.Secrets...)
			issue.ConfigMaps, issue.APIServiceCABundle, issue.Await = trust.ConfigMaps, trust.APIServiceCABundle, nil
			issue.Title = fmt.Sprintf("issue the key pairs %s with the CA %q and write the bundles %s that trust it", strings.Join(issuedNames, ", "), p.ca.cert.Subject.CommonName, orNone(gained))
			emit(issue)
			issue = Step{}
			break
		}
		trust.Title = fmt.Sprintf("make the bundles %s trust the CA %q, keeping all they trust now", orNone(gained), p.ca.cert.Subject.CommonName)
		if len(gained) == 0 {
			trust.Title = fmt.Sprintf("record the CA %q in Secret %s/%s", p.ca.cert.Subject.CommonName, p.in.Table.Namespace, CASecret)
		}
		emit(trust)
		fallthrough
	default:
		if len(issue.Secrets) > 0 {
			issue.Title = "issue the key pairs " + strings.Join(issuedNames, ", ") + " with CA " + fmt.Sprintf("%q", p.ca.cert.Subject.CommonName)
			emit(issue)
		}
	}
	// Step 3: the bundles drop what no key pair needs any more.
	drop := Step{}
	var dropped []string
	for _, bs := range sets {
		if sameCerts(bs.final, bs.during) {
			continue
		}
		dropped = append(dropped, bs.b.Name)
		p.writeBundle(&drop, bs, bs.final)
		for _, pr := range p.in.Table.Pairs {
			if slices.Contains(pr.TrustedVia, bs.b.Name) {
				drop.Await = appendNew(drop.Await, pr.MountedBy...)
			}
		}
	}
	// CASecret holds caFirst now (written by step 1 or as it was).
	if !sameCASecret(caFirst, caFinal) {
		drop.Secrets = append(drop.Secrets, caFinal)
	}
	if len(drop.Secrets)+len(drop.ConfigMaps) > 0 || drop.APIServiceCABundle != nil {
		drop.Title = fmt.Sprintf("drop from the bundles %s what no key pair needs any more (previous CAs, expired certificates, certificates pinned no longer)", orNone(dropped))
		if len(dropped) == 0 {
			drop.Title = "forget the previous CAs"
		}
		emit(drop)
	}
	p.res.Steps = steps
	p.res.Checksums = sums
	for _, bs := range sets {
		if bs.b.APIService {
			p.res.APIServiceCABundle = encodeCerts(bs.final)
		}
	}
}

// bundleSets computes what bundle b holds now, during the plan and after it.
func (p *planner) bundleSets(b Bundle) bundleSets {
	bs := bundleSets{b: b}
	data, ok := p.live.bundles[b.Name]
	bs.exists = ok
	bs.live = parseCertificates(data[KeyBundle])
	var pinned, inUse []*x509.Certificate
	for _, pr := range p.in.Table.Pairs {
		if !slices.Contains(pr.TrustedVia, b.Name) {
			continue
		}
		st := p.pairState(pr.Secret)
		live, _ := ParseCertificate(p.live.secrets[pr.Secret][corev1.TLSCertKey])
		switch {
		case st.Action == UserOwned:
			pinned = append(pinned, p.leaves[pr.Secret])
		case live != nil:
			// The CA that signed the certificate running now stays trusted until it is replaced.
			for _, ca := range append([]*x509.Certificate{p.ca.cert}, p.previous...) {
				if signedBy(live, ca) {
					inUse = append(inUse, ca)
				}
			}
		}
	}
	bs.during = orderCerts(p.ca.cert, bs.live, pinned, inUse)
	for _, c := range bs.during {
		switch {
		case bytes.Equal(c.Raw, p.ca.cert.Raw), containsCert(pinned, c):
		case containsCert(p.previous, c), !p.now.Before(c.NotAfter), !c.IsCA:
			// A previous CA, an expired certificate, a leaf pinned no longer (or the operator's copy
			// of a leaf in the APIService's caBundle): no key pair needs it after the plan.
			continue
		}
		bs.final = append(bs.final, c)
	}
	if b.SystemRoots {
		for _, c := range parseCertificates(data[KeySystemBundle]) {
			if !containsCert(bs.live, c) && !containsCert(bs.during, c) && !containsCert(p.previous, c) {
				bs.roots = append(bs.roots, c)
			}
		}
	}
	return bs
}

// complete says whether a live bundle ConfigMap has all three keys.
func (p *planner) complete(bs bundleSets) bool {
	if bs.b.APIService {
		return true
	}
	d := p.live.bundles[bs.b.Name]
	for _, k := range []string{KeyBundle, KeyCA, KeySystemBundle} {
		if _, ok := d[k]; !ok {
			return false
		}
	}
	return true
}

func (p *planner) pairState(secret string) PairState {
	i := slices.IndexFunc(p.res.Pairs, func(s PairState) bool { return s.Secret == secret })
	return p.res.Pairs[i]
}

// writeBundle adds to s the bundle bs holding certs: its ConfigMap, or the APIService's caBundle.
func (p *planner) writeBundle(s *Step, bs bundleSets, certs []*x509.Certificate) {
	pemCerts := encodeCerts(certs)
	if bs.b.APIService {
		s.APIServiceCABundle = pemCerts
		return
	}
	system := ""
	if bs.b.SystemRoots {
		system = string(encodeCerts(bs.roots)) + string(pemCerts)
	}
	s.ConfigMaps = append(s.ConfigMaps, &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: p.in.Table.Namespace, Name: bs.b.Name},
		Data:       map[string]string{KeyBundle: string(pemCerts), KeyCA: string(pemCerts), KeySystemBundle: system},
	})
}

// pairSecret is the Secret of a key pair calico-pilot issued. A live Secret keeps its type (it cannot
// change; the operator's are kubernetes.io/tls or Opaque); a new one is kubernetes.io/tls.
func (p *planner) pairSecret(pr Pair, kp KeyPair) *corev1.Secret {
	typ := corev1.SecretTypeTLS
	if live := p.in.Secrets[pr.Secret]; live != nil {
		typ = live.Type
	}
	return &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Namespace: p.in.Table.Namespace, Name: pr.Secret},
		Type:       typ,
		Data:       map[string][]byte{corev1.TLSCertKey: kp.CertPEM, corev1.TLSPrivateKeyKey: kp.KeyPEM},
	}
}

// caSecret is CASecret holding the CA and the previous CAs.
func (p *planner) caSecret(previous []*x509.Certificate) *corev1.Secret {
	typ := corev1.SecretTypeTLS
	if p.in.CASecret != nil {
		typ = p.in.CASecret.Type
	}
	s := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Namespace: p.in.Table.Namespace, Name: CASecret},
		Type:       typ,
		Data:       map[string][]byte{corev1.TLSCertKey: p.ca.pair.CertPEM, corev1.TLSPrivateKeyKey: p.ca.pair.KeyPEM},
	}
	if len(previous) > 0 {
		s.Data[KeyPreviousCAs] = encodeCerts(previous)
	}
	return s
}

func sameCASecret(live, want *corev1.Secret) bool {
	if live == nil {
		return false
	}
	lc, err := ParseCertificate(live.Data[corev1.TLSCertKey])
	wc, _ := ParseCertificate(want.Data[corev1.TLSCertKey])
	return err == nil && bytes.Equal(lc.Raw, wc.Raw) && bytes.Equal(live.Data[corev1.TLSPrivateKeyKey], want.Data[corev1.TLSPrivateKeyKey]) &&
		sameCerts(parseCertificates(live.Data[KeyPreviousCAs]), parseCertificates(want.Data[KeyPreviousCAs]))
}

// checksums are, per workload, a digest of exactly the material it mounts in m: its key pairs'
// tls.crt and tls.key and its bundles' data, in the table's order.
func (p *planner) checksums(m material) map[string]string {
	out := map[string]string{}
	for _, w := range p.in.Table.Workloads() {
		h := sha256.New()
		for _, pr := range p.in.Table.Pairs {
			if slices.Contains(pr.MountedBy, w) {
				d := m.secrets[pr.Secret]
				fmt.Fprintf(h, "secret %s\x00%s\x00%s\x00", pr.Secret, d[corev1.TLSCertKey], d[corev1.TLSPrivateKeyKey])
			}
		}
		for _, b := range p.in.Table.Bundles {
			if !slices.Contains(b.MountedBy, w) {
				continue
			}
			d := m.bundles[b.Name]
			keys := make([]string, 0, len(d))
			for k := range d {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			fmt.Fprintf(h, "configmap %s\x00", b.Name)
			for _, k := range keys {
				fmt.Fprintf(h, "%s\x00%s\x00", k, d[k])
			}
		}
		out[w.Name] = hex.EncodeToString(h.Sum(nil))
	}
	return out
}

// orderCerts is first followed by the certificates of the lists in order, each once.
func orderCerts(first *x509.Certificate, lists ...[]*x509.Certificate) []*x509.Certificate {
	out := []*x509.Certificate{first}
	for _, l := range lists {
		for _, c := range l {
			if !containsCert(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// sameCerts says whether a and b hold the same certificates, in any order.
func sameCerts(a, b []*x509.Certificate) bool {
	if len(a) != len(b) {
		return false
	}
	for _, c := range a {
		if !containsCert(b, c) {
			return false
		}
	}
	return true
}

func appendNew(ws []Workload, add ...Workload) []Workload {
	for _, w := range add {
		if !slices.Contains(ws, w) {
			ws = append(ws, w)
		}
	}
	return ws
}

func toBytes(d map[string]string) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range d {
		out[k] = []byte(v)
	}
	return out
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}
