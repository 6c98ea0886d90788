package render

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/values"
)

const crdGroup = "crd.projectcalico.org"

func clusterRole(name string, labels map[string]string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta:   typeMeta("rbac.authorization.k8s.io/v1", "ClusterRole"),
		ObjectMeta: meta(name, "", labels),
		Rules:      rules,
	}
}

func clusterRoleBinding(name, role string, labels map[string]string, subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   typeMeta("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
		ObjectMeta: meta(name, "", labels),
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role},
		Subjects:   subjects,
	}
}

func saSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: Namespace}
}

func rule(groups, resources, verbs []string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: groups, Resources: resources, Verbs: verbs}
}

var (
	core    = []string{""}
	calico  = []string{crdGroup}
	read    = []string{"get", "list", "watch"}
	ipamRW  = []string{"get", "list", "watch", "create", "update", "delete"}
	ipamRes = []string{"blockaffinities", "ipamblocks", "ipamhandles"}
)

// nodeRoleBinding binds calico-node's ClusterRole to calico-node and, with typha, to typha.
func nodeRoleBinding(o *values.Options) client.Object {
	nodeSubjects := []rbacv1.Subject{saSubject(NameCalicoNode)}
	if o.Typha {
		// Typha serves calico-node's view of the datastore and needs the same read access.
		nodeSubjects = append(nodeSubjects, saSubject(NameTypha))
	}
	return clusterRoleBinding(NameCalicoNode, NameCalicoNode, nil, nodeSubjects...)
}

// constantRBAC returns the RBAC of calico-node (shared with typha), the CNI plugin and the tier
// getter, which every shoot gets whatever its options: it takes no Options, so its bytes can be
// encoded once (see ConstantGroup). kube-controllers' RBAC is below; the autoscalers' RBAC is next
// to them in autoscaling.go.
func constantRBAC() []client.Object {
	return []client.Object{
		clusterRole(NameCalicoNode, nil,
			// Felix and typha watch the Kubernetes objects policies and endpoints are computed from.
			rule(core, []string{"pods", "nodes", "namespaces", "serviceaccounts", "endpoints", "services", "configmaps"}, read),
			rule([]string{"discovery.k8s.io"}, []string{"endpointslices"}, read),
			rule([]string{"networking.k8s.io"}, []string{"networkpolicies"}, read),
			rule([]string{"policy.networking.k8s.io"}, []string{"adminnetworkpolicies", "baselineadminnetworkpolicies"}, read),
			// calico-node reports its addresses and clears NetworkUnavailable.
			rule(core, []string{"nodes/status"}, []string{"patch", "update"}),
			// Felix records workload endpoint state on pods.
			rule(core, []string{"pods/status"}, []string{"patch"}),
			// Everything Felix, bird and typha read from Calico's own resources.
			rule(calico, []string{
				"bgpconfigurations", "bgpfilters", "bgppeers", "blockaffinities", "caliconodestatuses", "clusterinformations",
				"felixconfigurations", "globalnetworkpolicies", "globalnetworksets", "hostendpoints", "ipamblocks",
				"ipamconfigs", "ipamhandles", "ippools", "ipreservations", "kubecontrollersconfigurations",
				"networkpolicies", "networksets", "stagedglobalnetworkpolicies", "stagedkubernetesnetworkpolicies",
				"stagednetworkpolicies", "tiers",
			}, read),
			// calico-node creates the default pool, FelixConfiguration and ClusterInformation at start-up.
			rule(calico, []string{"ippools", "felixconfigurations", "clusterinformations"}, []string{"create", "update"}),
			// It writes its status for CalicoNodeStatus requests.
			rule(calico, []string{"caliconodestatuses"}, []string{"update"}),
			// calico-ipam on the node (tunnel addresses, block affinities).
			rule(calico, ipamRes, ipamRW),
			rule(calico, []string{"ipamconfigs"}, []string{"get", "create"}),
			// The eBPF dataplane reads its own DaemonSet.
			rule([]string{"apps"}, []string{"daemonsets"}, []string{"get"}),
			// calico-node mints the CNI plugin's short-lived tokens.
			rbacv1.PolicyRule{APIGroups: core, Resources: []string{"serviceaccounts/token"}, Verbs: []string{"create"}, ResourceNames: []string{NameCNIPlugin}},
		),
		serviceAccount(NameCalicoNode),
		clusterRole(NameCNIPlugin, nil,
			// The CNI plugin looks up the pod, its namespace and the node when wiring a pod.
			rule(core, []string{"pods", "nodes", "namespaces"}, []string{"get"}),
			rule(core, []string{"pods/status"}, []string{"patch"}),
			// calico-ipam assigns and releases addresses.
			rule(calico, append([]string{"clusterinformations", "ippools", "ipreservations", "ipamconfigs"}, ipamRes...), ipamRW),
		),
		clusterRoleBinding(NameCNIPlugin, NameCNIPlugin, nil, saSubject(NameCNIPlugin)),
		serviceAccount(NameCNIPlugin),
		clusterRole(NameTierGetter, nil,
			// kube-controller-manager's garbage collector resolves tiers of the Calico API group.
			rule([]string{"projectcalico.org"}, []string{"tiers"}, []string{"get"}),
		),
		clusterRoleBinding(NameTierGetter, NameTierGetter, nil, rbacv1.Subject{
			APIGroup: "rbac.authorization.k8s.io", Kind: rbacv1.UserKind, Name: "system:kube-controller-manager",
		}),
	}
}

// kubeControllersRBAC returns kube-controllers' RBAC, which does not depend on the options
// either; they only say whether it is included (see kubeControllersConstants).
func kubeControllersRBAC() []client.Object {
	return []client.Object{
		clusterRole(NameKubeControllers, nil,
			// The node controller cleans up after deleted nodes; the loadbalancer controller assigns service IPs.
			rule(core, []string{"nodes", "pods", "services", "endpoints"}, read),
			rule(core, []string{"services/status"}, []string{"update", "patch"}),
			rule(calico, append([]string{"hostendpoints"}, ipamRes...), ipamRW),
			rule(calico, []string{"ippools", "ipreservations"}, read),
			rule(calico, []string{"clusterinformations", "kubecontrollersconfigurations"}, []string{"get", "list", "watch", "create", "update"}),
			rule(calico, []string{"tiers"}, []string{"get"}),
		),
		clusterRoleBinding(NameKubeControllers, NameKubeControllers, nil, saSubject(NameKubeControllers)),
	}
}
