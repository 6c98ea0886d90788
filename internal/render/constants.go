package render

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/manifest"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// group is a set of shoot objects whose bytes do not depend on Options; the options only say
// whether a shoot gets the set (selectGroups).
type group int

const (
	// groupAlways is what every shoot gets: the RBAC of calico-node, the CNI plugin and the
	// tier getter, and felix's metrics Service.
	groupAlways group = iota
	// groupKubeControllers is kube-controllers' RBAC, PodDisruptionBudget and ServiceAccount.
	groupKubeControllers
	// groupTypha is typha's Service, PodDisruptionBudget, ServiceAccount, metrics Service and
	// NetworkPolicy.
	groupTypha
	// groupTyphaCPA, groupTyphaCPVA and groupNodeCPVA are the autoscalers' RBAC and ConfigMaps.
	groupTyphaCPA
	groupTyphaCPVA
	groupNodeCPVA
	numGroups
)

// objects builds the group's objects. The builders take no Options, so the bytes are the same
// for every shoot.
func (g group) objects() []client.Object {
	switch g {
	case groupAlways:
		return append(constantRBAC(), felixMonitoringService())
	case groupKubeControllers:
		return kubeControllersConstants()
	case groupTypha:
		return typhaConstants()
	case groupTyphaCPA:
		return typhaCPAConstants()
	case groupTyphaCPVA:
		return typhaCPVAConstants()
	case groupNodeCPVA:
		return nodeCPVAConstants()
	}
	return nil
}

// selectGroups returns the groups a shoot with options o gets. It is the only place the options
// decide about constant objects.
func selectGroups(o *values.Options) []group {
	gs := make([]group, 0, numGroups)
	gs = append(gs, groupAlways)
	if o.KubeControllers {
		gs = append(gs, groupKubeControllers)
	}
	if o.Typha {
		gs = append(gs, groupTypha)
	}
	if o.AutoScaling.TyphaCPA {
		gs = append(gs, groupTyphaCPA)
	}
	if o.AutoScaling.TyphaCPVA {
		gs = append(gs, groupTyphaCPVA)
	}
	if o.AutoScaling.NodeCPVA {
		gs = append(gs, groupNodeCPVA)
	}
	return gs
}

// Constants holds the shoot objects whose bytes do not depend on Options (RBAC, ServiceAccounts,
// PodDisruptionBudgets, Services, the autoscalers' ConfigMaps), encoded once from the same
// builders Shoot uses. The options only select which of them a shoot gets; nothing is keyed on
// option values. Build one per process (like the CRDs' manifest.Static) and pass it to
// ShootWith; it is read-only afterwards and safe for concurrent use.
type Constants struct {
	groups [numGroups]*manifest.Static
}

// NewConstants builds and encodes the option-independent objects.
func NewConstants() (*Constants, error) {
	c := &Constants{}
	for g := range numGroups {
		s, err := manifest.NewStatic(g.objects())
		if err != nil {
			return nil, fmt.Errorf("encoding constant shoot objects: %w", err)
		}
		c.groups[g] = s
	}
	return c, nil
}

// ShootWith renders what Shoot renders, but returns the constant objects o selects as c's
// pre-encoded groups instead of as objects: pass both to manifest.Build (the objects, then the
// groups as its pre arguments) for the same documents as Build of Shoot's objects, without
// encoding the constant ones again.
func ShootWith(o *values.Options, c *Constants) ([]client.Object, []*manifest.Static, error) {
	if c == nil {
		return nil, nil, fmt.Errorf("rendering shoot objects: no constants (see NewConstants)")
	}
	objs, err := shoot(o)
	if err != nil {
		return nil, nil, err
	}
	sel := selectGroups(o)
	groups := make([]*manifest.Static, len(sel))
	for i, g := range sel {
		groups[i] = c.groups[g]
	}
	return objs, groups, nil
}
