package layout

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// TyphaTLS is where the mutual TLS material of Felix (in calico-node) and Typha is, and the
// identities each side requires of the other, as Calico's own parameters name them: Felix's
// TyphaCAFile, TyphaCertFile, TyphaKeyFile, TyphaCN and TyphaURISAN, Typha's CAFile, ServerCertFile,
// ServerKeyFile, ClientCN and ClientURISAN. Render only mounts and names the material; the caller
// that applies the objects writes the ConfigMap and Secrets (internal/typhatls issues and renews them).
type TyphaTLS struct {
	// CABundle is the ConfigMap of the CA certificates both sides trust.
	CABundle CABundle
	// NodeSecret is the Secret of calico-node's client key pair (keys tls.crt and tls.key), mounted
	// read-only in calico-node at NodeMountPath.
	NodeSecret, NodeMountPath string
	// TyphaSecret is the Secret of Typha's server key pair (keys tls.crt and tls.key), mounted
	// read-only in Typha at TyphaMountPath.
	TyphaSecret, TyphaMountPath string
	// ServerCN is the common name Felix requires of Typha's certificate (FELIX_TYPHACN), ServerURISAN
	// the URI SAN it requires instead or as well (FELIX_TYPHAURISAN; empty: not set).
	ServerCN, ServerURISAN string
	// ClientCN is the common name Typha requires of calico-node's certificate (TYPHA_CLIENTCN),
	// ClientURISAN the URI SAN (TYPHA_CLIENTURISAN; empty: not set).
	ClientCN, ClientURISAN string
	// Checksum is a digest of the material the Secrets and the ConfigMap hold, set by the caller that
	// writes them; render puts it on calico-node's and Typha's pod templates (checksum/typha-tls), so
	// that renewed certificates roll both (empty: no annotation).
	Checksum string
}

// CABundle is a ConfigMap of trusted CA certificates mounted as a directory.
type CABundle struct {
	// ConfigMap is its name; Key the key whose file Felix and Typha read (FELIX_TYPHACAFILE, TYPHA_CAFILE).
	ConfigMap, Key string
	// MountPath is the directory it is mounted at, read-only, in calico-node and in Typha.
	MountPath string
}

// The common names of the tigera operator's Typha certificates, which Calico's documentation of Typha
// TLS also uses.
const (
	TyphaServerCN = "typha-server"
	TyphaClientCN = "typha-client"
)

// TigeraOperatorTyphaTLS is the tigera operator's Typha TLS (docs/layouts.md): CA bundle ConfigMap
// tigera-ca-bundle (file tigera-ca-bundle.crt) at /etc/pki/tls/certs, calico-node's key pair in Secret
// node-certs at /node-certs, Typha's in typha-certs at /typha-certs, CNs typha-server and typha-client
// and no URI SANs. With these a taken-over pod keeps the operator's volumes, mounts and paths.
func TigeraOperatorTyphaTLS() TyphaTLS {
	return TyphaTLS{
		CABundle:   CABundle{ConfigMap: "tigera-ca-bundle", Key: "tigera-ca-bundle.crt", MountPath: "/etc/pki/tls/certs"},
		NodeSecret: "node-certs", NodeMountPath: "/node-certs",
		TyphaSecret: "typha-certs", TyphaMountPath: "/typha-certs",
		ServerCN: TyphaServerCN, ClientCN: TyphaClientCN,
	}
}

// CAFile is the path of the CA bundle file in the pods.
func (t TyphaTLS) CAFile() string { return path.Join(t.CABundle.MountPath, t.CABundle.Key) }

// Validate says what is missing or malformed: every name and path is required, the object names are
// DNS labels (they name the volumes), the paths absolute, the mount paths distinct, and each side
// needs a CN or a URI SAN to check.
func (t TyphaTLS) Validate() error {
	var errs []error
	required := func(what, v string) {
		if v == "" {
			errs = append(errs, fmt.Errorf("typha TLS: %s is empty", what))
		}
	}
	required("the CA bundle ConfigMap", t.CABundle.ConfigMap)
	required("the CA bundle key", t.CABundle.Key)
	required("calico-node's key pair Secret", t.NodeSecret)
	required("typha's key pair Secret", t.TyphaSecret)
	for _, p := range []struct{ what, v string }{
		{"the CA bundle mount path", t.CABundle.MountPath},
		{"calico-node's key pair mount path", t.NodeMountPath},
		{"typha's key pair mount path", t.TyphaMountPath},
	} {
		if !strings.HasPrefix(p.v, "/") {
			errs = append(errs, fmt.Errorf("typha TLS: %s %q is not an absolute path", p.what, p.v))
		}
	}
	// The pods' volumes are named after the ConfigMap and Secrets, and volume names are DNS labels.
	for _, n := range []string{t.CABundle.ConfigMap, t.NodeSecret, t.TyphaSecret} {
		if n != "" && len(validation.IsDNS1123Label(n)) > 0 {
			errs = append(errs, fmt.Errorf("typha TLS: %q cannot name a volume (not a DNS label)", n))
		}
	}
	if strings.Contains(t.CABundle.Key, "/") {
		errs = append(errs, fmt.Errorf("typha TLS: the CA bundle key %q contains a slash", t.CABundle.Key))
	}
	if t.CABundle.MountPath == t.NodeMountPath || t.CABundle.MountPath == t.TyphaMountPath {
		errs = append(errs, errors.New("typha TLS: the CA bundle and a key pair share a mount path"))
	}
	if t.ServerCN == "" && t.ServerURISAN == "" {
		errs = append(errs, errors.New("typha TLS: neither a server CN nor a server URI SAN for Felix to check"))
	}
	if t.ClientCN == "" && t.ClientURISAN == "" {
		errs = append(errs, errors.New("typha TLS: neither a client CN nor a client URI SAN for Typha to check"))
	}
	return errors.Join(errs...)
}
