package render

import (
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ConstantGroup is a set of shoot objects whose content does not depend on Options; the options
// only say whether a shoot gets the set, and the component that owns the group says so from the
// same conditions as for its other objects (see part and ShootParts). Callers that serialize many shoots may
// encode each group once and reuse the bytes (internal/pipeline does).
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

// ConstantGroups lists every group, in order: ConstantGroups()[g] == g.
func ConstantGroups() []ConstantGroup {
	gs := make([]ConstantGroup, numConstantGroups)
	for g := range numConstantGroups {
		gs[g] = g
	}
	return gs
}

// Objects builds the group's objects: fresh objects on every call, the same content for every
// shoot (the builders take no Options).
func (g ConstantGroup) Objects() []client.Object {
	switch g {
	case GroupAlways:
		return append(constantRBAC(), felixMonitoringService())
	case GroupKubeControllers:
		return kubeControllersConstants()
	case GroupTypha:
		return typhaConstants()
	case GroupTyphaCPA:
		return typhaCPAConstants()
	case GroupTyphaCPVA:
		return typhaCPVAConstants()
	case GroupNodeCPVA:
		return nodeCPVAConstants()
	}
	return nil
}
