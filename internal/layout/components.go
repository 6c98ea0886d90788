package layout

import (
	"fmt"
	"strings"
)

// The names of the optional components' objects (docs/components/*.md). Every layout uses the tigera
// operator's names, labels and selectors (v1.40): a takeover of an operator cluster updates its
// objects in place, and in kube-system (KubeSystem) the same names are free, so nothing is gained by
// others. Only the namespace differs between layouts. Each struct is comparable (Layout is a map key).

// APIServer names calico-apiserver's objects.
type APIServer struct {
	// Workload is the Deployment, its ServiceAccount and its selector (apiserver: "true").
	Workload Workload
	// Service is the Service the APIService points at (443 to the pods' 5443); ServiceLabel its one label.
	Service      string
	ServiceLabel Label
	// APIService is the registration of projectcalico.org/v3.
	APIService string
	// PodDisruptionBudget and NetworkPolicy (ingress to the API port) select the pods by the selector.
	PodDisruptionBudget, NetworkPolicy string
	// KeyPair is the Secret of the serving key pair (tls.crt, tls.key), mounted at /<KeyPair>.
	KeyPair string
	// CRDsRole and CRDsBinding give the ServiceAccount the CRDs it serves and what it reads.
	CRDsRole, CRDsBinding string
	// AuthAccessRole (and its binding of the same name) reads extension-apiserver-authentication and RBAC.
	AuthAccessRole string
	// WebhookReaderRole and WebhookReaderBinding read the admission webhook configurations.
	WebhookReaderRole, WebhookReaderBinding string
	// DelegateAuthBinding binds the ServiceAccount to system:auth-delegator.
	DelegateAuthBinding string
	// AuthReaderBinding is the RoleBinding in kube-system to extension-apiserver-authentication-reader.
	AuthReaderBinding string
	// PolicyPassthrough (ClusterRole and ClusterRoleBinding) lets every authenticated user reach
	// projectcalico.org (global)networkpolicies, whose access calico-apiserver checks per tier.
	PolicyPassthrough string
}

// Goldmane names goldmane's objects.
type Goldmane struct {
	// Workload is the Deployment, its ServiceAccount and its selector (k8s-app: goldmane).
	Workload Workload
	// Service is the Service Felix and whisker-backend reach it by (port 7443).
	Service string
	// Role and its RoleBinding (same name) let it keep its ConfigMaps.
	Role string
	// ConfigMap is its hot-reloaded configuration (config.json).
	ConfigMap string
	// CABundle is the ConfigMap of the CAs it trusts (Felix's client certificates), at /etc/pki/tls/certs.
	CABundle string
	// KeyPair is the Secret of its serving key pair, mounted at /<KeyPair>.
	KeyPair string
	// NetworkPolicy admits its port.
	NetworkPolicy string
}

// Whisker names whisker's objects.
type Whisker struct {
	// Workload is the Deployment (containers whisker and whisker-backend), its ServiceAccount and
	// its selector (k8s-app: whisker).
	Workload Workload
	// Service serves the UI (port 8081).
	Service string
	// CABundle is the ConfigMap of the CAs whisker-backend trusts (goldmane's), at /etc/pki/tls/certs.
	CABundle string
	// KeyPair is the Secret of whisker-backend's client key pair, mounted at /<KeyPair>.
	KeyPair string
	// NginxConfig is the ConfigMap of the UI's nginx configuration.
	NginxConfig string
	// NetworkPolicy limits its egress to goldmane and DNS.
	NetworkPolicy string
}

// CSIDriver names the CSI driver's objects.
type CSIDriver struct {
	// Workload is the DaemonSet, its ServiceAccount and its selector (k8s-app: csi-node-driver).
	Workload Workload
	// Driver is the CSIDriver object and the driver's name (csi.tigera.io).
	Driver string
}

// Components are the names of the optional components' objects in a layout.
type Components struct {
	APIServer APIServer
	Goldmane  Goldmane
	Whisker   Whisker
	CSIDriver CSIDriver
}

// LabelAPIServer is calico-apiserver's selector key (the operator's, for legacy reasons "apiserver").
const LabelAPIServer = "apiserver"

// OperatorComponents are the tigera operator's names of the optional components (v1.40, docs/layouts.md).
func OperatorComponents() Components {
	return Components{
		APIServer: APIServer{
			Workload:            Workload{Name: "calico-apiserver", ServiceAccount: "calico-apiserver", Selector: Label{Key: LabelAPIServer, Value: "true"}},
			Service:             "calico-api",
			ServiceLabel:        Label{Key: selectorKey, Value: "calico-api"},
			APIService:          "v3.projectcalico.org",
			PodDisruptionBudget: "calico-apiserver",
			NetworkPolicy:       "allow-apiserver",
			KeyPair:             "calico-apiserver-certs",
			CRDsRole:            "calico-crds", CRDsBinding: "calico-apiserver-access-calico-crds",
			AuthAccessRole:    "calico-extension-apiserver-auth-access",
			WebhookReaderRole: "calico-webhook-reader", WebhookReaderBinding: "calico-apiserver-webhook-reader",
			DelegateAuthBinding: "calico-apiserver-delegate-auth",
			AuthReaderBinding:   "calico-apiserver-auth-reader",
			PolicyPassthrough:   "calico-tiered-policy-passthrough",
		},
		Goldmane: Goldmane{
			Workload:  Workload{Name: "goldmane", ServiceAccount: "goldmane", Selector: Label{Key: selectorKey, Value: "goldmane"}},
			Service:   "goldmane",
			Role:      "goldmane",
			ConfigMap: "goldmane", CABundle: "goldmane-ca-bundle", KeyPair: "goldmane-key-pair",
			NetworkPolicy: "goldmane",
		},
		Whisker: Whisker{
			Workload:      Workload{Name: "whisker", ServiceAccount: "whisker", Selector: Label{Key: selectorKey, Value: "whisker"}},
			Service:       "whisker",
			CABundle:      "whisker-ca-bundle",
			KeyPair:       "whisker-backend-key-pair",
			NginxConfig:   "whisker-nginx-config",
			NetworkPolicy: "whisker",
		},
		CSIDriver: CSIDriver{
			Workload: Workload{Name: "csi-node-driver", ServiceAccount: "csi-node-driver", Selector: Label{Key: selectorKey, Value: "csi-node-driver"}},
			Driver:   "csi.tigera.io",
		},
	}
}

// ComponentsOf is l's optional components' names: l.Components, or the operator's names when l
// (a layout built before they existed) names none.
func (l Layout) ComponentsOf() Components {
	if l.Components == (Components{}) {
		return OperatorComponents()
	}
	return l.Components
}

// Validate says which names c lacks.
func (c Components) Validate() error {
	var missing []string
	for _, f := range []struct{ name, v string }{
		{"calico-apiserver's Deployment", c.APIServer.Workload.Name}, {"calico-apiserver's ServiceAccount", c.APIServer.Workload.ServiceAccount},
		{"calico-apiserver's selector", c.APIServer.Workload.Selector.Key + c.APIServer.Workload.Selector.Value},
		{"calico-apiserver's Service", c.APIServer.Service}, {"APIService", c.APIServer.APIService},
		{"calico-apiserver's key pair", c.APIServer.KeyPair},
		{"goldmane's Deployment", c.Goldmane.Workload.Name}, {"goldmane's ServiceAccount", c.Goldmane.Workload.ServiceAccount},
		{"goldmane's selector", c.Goldmane.Workload.Selector.Key + c.Goldmane.Workload.Selector.Value},
		{"goldmane's Service", c.Goldmane.Service}, {"goldmane's ConfigMap", c.Goldmane.ConfigMap},
		{"goldmane's CA bundle", c.Goldmane.CABundle}, {"goldmane's key pair", c.Goldmane.KeyPair},
		{"whisker's Deployment", c.Whisker.Workload.Name}, {"whisker's ServiceAccount", c.Whisker.Workload.ServiceAccount},
		{"whisker's selector", c.Whisker.Workload.Selector.Key + c.Whisker.Workload.Selector.Value},
		{"whisker's CA bundle", c.Whisker.CABundle}, {"whisker-backend's key pair", c.Whisker.KeyPair},
		{"whisker's nginx ConfigMap", c.Whisker.NginxConfig},
		{"csi-node-driver's DaemonSet", c.CSIDriver.Workload.Name}, {"CSIDriver object", c.CSIDriver.Driver},
	} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("layout components: no %s", strings.Join(missing, ", no "))
	}
	return nil
}
