package render

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// lines is the set of Calico lines one ClusterRole serves (calico-node's serves calico-node's and
// typha's). A role grants the union of what each line needs, so during a move both the old and the
// new component keep working.
type lines struct{ v3_31, v3_32 bool }

// servedLines is the set of a and b (the zero Version counts as the default line).
func servedLines(a, b calicoversion.Version) lines {
	var l lines
	for _, v := range []calicoversion.Version{a.OrDefaultLine(), b.OrDefaultLine()} {
		switch v.Minor {
		case calicoversion.V3_31.Minor:
			l.v3_31 = true
		case calicoversion.V3_32.Minor:
			l.v3_32 = true
		}
	}
	return l
}

// The differences of Calico v3.32.1's ClusterRoles from v3.31.6's (delta §3), as calico-pilot grants
// them; docs/calico-rbac.md ("Calico v3.32") lists what it does not grant, with the reason, and
// TestRolesMatchCalicoFacts holds the two together. Not granted for any role: the projectcalico.org
// group that v3.32 adds beside every crd.projectcalico.org rule, and the v3 resource name
// ipamconfigurations. Calico uses that group only in native-v3 mode, which requires the
// crd.projectcalico.org CRDs to be absent (delta §2.1, discovery.go UsingV3CRDs); calico-pilot always
// installs them and never deletes a CRD.

// policyAPIResources are the policy.networking.k8s.io resources calico-node and typha watch: v3.31
// enforces AdminNetworkPolicy and BaselineAdminNetworkPolicy, v3.32 ClusterNetworkPolicy instead.
func (l lines) policyAPIResources() []string {
	var res []string
	if l.v3_31 {
		res = append(res, "adminnetworkpolicies", "baselineadminnetworkpolicies")
	}
	if l.v3_32 {
		res = append(res, "clusternetworkpolicies")
	}
	return res
}

// nodeRules are calico-node's (and typha's) rules beyond v3.31's.
func (l lines) nodeRules() []rbacv1.PolicyRule {
	if !l.v3_32 {
		return nil
	}
	return []rbacv1.PolicyRule{
		// v3.32's LiveMigration resource is backed by KubeVirt's VirtualMachineInstanceMigrations
		// (delta §2.1); without KubeVirt the list answers 404, which Calico tolerates.
		rule([]string{"kubevirt.io"}, []string{"virtualmachineinstancemigrations"}, []string{"get", "list", "watch"}),
		// v3.32's manifest adds bgpconfigurations to calico-node's create/update rule; unlike v3.31
		// (docs/calico-rbac.md) no fact shows the write is confined to the v2.6 data migration.
		rule(calico, []string{"bgpconfigurations"}, []string{"create", "update"}),
	}
}

// cniRules are the CNI plugin's rules beyond v3.31's.
func (l lines) cniRules() []rbacv1.PolicyRule {
	if !l.v3_32 {
		return nil
	}
	return []rbacv1.PolicyRule{
		// calico-ipam looks up the KubeVirt VM of a pod owned by a VMI (fixed in v3.32.1, #12996).
		rule([]string{"kubevirt.io"}, []string{"virtualmachineinstances", "virtualmachines"}, []string{"get"}),
	}
}

// kubeControllersRules are kube-controllers' rules beyond v3.31's: v3.32 runs the policy-name
// migrator and the DatastoreMigration controller outside ENABLED_CONTROLLERS (delta §4), and writes
// its status through the new subresource.
func (l lines) kubeControllersRules() []rbacv1.PolicyRule {
	if !l.v3_32 {
		return nil
	}
	return []rbacv1.PolicyRule{
		// kube-controllers v3.32 starts its controllers only after writing its status through the
		// /status subresource (delta §0 row 4).
		rule(calico, []string{"kubecontrollersconfigurations/status"}, []string{"get", "update"}),
		// The policy-name migrator renames default-tier policies stored as default.<name> (it creates
		// the new object, then deletes the old one). calico-pilot renders no Calico policies, so it
		// never fights the migrator (docs/calico-lines.md).
		rule(calico, []string{"networkpolicies", "stagednetworkpolicies", "globalnetworkpolicies", "stagedglobalnetworkpolicies"},
			[]string{"get", "list", "watch", "create", "update", "delete"}),
		// The migrator waits for the calico-node DaemonSet in its own namespace to be rolled out.
		rule([]string{"apps"}, []string{"daemonsets", "deployments"}, []string{"get", "list", "watch"}),
		// The DatastoreMigration controller always watches CRDs (for its own to appear); the delete
		// it needs only at the end of a migration is not granted.
		rule([]string{"apiextensions.k8s.io"}, []string{"customresourcedefinitions"}, []string{"get", "list", "watch"}),
		// The same controller's APIService handling; its delete happens only during a migration.
		rule([]string{"apiregistration.k8s.io"}, []string{"apiservices"}, []string{"get", "list", "watch", "create"}),
		// KubeVirt IPAM garbage collection; without KubeVirt the lists answer 404, which Calico tolerates.
		rule([]string{"kubevirt.io"}, []string{"virtualmachines", "virtualmachineinstances"}, []string{"get", "list", "watch"}),
	}
}
