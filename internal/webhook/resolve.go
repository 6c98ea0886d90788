package webhook

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/decode"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// resolveNetworking derives what would be deployed for a Shoot and its (valid) NetworkConfig, through
// internal/values, the one place the controller and render derive decisions in, so the webhook compares
// exactly what the controller would roll out.
//
// The kube-apiserver GlobalNetworkSet is left out of the derivation: its addresses are only known to the
// controller (from DNSRecords in the seed), and it has no bearing on the values compared here.
func resolveNetworking(shoot *gardencorev1beta1.Shoot, cfg *calicov1alpha1.NetworkConfig) (Networking, field.ErrorList) {
	if cfg != nil && cfg.KubeAPIServerGlobalNetworkSet != nil {
		cfg = cfg.DeepCopy()
		cfg.KubeAPIServerGlobalNetworkSet = nil
	}
	opts, errs := values.Resolve(values.Inputs{
		Config:     cfg,
		ConfigPath: decode.ProviderConfigPath(),
		Cluster:    values.FactsFromShoot(shoot, ""),
	})
	if len(errs) > 0 {
		return Networking{}, errs
	}
	return networkingFromOptions(opts), nil
}

// networkingFromOptions reduces the resolved render options to what the transition rules compare. The
// overlay is on when a default pool of an enabled family encapsulates (mode Always or CrossSubnet).
func networkingFromOptions(opts values.Options) Networking {
	overlay := (opts.IPv4 && opts.IPv4Pool.Mode != "Never") || (opts.IPv6 && opts.IPv6Pool.Mode != "Never")
	return Networking{
		IPAM:    opts.IPAM.Type,
		Backend: string(opts.Backend),
		Overlay: overlay,
		Typha:   opts.Typha,
		EBPF:    opts.EBPF,
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
