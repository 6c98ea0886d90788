package calicotls

import (
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation"
)

// The tigera operator's names for its CA and calico-pilot's copy of it (docs/certificates.md).
const (
	// OperatorNamespace and OperatorCASecret are the operator's own CA (tls.crt, tls.key): adopted
	// when calico-pilot holds no CA yet.
	OperatorNamespace = "tigera-operator"
	OperatorCASecret  = "tigera-ca-private"
	// CASecret is the CA calico-pilot signs with, in the table's namespace: a copy of the operator's
	// CA or a CA of its own. Its name dates from when it signed Typha's key pairs only
	// (internal/install.CopiedCASecret); clusters taken over already have it.
	CASecret = "calico-pilot-typha-ca"
	// KeyPreviousCAs is the key of CASecret that lists the CAs calico-pilot signed with before
	// (PEM): leaves they signed are calico-pilot's to re-issue, and bundles drop them once no leaf
	// needs them.
	KeyPreviousCAs = "previous-ca.crt"
)

// The keys of a CA bundle ConfigMap, as the operator writes them.
const (
	// KeyBundle is the file Calico's components read (FELIX_TYPHACAFILE, TYPHA_CAFILE, CA_CERT_PATH).
	KeyBundle = "tigera-ca-bundle.crt"
	// KeyCA holds the same certificates.
	KeyCA = "ca.crt"
	// KeySystemBundle is the system's roots plus the bundle (calico-node mounts it at
	// /etc/pki/tls/cert.pem); empty in a bundle without SystemRoots.
	KeySystemBundle = "ca-bundle.crt"
)

// APIServiceName is the APIService of calico-apiserver; a Bundle with it is that APIService's caBundle.
const APIServiceName = "v3.projectcalico.org"

// Workload is a Deployment or DaemonSet in the table's namespace.
type Workload struct {
	Kind, Name string
}

func (w Workload) String() string { return w.Kind + " " + w.Name }

// The workloads that mount key pairs and bundles in the tigera operator's layout.
var (
	CalicoNode      = Workload{Kind: "DaemonSet", Name: "calico-node"}
	CalicoTypha     = Workload{Kind: "Deployment", Name: "calico-typha"}
	CalicoAPIServer = Workload{Kind: "Deployment", Name: "calico-apiserver"}
	Goldmane        = Workload{Kind: "Deployment", Name: "goldmane"}
	Whisker         = Workload{Kind: "Deployment", Name: "whisker"}
)

// Pair is one key pair: its Secret (keys tls.crt and tls.key), what its certificate says, what its
// peers require of it, the bundles they verify it with and the workloads that mount it.
type Pair struct {
	// Secret is the Secret's name in the table's namespace.
	Secret string
	// CommonName is the subject's CN; DNSNames and IPAddresses the SANs a certificate calico-pilot
	// issues carries. A live certificate must carry all of them (it may carry more), as the operator
	// checks.
	CommonName  string
	DNSNames    []string
	IPAddresses []string
	// Usages are the extended key usages its peers check. A certificate calico-pilot issues carries
	// serverAuth and clientAuth, as the operator's do.
	Usages []x509.ExtKeyUsage
	// TrustedVia are the Bundles (by Bundle.Name) its peers verify it with.
	TrustedVia []string
	// MountedBy are the workloads that mount the Secret: a new certificate rolls exactly these.
	MountedBy []Workload
}

// Bundle is what a set of peers trusts: a ConfigMap of CA certificates (keys KeyBundle, KeyCA,
// KeySystemBundle) in the table's namespace, or the APIService's caBundle.
type Bundle struct {
	// Name is the ConfigMap's name, or APIServiceName.
	Name string
	// APIService is true for the APIService's spec.caBundle (checked by the kube-apiserver, mounted
	// by no workload).
	APIService bool
	// SystemRoots says that KeySystemBundle holds the system's roots besides the bundle (kept as the
	// live ConfigMap has them: calico-pilot ships no roots of its own).
	SystemRoots bool
	// MountedBy are the workloads that mount the ConfigMap.
	MountedBy []Workload
}

// Table is the key pairs and bundles calico-pilot manages in one namespace.
type Table struct {
	Namespace string
	Pairs     []Pair
	Bundles   []Bundle
}

// TableOptions say which components run: their key pairs and bundles are in the table.
type TableOptions struct {
	// Namespace is where the components run (the operator's layout: calico-system).
	Namespace string
	// ClusterDomain ends the services' fully qualified names (cluster.local); empty: no such SAN, as
	// the operator does.
	ClusterDomain string
	// TyphaTLS, APIServer, Goldmane and Whisker say which key pairs are managed.
	TyphaTLS, APIServer, Goldmane, Whisker bool
}

// Names and subjects of the tigera operator's key pairs and bundles.
const (
	TyphaCertsSecret     = "typha-certs"
	NodeCertsSecret      = "node-certs"
	APIServerCertsSecret = "calico-apiserver-certs"
	GoldmaneKeyPair      = "goldmane-key-pair"
	WhiskerBackendPair   = "whisker-backend-key-pair"
	TigeraCABundle       = "tigera-ca-bundle"
	GoldmaneCABundle     = "goldmane-ca-bundle"
	WhiskerCABundle      = "whisker-ca-bundle"
)

// serviceNames are a Service's DNS names as the operator puts them on a certificate: name,
// name.ns, name.ns.svc and, with a cluster domain, name.ns.svc.<domain>.
func serviceNames(name, ns, domain string) []string {
	n := []string{name, name + "." + ns, name + "." + ns + ".svc"}
	if domain != "" {
		n = append(n, name+"."+ns+".svc."+domain)
	}
	return n
}

// TigeraOperatorTable is the tigera operator's key pairs and bundles (docs/certificates.md):
//   - typha-certs (CN typha-server) mounted by calico-typha, verified by Felix with tigera-ca-bundle;
//   - node-certs (CN typha-client) mounted by calico-node, verified by Typha with tigera-ca-bundle and,
//     as Felix's client certificate towards Goldmane, by Goldmane with goldmane-ca-bundle;
//   - calico-apiserver-certs (CN calico-api) mounted by calico-apiserver, verified by the
//     kube-apiserver with the APIService's caBundle;
//   - goldmane-key-pair (CN goldmane) mounted by goldmane, verified by Felix with tigera-ca-bundle
//     (Felix's Typha CA file) and by whisker-backend with whisker-ca-bundle;
//   - whisker-backend-key-pair (CN 127.0.0.1, SANs localhost and IP 127.0.0.1 too) mounted by
//     whisker, verified by Goldmane with goldmane-ca-bundle as a client.
//
// The operator takes the CN of a certificate from the first of its sorted host names, hence
// whisker-backend's CN 127.0.0.1.
func TigeraOperatorTable(o TableOptions) Table {
	ns := o.Namespace
	t := Table{Namespace: ns}
	server := []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	client := []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	tigera := Bundle{Name: TigeraCABundle, SystemRoots: true}
	goldmane := Bundle{Name: GoldmaneCABundle, MountedBy: []Workload{Goldmane}}
	if o.TyphaTLS {
		tigera.MountedBy = []Workload{CalicoNode, CalicoTypha}
		t.Pairs = append(t.Pairs,
			Pair{Secret: TyphaCertsSecret, CommonName: "typha-server", DNSNames: []string{"typha-server"}, Usages: server,
				TrustedVia: []string{TigeraCABundle}, MountedBy: []Workload{CalicoTypha}},
			Pair{Secret: NodeCertsSecret, CommonName: "typha-client", DNSNames: []string{"typha-client"}, Usages: client,
				TrustedVia: ifThen(o.Goldmane, []string{TigeraCABundle, GoldmaneCABundle}, []string{TigeraCABundle}), MountedBy: []Workload{CalicoNode}})
	}
	if o.APIServer {
		t.Pairs = append(t.Pairs, Pair{Secret: APIServerCertsSecret, CommonName: "calico-api", DNSNames: serviceNames("calico-api", ns, o.ClusterDomain),
			Usages: server, TrustedVia: []string{APIServiceName}, MountedBy: []Workload{CalicoAPIServer}})
		t.Bundles = append(t.Bundles, Bundle{Name: APIServiceName, APIService: true})
	}
	if o.Goldmane {
		via := []string{}
		if o.TyphaTLS {
			via = append(via, TigeraCABundle)
		}
		if o.Whisker {
			via = append(via, WhiskerCABundle)
		}
		t.Pairs = append(t.Pairs, Pair{Secret: GoldmaneKeyPair, CommonName: "goldmane", DNSNames: serviceNames("goldmane", ns, o.ClusterDomain),
			Usages: server, TrustedVia: via, MountedBy: []Workload{Goldmane}})
		t.Bundles = append(t.Bundles, goldmane)
	}
	if o.Whisker {
		t.Pairs = append(t.Pairs, Pair{Secret: WhiskerBackendPair, CommonName: "127.0.0.1",
			DNSNames: append(serviceNames("whisker-backend", ns, o.ClusterDomain), "localhost"), IPAddresses: []string{"127.0.0.1"},
			Usages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}, TrustedVia: ifThen(o.Goldmane, []string{GoldmaneCABundle}, nil),
			MountedBy: []Workload{Whisker}})
		t.Bundles = append(t.Bundles, Bundle{Name: WhiskerCABundle, MountedBy: []Workload{Whisker}})
	}
	if o.TyphaTLS {
		t.Bundles = append([]Bundle{tigera}, t.Bundles...)
	}
	return t
}

func ifThen[T any](c bool, a, b T) T {
	if c {
		return a
	}
	return b
}

// Bundle returns the bundle named name.
func (t Table) Bundle(name string) (Bundle, bool) {
	i := slices.IndexFunc(t.Bundles, func(b Bundle) bool { return b.Name == name })
	if i < 0 {
		return Bundle{}, false
	}
	return t.Bundles[i], true
}

// Workloads are every workload that mounts a key pair or a bundle, in the table's order.
func (t Table) Workloads() []Workload {
	var out []Workload
	add := func(ws []Workload) {
		for _, w := range ws {
			if !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	for _, p := range t.Pairs {
		add(p.MountedBy)
	}
	for _, b := range t.Bundles {
		add(b.MountedBy)
	}
	return out
}

// Validate says what is wrong with the table: names are DNS labels (they name volumes), unique, the
// SANs well-formed, every TrustedVia names a bundle, and a pair has a CN and a workload.
func (t Table) Validate() error {
	var errs []error
	if len(validation.IsDNS1123Label(t.Namespace)) > 0 {
		errs = append(errs, fmt.Errorf("namespace %q: not a DNS label", t.Namespace))
	}
	seen := map[string]bool{}
	for i, p := range t.Pairs {
		path := fmt.Sprintf("pairs[%d]", i)
		if len(validation.IsDNS1123Label(p.Secret)) > 0 {
			errs = append(errs, fmt.Errorf("%s.secret %q: not a DNS label", path, p.Secret))
		}
		if seen[p.Secret] {
			errs = append(errs, fmt.Errorf("%s.secret %q: listed twice", path, p.Secret))
		}
		seen[p.Secret] = true
		if p.CommonName == "" {
			errs = append(errs, fmt.Errorf("%s.commonName: empty", path))
		}
		for _, ip := range p.IPAddresses {
			if net.ParseIP(ip) == nil {
				errs = append(errs, fmt.Errorf("%s.ipAddresses: %q is not an IP address", path, ip))
			}
		}
		for _, d := range p.DNSNames {
			if len(validation.IsDNS1123Subdomain(d)) > 0 {
				errs = append(errs, fmt.Errorf("%s.dnsNames: %q is not a DNS name", path, d))
			}
		}
		for _, v := range p.TrustedVia {
			if _, ok := t.Bundle(v); !ok {
				errs = append(errs, fmt.Errorf("%s.trustedVia: no bundle %q in the table", path, v))
			}
		}
		if len(p.MountedBy) == 0 {
			errs = append(errs, fmt.Errorf("%s.mountedBy: no workload mounts %s", path, p.Secret))
		}
	}
	names := map[string]bool{}
	for i, b := range t.Bundles {
		path := fmt.Sprintf("bundles[%d]", i)
		if names[b.Name] {
			errs = append(errs, fmt.Errorf("%s.name %q: listed twice", path, b.Name))
		}
		names[b.Name] = true
		if !b.APIService && len(validation.IsDNS1123Label(b.Name)) > 0 {
			errs = append(errs, fmt.Errorf("%s.name %q: not a DNS label", path, b.Name))
		}
		if b.APIService && len(b.MountedBy) > 0 {
			errs = append(errs, fmt.Errorf("%s.mountedBy: the APIService's caBundle is mounted by no workload", path))
		}
	}
	return errors.Join(errs...)
}
