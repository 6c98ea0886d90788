package render

import (
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// maxServed is the most releases one ClusterRole serves. A step of a move runs at most the move's
// two releases (calicoversion.Move.Deployment); a Deployment written by hand names at most one per
// component and the release a step replaces, which 8 leaves room for as components are added.
const maxServed = 8

// Served is the set of Calico releases a ClusterRole serves, oldest first: a steady shoot's release;
// in every step of a move, both of the move's releases (calicoversion.Deployment.Releases). The role
// grants the union of what each release asks:
//   - a step rolls its components pod by pod, so their pods of both releases run side by side until
//     the roll ends (with Typha off every calico-node talks to the API server itself, and the CNI
//     plugin of either release runs on a node, installed by its calico-node pod);
//   - a step's ClusterRoles and workloads are applied in one pass, in no order: serving both
//     releases in every step, a pod the next step starts never waits for its role to widen. The
//     grants narrow only when the move completes, after every pod runs the release moved to.
//
// What a release needs beyond v3.31.6's rules is a difference of the catalogue
// (internal/calicoversion); this file implements the RBAC ones. Served is comparable (a Constant is a
// map key).
type Served struct {
	releases [maxServed]calicoversion.Release
}

// servedBy is the set of every release of rs, each once.
func servedBy(rs ...[]calicoversion.Release) Served {
	var all []calicoversion.Release
	for _, l := range rs {
		for _, r := range l {
			if !r.IsZero() && !slices.Contains(all, r) {
				all = append(all, r)
			}
		}
	}
	if len(all) > maxServed {
		// A Deployment names fewer releases (maxServed): only a change of it would get here.
		panic(fmt.Sprintf("a ClusterRole serving %d Calico releases %v: at most %d", len(all), all, maxServed))
	}
	slices.SortFunc(all, calicoversion.Release.Compare)
	var s Served
	copy(s.releases[:], all)
	return s
}

// Releases are the releases of the set, oldest first.
func (s Served) Releases() []calicoversion.Release {
	var out []calicoversion.Release
	for _, r := range s.releases {
		if !r.IsZero() {
			out = append(out, r)
		}
	}
	return out
}

// String names the releases ("v3.31.7+v3.32.1").
func (s Served) String() string {
	var names []string
	for _, r := range s.Releases() {
		names = append(names, r.Name())
	}
	return strings.Join(names, "+")
}

// has is true when a release of the set brings difference d.
func (s Served) has(d calicoversion.Difference) bool {
	for _, r := range s.releases {
		if r.Has(d) {
			return true
		}
	}
	return false
}

// Not granted for any role (docs/calico-rbac.md): the projectcalico.org group that Calico v3.32 adds
// beside every crd.projectcalico.org rule, and the v3 resource name ipamconfigurations. Calico uses that
// group only in native-v3 mode, which requires the crd.projectcalico.org CRDs to be absent;
// calico-pilot always installs them and never deletes a CRD.

// policyAPIResources are the policy.networking.k8s.io resources calico-node and typha watch.
func (s Served) policyAPIResources() []string {
	var res []string
	if s.has(calicoversion.AdminNetworkPolicy) {
		res = append(res, "adminnetworkpolicies", "baselineadminnetworkpolicies")
	}
	if s.has(calicoversion.ClusterNetworkPolicy) {
		res = append(res, "clusternetworkpolicies")
	}
	return res
}

// nodeRules are calico-node's (and typha's) rules beyond v3.31.6's.
func (s Served) nodeRules() []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	if s.has(calicoversion.KubeVirt) {
		// The LiveMigration resource is backed by KubeVirt's VirtualMachineInstanceMigrations; without
		// KubeVirt the list answers 404, which Calico tolerates.
		out = append(out, rule([]string{"kubevirt.io"}, []string{"virtualmachineinstancemigrations"}, []string{"get", "list", "watch"}))
	}
	if s.has(calicoversion.BGPConfigurationsWrite) {
		// Calico's manifest adds bgpconfigurations to calico-node's create/update rule; unlike v3.31
		// (docs/calico-rbac.md) no fact shows the write is confined to the v2.6 data migration.
		out = append(out, rule(calico, []string{"bgpconfigurations"}, []string{"create", "update"}))
	}
	return out
}

// cniRules are the CNI plugin's rules beyond v3.31.6's.
func (s Served) cniRules() []rbacv1.PolicyRule {
	if !s.has(calicoversion.KubeVirt) {
		return nil
	}
	return []rbacv1.PolicyRule{
		// calico-ipam looks up the KubeVirt VM of a pod owned by a VMI.
		rule([]string{"kubevirt.io"}, []string{"virtualmachineinstances", "virtualmachines"}, []string{"get"}),
	}
}

// kubeControllersRules are kube-controllers' rules beyond v3.31.6's: the controllers that run outside
// ENABLED_CONTROLLERS and the status subresource.
func (s Served) kubeControllersRules() []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	if s.has(calicoversion.KubeControllersStatusSubresource) {
		// kube-controllers starts its controllers only after writing its status through /status.
		out = append(out, rule(calico, []string{"kubecontrollersconfigurations/status"}, []string{"get", "update"}))
	}
	if s.has(calicoversion.PolicyNameMigrator) {
		out = append(out,
			// The policy-name migrator renames default-tier policies stored as default.<name> (it creates
			// the new object, then deletes the old one). calico-pilot renders no Calico policies, so it
			// never fights the migrator (docs/calico-lines.md).
			rule(calico, []string{"networkpolicies", "stagednetworkpolicies", "globalnetworkpolicies", "stagedglobalnetworkpolicies"},
				[]string{"get", "list", "watch", "create", "update", "delete"}),
			// The migrator waits for the calico-node DaemonSet in its own namespace to be rolled out.
			rule([]string{"apps"}, []string{"daemonsets", "deployments"}, []string{"get", "list", "watch"}),
		)
	}
	if s.has(calicoversion.DatastoreMigrationController) {
		out = append(out,
			// The DatastoreMigration controller always watches CRDs (for its own to appear); the delete
			// it needs only at the end of a migration is not granted.
			rule([]string{"apiextensions.k8s.io"}, []string{"customresourcedefinitions"}, []string{"get", "list", "watch"}),
			// The same controller's APIService handling; its delete happens only during a migration.
			rule([]string{"apiregistration.k8s.io"}, []string{"apiservices"}, []string{"get", "list", "watch", "create"}),
		)
	}
	if s.has(calicoversion.KubeVirt) {
		// KubeVirt IPAM garbage collection; without KubeVirt the lists answer 404, which Calico tolerates.
		out = append(out, rule([]string{"kubevirt.io"}, []string{"virtualmachines", "virtualmachineinstances"}, []string{"get", "list", "watch"}))
	}
	return out
}
