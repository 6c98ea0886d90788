package render

import (
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
	// Releases are the Calico releases the group's ClusterRoles serve (GroupAlways: calico-node's,
	// which typha shares as upstream's typha runs as calico-node, and the CNI plugin's;
	// GroupKubeControllers: kube-controllers'): every release that may run in the shoot's step
	// (calicoversion.Deployment.Releases), so that during a move each role grants what both of its
	// releases ask (see Served). Zero for the other groups.
	Releases Served
	// Layout is the layout of the shoot's options as they carry it (the zero Layout for every
	// Gardener shoot, which Constants lists).
	Layout layout.Layout
}

// constantOf is group g as a shoot with options o selects it: by the releases that may run in the
// step of its Calico deployment.
func constantOf(g ConstantGroup, o *values.Options) Constant {
	switch g {
	case GroupAlways, GroupKubeControllers:
		return Constant{Group: g, Releases: servedBy(o.Calico.Releases()), Layout: o.Layout}
	}
	return Constant{Group: g, Layout: o.Layout}
}

// Constants lists every Constant a shoot in the default (zero) layout can select with the releases
// of catalogue cat, in group order: each group with every set of releases a step can run. A steady
// shoot runs one release and a step of a move the move's two (calicoversion.Move), so the sets are
// every release alone and every two releases together.
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
		case GroupAlways, GroupKubeControllers:
			for _, s := range sets {
				out = append(out, Constant{Group: g, Releases: s})
			}
		default:
			out = append(out, Constant{Group: g})
		}
	}
	return out
}

// Objects builds the constant's objects: fresh objects on every call, the same content for every
// shoot that selects it (the builders take no Options).
func (c Constant) Objects() []client.Object {
	l := c.Layout.OrDefault()
	switch c.Group {
	case GroupAlways:
		return append(constantRBAC(l, c.Releases), felixMonitoringService(l))
	case GroupKubeControllers:
		return kubeControllersConstants(l, c.Releases)
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
