package webhook

import (
	"encoding/json"
	"fmt"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
)

// resolveNetworking derives the effective IPAM plugin, backend, overlay, typha and dataplane of a valid
// NetworkConfig (nil = no providerConfig) on a shoot with the given IP families. It follows the
// derivation of the reference extension (reference §1.1 and §1.2) with this project's rule that an
// explicit value wins over a derived default:
//
//   - overlay: overlay.enabled when set; otherwise off on shoots with IPv6 (their pools never
//     encapsulate), and on IPv4-only shoots on unless the backend is none or the IPv4 pool mode
//     (ipv4.mode, else the deprecated ipip) is Never or Off;
//   - backend: the explicit backend; otherwise vxlan for overlay on with vxlan.enabled, none for overlay
//     off without createPodRoutes or on IPv6 shoots without an overlay block, bird else;
//   - IPAM: the explicit ipam.type; otherwise calico-ipam when vxlan.enabled on an IPv4-only shoot,
//     host-local else;
//   - typha: on unless typha.enabled is false; eBPF: ebpfDataplane.enabled.
func resolveNetworking(cfg *calicov1alpha1.NetworkConfig, families []gardencorev1beta1.IPFamily) Networking {
	if cfg == nil {
		cfg = &calicov1alpha1.NetworkConfig{}
	}
	ipv4Only := true
	for _, f := range families {
		if f != gardencorev1beta1.IPFamilyIPv4 {
			ipv4Only = false
		}
	}
	vxlan := cfg.VXLAN != nil && cfg.VXLAN.Enabled

	var backend calicov1alpha1.Backend
	switch {
	case cfg.Backend != nil:
		backend = *cfg.Backend
	case cfg.Overlay != nil && cfg.Overlay.Enabled && vxlan:
		backend = calicov1alpha1.BackendVXLAN
	case cfg.Overlay != nil && !cfg.Overlay.Enabled && (cfg.Overlay.CreatePodRoutes == nil || !*cfg.Overlay.CreatePodRoutes):
		backend = calicov1alpha1.BackendNone
	case cfg.Overlay == nil && !ipv4Only:
		backend = calicov1alpha1.BackendNone
	default:
		backend = calicov1alpha1.BackendBird
	}

	var overlay bool
	switch {
	case cfg.Overlay != nil:
		overlay = cfg.Overlay.Enabled
	case !ipv4Only:
		overlay = false
	case backend == calicov1alpha1.BackendNone:
		overlay = false
	default:
		mode := calicov1alpha1.PoolModeAlways
		if cfg.IPv4 != nil && cfg.IPv4.Mode != nil {
			mode = *cfg.IPv4.Mode
		} else if cfg.IPIP != nil {
			mode = *cfg.IPIP
		}
		overlay = mode == calicov1alpha1.PoolModeAlways || mode == calicov1alpha1.PoolModeCrossSubnet
	}

	ipam := ipamHostLocal
	switch {
	case cfg.IPAM != nil && cfg.IPAM.Type != "":
		ipam = string(cfg.IPAM.Type)
	case vxlan && ipv4Only:
		ipam = ipamCalico
	}

	return Networking{
		IPAM:    ipam,
		Backend: string(backend),
		Overlay: overlay,
		Typha:   cfg.Typha == nil || cfg.Typha.Enabled,
		EBPF:    cfg.EbpfDataplane != nil && cfg.EbpfDataplane.Enabled,
	}
}

// runsNodes tells whether a shoot may have nodes (see Cluster.RunsNodes).
func runsNodes(shoot *gardencorev1beta1.Shoot) bool {
	return len(shoot.Spec.Provider.Workers) > 0 && shoot.Status.LastOperation != nil && !shoot.Status.IsHibernated
}

// workerSizes is the part of a Shoot's worker pools that our Shoot subset does not model: their
// maximum sizes, read leniently from the raw object for the large-cluster rule.
type workerSizes struct {
	Spec struct {
		Provider struct {
			Workers []struct {
				Maximum int64 `json:"maximum"`
			} `json:"workers"`
		} `json:"provider"`
	} `json:"spec"`
}

// maxNodes is the sum of the worker pools' maximum sizes in a raw Shoot; 0 when they are not given.
func maxNodes(raw []byte) (int64, error) {
	var sizes workerSizes
	if err := json.Unmarshal(raw, &sizes); err != nil {
		return 0, fmt.Errorf("reading worker pool sizes: %w", err)
	}
	var sum int64
	for _, w := range sizes.Spec.Provider.Workers {
		if w.Maximum > 0 {
			sum += w.Maximum
		}
	}
	return sum, nil
}
