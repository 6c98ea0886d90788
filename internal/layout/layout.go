package layout

import (
	"fmt"
	"strings"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// Label is one label: a key and its value.
type Label struct {
	Key, Value string
}

// Workload names one of Calico's workloads (a DaemonSet or Deployment) and what belongs to it by name.
type Workload struct {
	// Name is the DaemonSet's or Deployment's name.
	Name string
	// ServiceAccount is the ServiceAccount its pods run as, also the name of its ClusterRole and
	// ClusterRoleBinding (calico-node's and kube-controllers'; Typha reads with calico-node's role).
	ServiceAccount string
	// Selector is the one label of spec.selector.matchLabels, which the API server never lets change
	// on an existing DaemonSet or Deployment. The pods carry it, and every object that selects them
	// (Services, PodDisruptionBudgets, NetworkPolicies) selects by it.
	Selector Label
}

// Layout is where Calico's objects live and what they are called. The zero Layout is Gardener's
// kube-system layout (KubeSystem); use OrDefault to read a Layout that may be zero. A Layout is
// comparable: render keys the objects it encodes once by it.
type Layout struct {
	// Namespace holds every namespaced object.
	Namespace string
	// Node, Typha and KubeControllers are the three workloads.
	Node, Typha, KubeControllers Workload
	// TyphaService is the Service calico-node finds Typha by (FELIX_TYPHAK8SSERVICENAME).
	TyphaService string
	// CNIPlugin is the CNI plugin's ServiceAccount, ClusterRole and ClusterRoleBinding: calico-node
	// mints the plugin's tokens for this ServiceAccount in Namespace.
	CNIPlugin string
	// ConfigMap is calico-node's configuration (backend, Typha Service, MTU and the CNI network
	// configuration install-cni writes); CNIConfigKey is the key of the CNI network configuration in it.
	ConfigMap, CNIConfigKey string
	// AppNameLabel adds app.kubernetes.io/name, with the value of the workload's selector label, to
	// the pod template of each workload and to the metadata of the Deployments (the operator's labels).
	AppNameLabel bool
	// Components name the optional components' objects (calico-apiserver, goldmane, whisker, the CSI
	// driver): the tigera operator's names in every layout (OperatorComponents); zero means those.
	Components Components
}

// LabelAppName is the label AppNameLabel adds.
const LabelAppName = "app.kubernetes.io/name"

// selectorKey is the key every known layout selects Calico's pods by (Gardener's, Calico's manifest's
// and the tigera operator's).
const selectorKey = "k8s-app"

// KubeSystem is the layout calico-pilot deploys under Gardener and on a plain cluster today, the
// reference extension's names (what the zero Layout means): everything in kube-system, Typha's
// Deployment calico-typha-deploy behind Service calico-typha, calico-node's configuration in
// calico-config (key cni_network_config).
func KubeSystem() Layout {
	return Layout{
		Namespace: calicoversion.Namespace,
		Node: Workload{
			Name: calicoversion.NodeDaemonSet, ServiceAccount: "calico-node",
			Selector: Label{Key: selectorKey, Value: "calico-node"},
		},
		Typha: Workload{
			Name: calicoversion.TyphaDeployment, ServiceAccount: "calico-typha",
			Selector: Label{Key: selectorKey, Value: "calico-typha"},
		},
		KubeControllers: Workload{
			Name: calicoversion.KubeControllersDeployment, ServiceAccount: "calico-kube-controllers",
			Selector: Label{Key: selectorKey, Value: "calico-kube-controllers"},
		},
		TyphaService: "calico-typha",
		CNIPlugin:    "calico-cni-plugin",
		ConfigMap:    "calico-config", CNIConfigKey: "cni_network_config",
		// The operator's names are free in kube-system too: the optional components keep them.
		Components: OperatorComponents(),
	}
}

// TigeraOperator is the layout of a cluster the tigera operator runs (its v1.40 line; docs/layouts.md):
// everything in calico-system, Typha's Deployment and Service both calico-typha, the CNI network
// configuration in ConfigMap cni-config key config, and app.kubernetes.io/name on the pods. Its
// selectors are the operator's, so the operator's DaemonSet and Deployments are updated in place.
func TigeraOperator() Layout {
	l := KubeSystem()
	l.Namespace = "calico-system"
	l.Typha.Name = "calico-typha"
	l.ConfigMap, l.CNIConfigKey = "cni-config", "config"
	l.AppNameLabel = true
	return l
}

// IsZero reports whether l is the zero Layout (which means KubeSystem).
func (l Layout) IsZero() bool { return l == Layout{} }

// OrDefault is l, or KubeSystem when l is zero.
func (l Layout) OrDefault() Layout {
	if l.IsZero() {
		return KubeSystem()
	}
	return l
}

// Workload is the workload that runs component c in this layout (the zero Layout: c.Workload(), the
// calicoversion constants), so a reader of a running install finds calico-node, Typha and
// kube-controllers wherever the layout put them. It is the zero Workload for an unknown component.
func (l Layout) Workload(c calicoversion.Component) calicoversion.Workload {
	l = l.OrDefault()
	switch c {
	case calicoversion.Node:
		return calicoversion.Workload{Kind: "DaemonSet", Namespace: l.Namespace, Name: l.Node.Name}
	case calicoversion.Typha:
		return calicoversion.Workload{Kind: "Deployment", Namespace: l.Namespace, Name: l.Typha.Name}
	case calicoversion.KubeControllers:
		return calicoversion.Workload{Kind: "Deployment", Namespace: l.Namespace, Name: l.KubeControllers.Name}
	case calicoversion.APIServer:
		return calicoversion.Workload{Kind: "Deployment", Namespace: l.Namespace, Name: l.ComponentsOf().APIServer.Workload.Name}
	case calicoversion.Goldmane:
		return calicoversion.Workload{Kind: "Deployment", Namespace: l.Namespace, Name: l.ComponentsOf().Goldmane.Workload.Name}
	case calicoversion.Whisker:
		return calicoversion.Workload{Kind: "Deployment", Namespace: l.Namespace, Name: l.ComponentsOf().Whisker.Workload.Name}
	case calicoversion.CSIDriver:
		return calicoversion.Workload{Kind: "DaemonSet", Namespace: l.Namespace, Name: l.ComponentsOf().CSIDriver.Workload.Name}
	}
	return calicoversion.Workload{}
}

// ComponentOfWorkload is the component whose workload in this layout is kind/name
// (calicoversion.ComponentOfWorkload for any layout).
func (l Layout) ComponentOfWorkload(kind, name string) (calicoversion.Component, bool) {
	for _, c := range calicoversion.AllComponents() {
		if w := l.Workload(c); w.Kind == kind && w.Name == name {
			return c, true
		}
	}
	return "", false
}

// Validate says which names a non-zero layout lacks (the zero Layout is KubeSystem, which is complete).
func (l Layout) Validate() error {
	if l.IsZero() {
		return nil
	}
	var missing []string
	for _, f := range []struct{ name, v string }{
		{"namespace", l.Namespace},
		{"calico-node's DaemonSet", l.Node.Name}, {"calico-node's ServiceAccount", l.Node.ServiceAccount},
		{"calico-node's selector", l.Node.Selector.Key + l.Node.Selector.Value},
		{"typha's Deployment", l.Typha.Name}, {"typha's ServiceAccount", l.Typha.ServiceAccount},
		{"typha's selector", l.Typha.Selector.Key + l.Typha.Selector.Value},
		{"kube-controllers' Deployment", l.KubeControllers.Name}, {"kube-controllers' ServiceAccount", l.KubeControllers.ServiceAccount},
		{"kube-controllers' selector", l.KubeControllers.Selector.Key + l.KubeControllers.Selector.Value},
		{"typha's Service", l.TyphaService}, {"the CNI plugin's ServiceAccount", l.CNIPlugin},
		{"calico-node's ConfigMap", l.ConfigMap}, {"the CNI network configuration's key", l.CNIConfigKey},
	} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	for _, s := range []Label{l.Node.Selector, l.Typha.Selector, l.KubeControllers.Selector} {
		if (s.Key == "") != (s.Value == "") {
			missing = append(missing, fmt.Sprintf("the key or value of selector %s=%s", s.Key, s.Value))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("layout: no %s", strings.Join(missing, ", no "))
	}
	return nil
}
