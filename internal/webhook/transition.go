package webhook

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// IPAM plugins as they appear in the resolved networking.
const (
	ipamCalico    = "calico-ipam"
	ipamHostLocal = "host-local"
)

// Networking is the resolved Calico networking of one version of a Shoot, reduced to what the transition
// rules compare. It holds effective values (what would be deployed), not what the user wrote: changing
// vxlan.enabled can change the IPAM plugin without touching ipam.type.
type Networking struct {
	// IPAM is the CNI IPAM plugin, calico-ipam or host-local.
	IPAM string
	// Backend is Calico's networking backend: bird, vxlan or none.
	Backend string
	// Overlay is true when pod traffic between nodes is encapsulated (IPIP or VXLAN).
	Overlay bool
	// Typha is true when calico-typha is deployed.
	Typha bool
	// EBPF is true when Felix runs the eBPF dataplane.
	EBPF bool
}

// Cluster is what the transition rules need to know about the cluster behind the Shoot.
type Cluster struct {
	// RunsNodes is true when the shoot may have nodes: it has been acted on by gardenlet
	// (status.lastOperation is set) and hibernation is not wanted (values.HibernationWanted: a shoot
	// waking up counts as running). A shoot that was never created or is (going to be) hibernated has no
	// Calico data plane that a change could disrupt.
	RunsNodes bool
	// MaxNodes is the sum of the worker pools' maximum sizes of the new Shoot; 0 when unknown.
	MaxNodes int64
}

// Transition compares the resolved networking before and after an update. It returns the changes that
// would break a cluster with running nodes, as errors rooted at configPath (where the NetworkConfig is,
// spec.networking.providerConfig), and one warning for each disruptive but legal change, saying what will
// happen. Nothing is denied or warned about for a cluster without running nodes.
//
// Denied while nodes run:
//   - an IPAM plugin change (calico-ipam <-> host-local): running pods keep addresses the new plugin does
//     not know, so it hands out addresses that are in use.
//
// Warned about while nodes run:
//   - overlay on -> off and off -> on (calico-node restarts; off needs infrastructure routes);
//   - a backend change with the overlay unchanged;
//   - eBPF dataplane on or off;
//   - typha off on a shoot that can grow to LargeClusterNodes or more nodes.
func Transition(old, updated Networking, cluster Cluster, configPath *field.Path) (field.ErrorList, []string) {
	if !cluster.RunsNodes {
		return nil, nil
	}
	var errs field.ErrorList
	var warnings []string

	if old.IPAM != updated.IPAM {
		errs = append(errs, field.Forbidden(configPath.Child("ipam", "type"), ipamChangeReason(old.IPAM, updated.IPAM)))
	}

	switch {
	case old.Overlay && !updated.Overlay:
		warnings = append(warnings, fmt.Sprintf("%s: disabling the overlay restarts calico-node on every node without IPIP/VXLAN tunnels "+
			"(backend %s -> %s); pods on different nodes can only reach each other once the infrastructure routes the pod network "+
			"(with the SeamlessOverlaySwitch feature gate the controller waits for node routes first)",
			configPath.Child("overlay", "enabled"), old.Backend, updated.Backend))
	case !old.Overlay && updated.Overlay:
		warnings = append(warnings, fmt.Sprintf("%s: enabling the overlay restarts calico-node on every node with IPIP/VXLAN tunnels "+
			"(backend %s -> %s); traffic between pods on different nodes may be interrupted while calico-node rolls out",
			configPath.Child("overlay", "enabled"), old.Backend, updated.Backend))
	case old.Backend != updated.Backend:
		warnings = append(warnings, fmt.Sprintf("%s: the Calico backend changes from %s to %s; calico-node restarts on every node and "+
			"reprograms pod routes, so traffic between pods on different nodes may be interrupted while it rolls out",
			configPath.Child("backend"), old.Backend, updated.Backend))
	}

	if old.EBPF != updated.EBPF {
		to := "eBPF"
		if !updated.EBPF {
			to = "iptables/nftables"
		}
		warnings = append(warnings, fmt.Sprintf("%s: switching the data plane to %s restarts calico-node on every node; "+
			"existing connections through Services may be reset while Felix reprograms each node",
			configPath.Child("ebpfDataplane", "enabled"), to))
	}

	if old.Typha && !updated.Typha && cluster.MaxNodes >= LargeClusterNodes {
		warnings = append(warnings, fmt.Sprintf("%s: disabling typha on a shoot that can grow to %d nodes makes every calico-node "+
			"watch the kube-apiserver directly, which raises its load with every node; Calico recommends typha above %d nodes",
			configPath.Child("typha", "enabled"), cluster.MaxNodes, LargeClusterNodes))
	}
	return errs, warnings
}

func ipamChangeReason(from, to string) string {
	var why string
	switch {
	case from == ipamCalico && to == ipamHostLocal:
		why = "running pods hold addresses from Calico IPAM blocks anywhere in the pod network, while host-local hands out " +
			"each node's podCIDR range without knowing them, so new pods would get addresses that are in use"
	case from == ipamHostLocal && to == ipamCalico:
		why = "running pods hold addresses from each node's podCIDR range, while calico-ipam allocates blocks across the whole " +
			"pod network without knowing them, so new pods would get addresses that are in use"
	default:
		why = "running pods hold addresses the new plugin does not know, so new pods would get addresses that are in use"
	}
	return fmt.Sprintf("the IPAM plugin cannot change from %s to %s while the shoot has nodes: %s; keep %s, or hibernate the "+
		"shoot before changing it", from, to, why, from)
}
