package pipeline

import (
	"net/netip"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/component-base/featuregate"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/decode"
	"github.com/calico-pilot/calico-pilot/internal/features"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
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

// Settings are the inputs that come from the operator and the environment, not from the shoot.
type Settings struct {
	// ControllerConfig is the operator configuration; nil means defaults.
	ControllerConfig *configv1alpha1.ControllerConfiguration
	// FeatureGates are the extension's feature gates; nil means all at their defaults.
	FeatureGates featuregate.FeatureGate
	// Images are the image references to deploy, resolved for Calico.
	Images imagevector.Images
	// Calico is the release each Calico component runs; zero means every component at the default
	// line (CalicoVersion chooses it from a config and the operator's configuration).
	Calico calicoversion.Deployment
	// KubeAPIServerAddresses feed the gardener-kube-apiserver GlobalNetworkSet: nil leaves it out.
	KubeAPIServerAddresses []netip.Addr
	// Ratchet deploys configs that break rules beyond the reference extension, as the reference
	// did, with a finding per field (values.Inputs.Ratchet): the controller sets it.
	Ratchet bool
	// Compatibility is how the fields the reference ignored are treated ("" is Native); the
	// controller chooses it with ChooseCompatibility.
	Compatibility calicov1alpha1.CompatibilityMode
	// TakenOver is what Reference mode renders unchanged from the reference's deployed calico-node
	// (internal/takeover): the controller reads it from the deployed manifest when it takes a Network
	// over and keeps it in the provider status.
	TakenOver *calicov1alpha1.TakenOverTemplate
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
// an empty one). The errors name fields of the source (the config, or the shoot facts).
func Options(src Source, cfg *calicov1alpha1.NetworkConfig, s Settings) (values.Options, field.ErrorList) {
	var operator values.OperatorConfig
	if c := s.ControllerConfig; c != nil && c.KubeAPIServerGlobalNetworkSet != nil {
		operator.KubeAPIServerGlobalNetworkSet = c.KubeAPIServerGlobalNetworkSet.Enabled
	}
	var gates values.FeatureGates
	if s.FeatureGates != nil {
		gates.NonPrivilegedCalicoNode = s.FeatureGates.Enabled(features.NonPrivilegedCalicoNode)
	}
	return values.Resolve(values.Inputs{
		Config:                 cfg,
		ConfigPath:             src.configPath(),
		Cluster:                Facts(src),
		FeatureGates:           gates,
		Operator:               operator,
		Images:                 s.Images,
		Calico:                 s.Calico,
		KubeAPIServerAddresses: s.KubeAPIServerAddresses,
		Ratchet:                s.Ratchet,
		Compatibility:          s.Compatibility,
		TakenOver:              s.TakenOver,
	})
}

// GlobalNetworkSetEnabled is whether the gardener-kube-apiserver GlobalNetworkSet is wanted:
// the precedence rule of values.GlobalNetworkSetEnabled applied to the ControllerConfiguration.
// Whether it is rendered also depends on
// hibernation (values.HibernationWanted) and on the addresses.
func GlobalNetworkSetEnabled(cfg *calicov1alpha1.NetworkConfig, operator *configv1alpha1.ControllerConfiguration) bool {
	var operatorDefault *bool
	if operator != nil && operator.KubeAPIServerGlobalNetworkSet != nil {
		operatorDefault = operator.KubeAPIServerGlobalNetworkSet.Enabled
	}
	return values.GlobalNetworkSetEnabled(cfg, operatorDefault)
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
