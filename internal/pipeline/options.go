package pipeline

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/featuregate"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/decode"
	"github.com/calico-pilot/calico-pilot/internal/features"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// Source is what a render starts from: a Shoot alone (render --shoot, validate, the webhook), or
// a Network with the Shoot embedded in its Cluster (the controller, render --network --cluster).
type Source struct {
	// Shoot is the shoot; required.
	Shoot *gardencorev1beta1.Shoot
	// Network is the Network being reconciled; nil for a Shoot alone. When set, its pod CIDR and IP
	// families are what counts (with their paths in the Network), and its providerConfig is the
	// config (see NetworkConfig).
	Network *extensionsv1alpha1.Network
	// SeedNamespace is the shoot's control-plane namespace in the seed; empty means the Network's
	// namespace (or none, offline, for a Shoot alone).
	SeedNamespace string
}

// configPath is where the source carries its NetworkConfig.
func (s Source) configPath() *field.Path {
	if s.Network != nil {
		return NetworkProviderConfigPath()
	}
	return decode.ProviderConfigPath()
}

// OperatorSettings are the render settings of the operator's ControllerConfiguration (nil means
// defaults) and the extension's feature gates (nil means all at their defaults): the part of
// values.Settings that is the same for every shoot. The caller adds the rest (images, Calico
// release, and for a Network what the controller gathers) to the value it returns.
func OperatorSettings(cfg *configv1alpha1.ControllerConfiguration, gates featuregate.FeatureGate) values.Settings {
	s := values.Settings{Operator: values.OperatorConfig{KubeAPIServerGlobalNetworkSet: globalNetworkSetDefault(cfg)}}
	if gates != nil {
		s.FeatureGates.NonPrivilegedCalicoNode = gates.Enabled(features.NonPrivilegedCalicoNode)
	}
	return s
}

// Facts are the cluster facts of a source: from the Shoot, except what a Network states itself.
// Hibernation is values.HibernationWanted: a shoot waking up is not hibernated.
func Facts(src Source) values.ClusterFacts {
	seedNS := src.SeedNamespace
	if seedNS == "" && src.Network != nil {
		seedNS = src.Network.Namespace
	}
	facts := values.FactsFromShoot(src.Shoot, seedNS)
	if n := src.Network; n != nil {
		facts.PodCIDR = n.Spec.PodCIDR
		facts.Paths.PodCIDR = field.NewPath("spec", "podCIDR")
		facts.IPFamilies = nil
		for _, f := range n.Spec.IPFamilies {
			facts.IPFamilies = append(facts.IPFamilies, string(f))
		}
	}
	return facts
}

// Options resolves the render options for a source and its decoded, validated config (nil means
// an empty one) with settings s. The errors name fields of the source (the config, or the shoot facts).
func Options(src Source, cfg *calicov1alpha1.NetworkConfig, s values.Settings) (values.Options, field.ErrorList) {
	return values.Resolve(values.Inputs{Config: cfg, ConfigPath: src.configPath(), Cluster: Facts(src), Settings: s})
}

// GlobalNetworkSetEnabled is whether the gardener-kube-apiserver GlobalNetworkSet is wanted:
// the precedence rule of values.GlobalNetworkSetEnabled applied to the ControllerConfiguration.
// Whether it is rendered also depends on
// hibernation (values.HibernationWanted) and on the addresses.
func GlobalNetworkSetEnabled(cfg *calicov1alpha1.NetworkConfig, operator *configv1alpha1.ControllerConfiguration) bool {
	return values.GlobalNetworkSetEnabled(cfg, globalNetworkSetDefault(operator))
}

// globalNetworkSetDefault is the operator's default for the GlobalNetworkSet; nil when unset.
func globalNetworkSetDefault(operator *configv1alpha1.ControllerConfiguration) *bool {
	if operator == nil || operator.KubeAPIServerGlobalNetworkSet == nil {
		return nil
	}
	return operator.KubeAPIServerGlobalNetworkSet.Enabled
}

// AppliedStatus records what options deploy (the Network's status.providerStatus): whether the
// overlay is on (values.Options.OverlayEnabled), the backend and the IP families.
func AppliedStatus(o *values.Options) calicov1alpha1.NetworkStatus {
	overlay := o.OverlayEnabled()
	backend := o.Backend
	st := calicov1alpha1.NetworkStatus{OverlayEnabled: &overlay, Backend: &backend}
	if o.IPv4 {
		st.IPFamilies = append(st.IPFamilies, "IPv4")
	}
	if o.IPv6 {
		st.IPFamilies = append(st.IPFamilies, "IPv6")
	}
	// Kept for the next reconciles: the reference's manifest is read only when it is taken over.
	st.TakenOver = o.TakenOver
	return st
}
