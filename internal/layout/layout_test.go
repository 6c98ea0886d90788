package layout_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/layout"
)

// TestTigeraOperator pins the operator's layout to the facts of a cluster it runs (docs/layouts.md).
func TestTigeraOperator(t *testing.T) {
	want := layout.Layout{
		Namespace: "calico-system",
		Node: layout.Workload{Name: "calico-node", ServiceAccount: "calico-node",
			Selector: layout.Label{Key: "k8s-app", Value: "calico-node"}},
		Typha: layout.Workload{Name: "calico-typha", ServiceAccount: "calico-typha",
			Selector: layout.Label{Key: "k8s-app", Value: "calico-typha"}},
		KubeControllers: layout.Workload{Name: "calico-kube-controllers", ServiceAccount: "calico-kube-controllers",
			Selector: layout.Label{Key: "k8s-app", Value: "calico-kube-controllers"}},
		TyphaService: "calico-typha", CNIPlugin: "calico-cni-plugin",
		ConfigMap: "cni-config", CNIConfigKey: "config",
		AppNameLabel: true,
		Components:   layout.OperatorComponents(), // TestOperatorComponents pins them
	}
	if d := cmp.Diff(want, layout.TigeraOperator()); d != "" {
		t.Errorf("TigeraOperator (-want +got):\n%s", d)
	}
	if err := layout.TigeraOperator().Validate(); err != nil {
		t.Error(err)
	}
	wantTLS := layout.TyphaTLS{
		CABundle:   layout.CABundle{ConfigMap: "tigera-ca-bundle", Key: "tigera-ca-bundle.crt", MountPath: "/etc/pki/tls/certs"},
		NodeSecret: "node-certs", NodeMountPath: "/node-certs",
		TyphaSecret: "typha-certs", TyphaMountPath: "/typha-certs",
		ServerCN: "typha-server", ClientCN: "typha-client",
	}
	if d := cmp.Diff(wantTLS, layout.TigeraOperatorTyphaTLS()); d != "" {
		t.Errorf("TigeraOperatorTyphaTLS (-want +got):\n%s", d)
	}
	if got := wantTLS.CAFile(); got != "/etc/pki/tls/certs/tigera-ca-bundle.crt" {
		t.Errorf("CAFile = %q", got)
	}
	if err := wantTLS.Validate(); err != nil {
		t.Error(err)
	}
}

func TestWorkload(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    layout.Layout
		want map[calicoversion.Component]calicoversion.Workload
	}{
		{"zero", layout.Layout{}, map[calicoversion.Component]calicoversion.Workload{
			calicoversion.Node:            {Kind: "DaemonSet", Namespace: "kube-system", Name: "calico-node"},
			calicoversion.Typha:           {Kind: "Deployment", Namespace: "kube-system", Name: "calico-typha-deploy"},
			calicoversion.KubeControllers: {Kind: "Deployment", Namespace: "kube-system", Name: "calico-kube-controllers"},
		}},
		{"operator", layout.TigeraOperator(), map[calicoversion.Component]calicoversion.Workload{
			calicoversion.Node:            {Kind: "DaemonSet", Namespace: "calico-system", Name: "calico-node"},
			calicoversion.Typha:           {Kind: "Deployment", Namespace: "calico-system", Name: "calico-typha"},
			calicoversion.KubeControllers: {Kind: "Deployment", Namespace: "calico-system", Name: "calico-kube-controllers"},
			calicoversion.APIServer:       {Kind: "Deployment", Namespace: "calico-system", Name: "calico-apiserver"},
			calicoversion.Goldmane:        {Kind: "Deployment", Namespace: "calico-system", Name: "goldmane"},
			calicoversion.Whisker:         {Kind: "Deployment", Namespace: "calico-system", Name: "whisker"},
			calicoversion.CSIDriver:       {Kind: "DaemonSet", Namespace: "calico-system", Name: "csi-node-driver"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for c, want := range tc.want {
				if got := tc.l.Workload(c); got != want {
					t.Errorf("Workload(%s) = %+v, want %+v", c, got, want)
				}
				if c.IsOptional() {
					continue // ComponentOfWorkload knows the core components only
				}
				if got, ok := tc.l.ComponentOfWorkload(want.Kind, want.Name); !ok || got != c {
					t.Errorf("ComponentOfWorkload(%s, %s) = %s, %v", want.Kind, want.Name, got, ok)
				}
			}
		})
	}
	// The zero layout's workloads are calicoversion's (what rollout reads today).
	for _, c := range calicoversion.Components() {
		if got := (layout.Layout{}).Workload(c); got != c.Workload() {
			t.Errorf("%s: %+v, calicoversion's %+v", c, got, c.Workload())
		}
	}
	if _, ok := layout.TigeraOperator().ComponentOfWorkload("Deployment", "calico-typha-deploy"); ok {
		t.Error("calico-typha-deploy is a workload of the operator layout")
	}
	if got := layout.TigeraOperator().Workload("calico-flannel"); got != (calicoversion.Workload{}) {
		t.Errorf("unknown component: %+v", got)
	}
}

func TestZeroIsKubeSystem(t *testing.T) {
	if !(layout.Layout{}).IsZero() || layout.KubeSystem().IsZero() {
		t.Error("IsZero")
	}
	if (layout.Layout{}).OrDefault() != layout.KubeSystem() || layout.TigeraOperator().OrDefault() != layout.TigeraOperator() {
		t.Error("OrDefault")
	}
}

func TestValidate(t *testing.T) {
	partial := layout.Layout{Namespace: "calico-system", Node: layout.Workload{Selector: layout.Label{Key: "k8s-app"}}}
	const want = "layout: no calico-node's DaemonSet, no calico-node's ServiceAccount, no typha's Deployment, no typha's ServiceAccount, " +
		"no typha's selector, no kube-controllers' Deployment, no kube-controllers' ServiceAccount, no kube-controllers' selector, " +
		"no typha's Service, no the CNI plugin's ServiceAccount, no calico-node's ConfigMap, no the CNI network configuration's key, " +
		"no the key or value of selector k8s-app="
	if err := partial.Validate(); err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	if err := (layout.Layout{}).Validate(); err != nil {
		t.Errorf("zero layout: %v", err)
	}

	tls := layout.TigeraOperatorTyphaTLS()
	tls.CABundle.MountPath, tls.NodeMountPath = "/certs", "/certs"
	tls.TyphaSecret, tls.CABundle.Key = "typha.certs", "a/b"
	tls.ClientCN = ""
	const wantTLS = `typha TLS: "typha.certs" cannot name a volume (not a DNS label)` + "\n" +
		`typha TLS: the CA bundle key "a/b" contains a slash` + "\n" +
		"typha TLS: the CA bundle and a key pair share a mount path\n" +
		"typha TLS: neither a client CN nor a client URI SAN for Typha to check"
	if err := tls.Validate(); err == nil || err.Error() != wantTLS {
		t.Errorf("error = %v, want %q", err, wantTLS)
	}
	if err := (layout.TyphaTLS{}).Validate(); err == nil {
		t.Error("empty TyphaTLS validates")
	}
}

// TestOperatorComponents pins the optional components' names, labels and selectors to what the tigera
// operator v1.40 creates (docs/layouts.md): a takeover updates its objects in place, and a selector
// cannot change on a live Deployment or DaemonSet.
func TestOperatorComponents(t *testing.T) {
	want := layout.Components{
		APIServer: layout.APIServer{
			Workload: layout.Workload{Name: "calico-apiserver", ServiceAccount: "calico-apiserver", Selector: layout.Label{Key: "apiserver", Value: "true"}},
			Service:  "calico-api", ServiceLabel: layout.Label{Key: "k8s-app", Value: "calico-api"},
			APIService: "v3.projectcalico.org", PodDisruptionBudget: "calico-apiserver", NetworkPolicy: "allow-apiserver",
			KeyPair:  "calico-apiserver-certs",
			CRDsRole: "calico-crds", CRDsBinding: "calico-apiserver-access-calico-crds",
			AuthAccessRole:    "calico-extension-apiserver-auth-access",
			WebhookReaderRole: "calico-webhook-reader", WebhookReaderBinding: "calico-apiserver-webhook-reader",
			DelegateAuthBinding: "calico-apiserver-delegate-auth", AuthReaderBinding: "calico-apiserver-auth-reader",
			PolicyPassthrough: "calico-tiered-policy-passthrough",
		},
		Goldmane: layout.Goldmane{
			Workload: layout.Workload{Name: "goldmane", ServiceAccount: "goldmane", Selector: layout.Label{Key: "k8s-app", Value: "goldmane"}},
			Service:  "goldmane", Role: "goldmane", ConfigMap: "goldmane", CABundle: "goldmane-ca-bundle",
			KeyPair: "goldmane-key-pair", NetworkPolicy: "goldmane",
		},
		Whisker: layout.Whisker{
			Workload: layout.Workload{Name: "whisker", ServiceAccount: "whisker", Selector: layout.Label{Key: "k8s-app", Value: "whisker"}},
			Service:  "whisker", CABundle: "whisker-ca-bundle", KeyPair: "whisker-backend-key-pair",
			NginxConfig: "whisker-nginx-config", NetworkPolicy: "whisker",
		},
		CSIDriver: layout.CSIDriver{
			Workload: layout.Workload{Name: "csi-node-driver", ServiceAccount: "csi-node-driver", Selector: layout.Label{Key: "k8s-app", Value: "csi-node-driver"}},
			Driver:   "csi.tigera.io",
		},
	}
	if d := cmp.Diff(want, layout.OperatorComponents()); d != "" {
		t.Errorf("OperatorComponents (-want +got):\n%s", d)
	}
	for _, l := range []layout.Layout{layout.KubeSystem(), layout.TigeraOperator(), {}} {
		if d := cmp.Diff(want, l.OrDefault().ComponentsOf()); d != "" {
			t.Errorf("layout %q: components (-want +got):\n%s", l.Namespace, d)
		}
		if err := l.OrDefault().ComponentsOf().Validate(); err != nil {
			t.Error(err)
		}
	}
	bad := want
	bad.Goldmane.KeyPair, bad.CSIDriver.Driver = "", ""
	if err := bad.Validate(); err == nil || err.Error() != "layout components: no goldmane's key pair, no CSIDriver object" {
		t.Errorf("Validate = %v", err)
	}
}
