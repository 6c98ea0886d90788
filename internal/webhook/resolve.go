package webhook

import (
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

// maxNodes is the sum of the worker pools' maximum sizes; 0 when they are not given.
func maxNodes(shoot *gardencorev1beta1.Shoot) int64 {
	var sum int64
	for _, w := range shoot.Spec.Provider.Workers {
		if w.Maximum > 0 {
			sum += int64(w.Maximum)
		}
	}
	return sum
}
