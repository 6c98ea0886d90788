package render

import (
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// ConstantGroup is a set of shoot objects whose content does not depend on Options beyond the
// Calico releases of the components whose RBAC it holds; the options only say whether a shoot gets
// the set, and the component that owns the group says so from the same conditions as for its other
// objects (see part and ShootParts). Callers that serialize many shoots may encode each Constant once
// and reuse the bytes (internal/pipeline does).
type ConstantGroup int

const (
	// GroupAlways is what every shoot gets: the RBAC of calico-node, the CNI plugin and the
	// tier getter, and felix's metrics Service.
	GroupAlways ConstantGroup = iota
	// GroupKubeControllers is kube-controllers' RBAC, PodDisruptionBudget and ServiceAccount.
	GroupKubeControllers
	// GroupTypha is typha's Service, PodDisruptionBudget, ServiceAccount, metrics Service and
	// NetworkPolicy.
	GroupTypha
	// GroupTyphaCPA is the RBAC and ConfigMap of typha's cluster-proportional autoscaler.
	GroupTyphaCPA
	// GroupTyphaCPVA is the RBAC and ConfigMap of typha's cluster-proportional vertical autoscaler.
	GroupTyphaCPVA
	// GroupNodeCPVA is the RBAC and ConfigMap of calico-node's cluster-proportional vertical autoscaler.
	GroupNodeCPVA

	numConstantGroups
)

// Constant is a constant group as a shoot selects it: the group, the Calico releases its RBAC
// serves and the layout its objects are named in. Releases that a group's objects do not depend on
// are zero, so every shoot that gets the group with the same releases in the same layout gets the
// same Constant (it is comparable: a map key).
type Constant struct {
	Group ConstantGroup
	// Node are the releases calico-node's ClusterRole serves (GroupAlways): every release calico-node
	// and, with typha, typha may run in the shoot's step (typha shares the role, as upstream's typha
	// runs as calico-node). CNI are the releases the CNI plugin's ClusterRole serves: every release
	// calico-node may run (its install-cni init container puts the plugin of its own release on the
	// node).
	Node, CNI Served
	// KubeControllers are the releases kube-controllers' ClusterRole serves (GroupKubeControllers).
	KubeControllers Served
	// Layout is the layout of the shoot's options as they carry it (the zero Layout for every
	// Gardener shoot, which Constants lists).
	Layout layout.Layout
}

// constantOf is group g as a shoot with options o selects it: by the releases that may run its
// Calico components in the step o.Calico is (calicoversion.Deployment.Running), and whether typha
// runs.
func constantOf(g ConstantGroup, o *values.Options) Constant {
	d := o.Calico
	switch g {
	case GroupAlways:
		node := d.Running(calicoversion.Node)
		c := Constant{Group: g, Node: servedBy(node), CNI: servedBy(node), Layout: o.Layout}
		if o.Typha {
			c.Node = servedBy(node, d.Running(calicoversion.Typha))
		}
		return c
	case GroupKubeControllers:
		return Constant{Group: g, KubeControllers: servedBy(d.Running(calicoversion.KubeControllers)), Layout: o.Layout}
	}
	return Constant{Group: g, Layout: o.Layout}
}

// Constants lists every Constant a shoot in the default (zero) layout can select with the releases
// of catalogue cat, in group order: each group with every set of the releases it depends on that a
// step can run. A step runs one release, or during a move the move's two (calicoversion.Move), so
// the sets are every release alone and every two releases together (calico-node's role with the
// CNI plugin's serving either of them or both).
func Constants(cat *calicoversion.Catalogue) []Constant {
	releases := cat.Releases()
	var sets []Served
	for i, a := range releases {
		sets = append(sets, servedBy([]calicoversion.Release{a}))
		for _, b := range releases[i+1:] {
			sets = append(sets, servedBy([]calicoversion.Release{a, b}))
		}
	}
	var out []Constant
	for g := range numConstantGroups {
		switch g {
		case GroupAlways:
			for _, node := range sets {
				for _, cni := range sets {
					if isSubset(cni, node) {
						out = append(out, Constant{Group: g, Node: node, CNI: cni})
					}
				}
			}
		case GroupKubeControllers:
			for _, k := range sets {
				out = append(out, Constant{Group: g, KubeControllers: k})
			}
		default:
			out = append(out, Constant{Group: g})
		}
	}
	return out
}

// isSubset is true when every release of a is in b.
func isSubset(a, b Served) bool {
	for _, r := range a.Releases() {
		if !slices.Contains(b.Releases(), r) {
			return false
		}
	}
	return true
}

// Objects builds the constant's objects: fresh objects on every call, the same content for every
// shoot that selects it (the builders take no Options).
func (c Constant) Objects() []client.Object {
	l := c.Layout.OrDefault()
	switch c.Group {
	case GroupAlways:
		return append(constantRBAC(l, c.Node, c.CNI), felixMonitoringService(l))
	case GroupKubeControllers:
		return kubeControllersConstants(l, c.KubeControllers)
	case GroupTypha:
		return typhaConstants(l)
	case GroupTyphaCPA:
		return typhaCPAConstants(l)
	case GroupTyphaCPVA:
		return typhaCPVAConstants(l)
	case GroupNodeCPVA:
		return nodeCPVAConstants(l)
	}
	return nil
}
