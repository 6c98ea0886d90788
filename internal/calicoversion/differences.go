package calicoversion

// Difference names a change a release brings in the objects calico-pilot renders, relative to
// v3.31.6. The catalogue says which releases have it ("since"/"until"); the render component that owns
// the object implements it, asking Release.Has. A difference in the catalogue that no code implements
// is refused when the catalogue is built.
type Difference string

// The differences the code implements (docs/calico-lines.md, "Differences").
const (
	// AdminNetworkPolicy: calico-node and Typha watch (Baseline)AdminNetworkPolicy.
	AdminNetworkPolicy Difference = "admin-network-policy"
	// ClusterNetworkPolicy: calico-node and Typha watch ClusterNetworkPolicy.
	ClusterNetworkPolicy Difference = "cluster-network-policy"
	// KubeVirt: calico-node, the CNI plugin and kube-controllers read KubeVirt's objects.
	KubeVirt Difference = "kubevirt"
	// BGPConfigurationsWrite: calico-node creates and updates BGPConfiguration.
	BGPConfigurationsWrite Difference = "bgpconfigurations-write"
	// KubeControllersStatusSubresource: kube-controllers writes its status through /status.
	KubeControllersStatusSubresource Difference = "kube-controllers-status-subresource"
	// PolicyNameMigrator: kube-controllers' policy-name migrator (policies, DaemonSet reads).
	PolicyNameMigrator Difference = "policy-name-migrator"
	// DatastoreMigrationController: kube-controllers watches CRDs and APIServices.
	DatastoreMigrationController Difference = "datastore-migration-controller"
	// FelixNFTablesAuto: Felix defaults to nftables Auto; calico-pilot pins the mode it decides.
	FelixNFTablesAuto Difference = "felix-nftables-auto"
	// KubeAdminTiers: Calico creates the kube-admin and kube-baseline tiers.
	KubeAdminTiers Difference = "kube-admin-tiers"
	// CNIVersion1: the CNI network configuration says cniVersion 1.0.0.
	CNIVersion1 Difference = "cni-version-1.0.0"
	// FelixSecurityfsMount: calico-node mounts /sys/kernel/security read-only.
	FelixSecurityfsMount Difference = "felix-securityfs-mount"
)

// implemented lists every Difference the code implements.
var implemented = []Difference{
	AdminNetworkPolicy, ClusterNetworkPolicy, KubeVirt, BGPConfigurationsWrite, KubeControllersStatusSubresource,
	PolicyNameMigrator, DatastoreMigrationController, FelixNFTablesAuto, KubeAdminTiers, CNIVersion1, FelixSecurityfsMount,
}

func differenceNames() []string {
	out := make([]string, len(implemented))
	for i, d := range implemented {
		out[i] = string(d)
	}
	return out
}
