package calicoversion

import "fmt"

// Deployment says which release each Calico component runs. All are the same except while a shoot
// moves between releases (Move).
type Deployment struct {
	// Node is calico-node's release (with its CNI init containers and the ensurer sidecar).
	Node Version
	// Typha is calico-typha's release.
	Typha Version
	// KubeControllers is calico-kube-controllers' release.
	KubeControllers Version
	// CRDs is the release whose CRD schemas are applied: never older than any release the shoot has
	// run, so that a field a newer release stored is not pruned by an older schema.
	CRDs Version
}

// Steady is every component at v.
func Steady(v Version) Deployment { return Deployment{Node: v, Typha: v, KubeControllers: v, CRDs: v} }

// IsZero is true when no component version is set.
func (d Deployment) IsZero() bool { return d.Node.IsZero() }

// OrDefault is d, or Steady(Default()) when d is zero: what a caller that does not choose gets.
func (d Deployment) OrDefault() Deployment {
	if d.IsZero() {
		return Steady(Default())
	}
	return d
}

// Components returns the distinct releases the components run, oldest first: RBAC is the union of
// what each of them needs.
func (d Deployment) Components() []Version {
	var out []Version
	for _, v := range []Version{d.Node, d.Typha, d.KubeControllers} {
		i := 0
		for i < len(out) && out[i].Compare(v) < 0 {
			i++
		}
		if i < len(out) && out[i].Compare(v) == 0 {
			continue
		}
		out = append(out[:i], append([]Version{v}, out[i:]...)...)
	}
	return out
}

// IsSteady is true when every component runs the same release.
func (d Deployment) IsSteady() bool {
	return d.Node == d.Typha && d.Typha == d.KubeControllers
}

// String describes d ("v3.32" or "calico-node v3.32, typha v3.31, kube-controllers v3.31, CRDs v3.32").
func (d Deployment) String() string {
	if d.IsSteady() && d.CRDs == d.Node {
		return d.Node.Minor
	}
	return fmt.Sprintf("calico-node %s, typha %s, kube-controllers %s, CRDs %s", d.Node, d.Typha, d.KubeControllers, d.CRDs)
}

// Phase is a step of a move between releases.
type Phase string

// The phases of a move.
const (
	// PhaseFirst is the first step: on the way up calico-node moves first (a newer Typha refuses
	// older clients, an older Typha serves newer ones), on the way down Typha and kube-controllers
	// move first. The CRDs of the newer release are applied in this step.
	PhaseFirst Phase = "First"
	// PhaseComplete is every component at the target release (the CRDs stay at the newer schema).
	PhaseComplete Phase = "Complete"
)

// Move returns the deployment for a step of moving from one release to another. crds is the newest
// release whose CRDs the shoot ever had (zero: from). The CRDs never go back: they are the newest of
// crds, from and to in every step.
//
// Calico's order (calico-v3.32-delta.md §0 row 3, §5 "order", §6 "order"): up, CRDs and RBAC, then
// calico-node (and wait for its rollout), then Typha, then kube-controllers; down, Typha before
// calico-node. kube-controllers talks to the API server only, so it moves with Typha.
func Move(from, to, crds Version, phase Phase) Deployment {
	schema := Newer(Newer(from, to), crds)
	if crds.IsZero() {
		schema = Newer(from, to)
	}
	d := Steady(to)
	if phase == PhaseFirst && from != to {
		if to.Compare(from) > 0 {
			d.Typha, d.KubeControllers = from, from
		} else {
			d.Node = from
		}
	}
	d.CRDs = schema
	return d
}
