package webhook

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/rules"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// resolveNetworking derives what would be deployed for a Shoot and its (valid) NetworkConfig, through
// internal/pipeline, the one path the controller and render take, so the webhook compares exactly what
// the controller would roll out.
//
// It ratchets as the controller does: a config kept under ratcheting is compared as deployed.
//
// The kube-apiserver GlobalNetworkSet is left out of the derivation: its addresses are only known to the
// controller (from DNSRecords in the seed), and it has no bearing on the values compared here.
func resolveNetworking(shoot *gardencorev1beta1.Shoot, cfg *calicov1alpha1.NetworkConfig) (Networking, field.ErrorList) {
	if cfg != nil && cfg.KubeAPIServerGlobalNetworkSet != nil {
		cfg = cfg.DeepCopy()
		cfg.KubeAPIServerGlobalNetworkSet = nil
	}
	opts, errs := pipeline.Options(pipeline.Source{Shoot: shoot}, cfg, values.Settings{Ratchet: true})
	if len(errs) > 0 {
		return Networking{}, errs
	}
	return networkingFromOptions(opts), nil
}

// networkingFromOptions reduces the resolved render options to what the transition rules compare. The
// overlay answer is values.Options.OverlayEnabled, the one the provider status records.
func networkingFromOptions(opts values.Options) Networking {
	return Networking{
		IPAM:    opts.IPAM.Type,
		Backend: string(opts.Backend),
		Overlay: opts.OverlayEnabled(),
		Typha:   opts.Typha,
		EBPF:    opts.EBPF,
	}
}

// runsNodes tells whether a shoot may have Calico nodes (see Cluster.RunsNodes): it gets Calico
// networking (rules.NetworkingOf: not a workerless one), has been acted on and is not hibernated.
// Hibernation is values.HibernationWanted, the answer the controller and render use.
func runsNodes(shoot *gardencorev1beta1.Shoot) bool {
	return rules.NetworkingOf(shoot) == rules.NetworkingCalico && shoot.Status.LastOperation != nil && !values.HibernationWanted(shoot)
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
