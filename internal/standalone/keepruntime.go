package standalone

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/install"
)

// KeptRuntime are the settings of calico-node's start-up an adoption kept from what ran, beside the
// NetworkConfig's (State.Kept): later applies keep them while the file stays silent.
type KeptRuntime struct {
	// NoDefaultPools: calico-node ran with NO_DEFAULT_POOLS=true (the tigera operator's does): it
	// creates no pool at start-up, calico-pilot's pool sync does.
	NoDefaultPools bool `json:"noDefaultPools,omitempty"`
	// PoolCIDRv4 is the IPv4 pool network calico-node ran with (CALICO_IPV4POOL_CIDR) when it
	// differed from the cluster's pod network fact (kubeadm's podSubnet) and the file states none.
	PoolCIDRv4 string `json:"poolCIDRv4,omitempty"`
}

// keepRuntime keeps, where the file is silent, how calico-node created pools at start-up: read from
// what runs when apply takes an install over (no state, or an adoption recorded without them), from
// the state's record afterwards (a calico-pilot install's own calico-node is not read back, so that a
// hand edit is restored, not kept). It sets the request's settings and facts and says what it kept.
func keepRuntime(req *Request, in *install.Install, st *State, found bool) {
	var k KeptRuntime
	switch {
	case found && st.KeptRuntime != nil:
		k = *st.KeptRuntime
	case !found || st.Adopted:
		k = readRuntime(in, req.Facts)
		if in.Found() && k != (KeptRuntime{}) {
			st.KeptRuntime = &k
		}
	default:
		return
	}
	req.noDefaultPools = k.NoDefaultPools
	if k.NoDefaultPools {
		fmt.Fprintf(req.Out, "kept from the cluster: calico-node runs with NO_DEFAULT_POOLS=true (it creates no IP pool at start-up; calico-pilot creates the pools the file asks for)\n")
	}
	if k.PoolCIDRv4 == "" || req.Facts.PodCIDRFromFile {
		return
	}
	p, err := netip.ParsePrefix(k.PoolCIDRv4)
	if err != nil {
		return
	}
	for i, c := range req.Facts.PodCIDRs {
		if c.Addr().Is4() && c != p {
			fmt.Fprintf(req.Out, "kept from the cluster: the IPv4 pod network %s (calico-node's CALICO_IPV4POOL_CIDR), not %s: state cluster.podCIDR in the file to change it\n", p, c)
			req.Facts.PodCIDRs = slices.Clone(req.Facts.PodCIDRs)
			req.Facts.PodCIDRs[i] = p
		}
	}
}

// readRuntime reads calico-node's start-up pool settings from what runs.
func readRuntime(in *install.Install, facts Facts) KeptRuntime {
	var k KeptRuntime
	w := in.Workload(calicoversion.Node)
	if w == nil {
		return k
	}
	k.NoDefaultPools = w.Env["NO_DEFAULT_POOLS"] == "true"
	if v, ok := w.Env["CALICO_IPV4POOL_CIDR"]; ok && !k.NoDefaultPools {
		p, err := netip.ParsePrefix(v)
		if err != nil {
			return k
		}
		for _, c := range facts.PodCIDRs {
			if c.Addr().Is4() && c != p.Masked() {
				k.PoolCIDRv4 = p.Masked().String()
			}
		}
	}
	return k
}
