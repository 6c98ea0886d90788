package values

import (
	"net/netip"

	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/rules"
)

// Inputs is everything Resolve derives Options from. Resolve never mutates it.
type Inputs struct {
	// Config is the decoded (and validated) NetworkConfig; nil means an empty one.
	Config *calicov1alpha1.NetworkConfig
	// ConfigPath is where Config sits in the user's object, for error paths
	// (spec.networking.providerConfig in a Shoot, spec.providerConfig in a Network).
	ConfigPath *field.Path
	// Cluster are the facts of the cluster the config is for.
	Cluster ClusterFacts
	// Settings are what the operator and the environment add: the same for every shoot of a
	// controller except what its reconcile gathered (addresses, compatibility, Calico release).
	Settings
}

// Settings are the inputs of a render that do not come from the shoot's config or facts: the
// operator's configuration and feature gates (pipeline.OperatorSettings builds them from the
// ControllerConfiguration), the images and Calico release to deploy, and what the controller
// gathered for the Network (kube-apiserver addresses, compatibility mode, taken-over template).
// This is the one declaration of these fields: the controller's Renderer, the pipeline and the CLI
// commands pass a Settings value along, they do not re-list it.
type Settings struct {
	// Operator is the operator's configuration that affects rendering.
	Operator OperatorConfig
	// FeatureGates are the extension's feature gates that affect rendering.
	FeatureGates FeatureGates
	// Images are the image references to deploy (of the releases in Calico).
	Images imagevector.Images
	// Calico is the release each Calico component runs (the caller chooses: a shoot's pin, the
	// operator's default or rollout, a move in progress); zero means every component at the default.
	Calico calicoversion.Deployment
	// KubeAPIServerAddresses are the kube-apiserver addresses for the gardener-kube-apiserver
	// GlobalNetworkSet (from DNSRecords in the controller, from flags offline). Nil leaves the set
	// out (disabled, or hibernation is wanted: HibernationWanted).
	KubeAPIServerAddresses []netip.Addr
	// Ratchet turns the errors of rules that go beyond the reference extension into
	// Options.Findings, deploying what the reference deployed for those fields: the controller sets
	// it, since a config the reference accepted must never fail there. Admission and validate for
	// new configs leave it off.
	Ratchet bool
	// Compatibility is how the fields the reference ignored are treated: Reference ignores them as
	// the reference did (Networks taken over from it), Native ("" too) honours them. The controller
	// chooses it with pipeline.ChooseCompatibility.
	Compatibility calicov1alpha1.CompatibilityMode
	// TakenOver is what Reference mode renders unchanged from the reference's calico-node pod template
	// (internal/referencekeep): the controller reads it from the deployed manifest when it takes a Network
	// over and keeps it in the provider status. Ignored in Native mode.
	TakenOver *calicov1alpha1.TakenOverTemplate
	// Layout is where Calico's objects live and what they are called (docs/layouts.md): the zero
	// Layout is Gardener's kube-system layout, which every shoot gets; apply takes a cluster the
	// tigera operator ran over in layout.TigeraOperator().
	Layout layout.Layout
	// TyphaTLS, when set, has Felix and Typha talk mutual TLS with the material it names
	// (docs/layouts.md); nil renders no TLS (every shoot). Ignored when Typha is off.
	TyphaTLS *layout.TyphaTLS
	// NoDefaultPools has calico-node create no IP pool of its own at start-up (NO_DEFAULT_POOLS=true
	// instead of the CALICO_IPV4POOL_* and CALICO_IPV6POOL_* env): apply keeps it where the install
	// it takes over runs so (the tigera operator's does); every shoot leaves it off.
	NoDefaultPools bool
	// Components are the optional components to render (calico-apiserver, goldmane, whisker, the CSI
	// driver; docs/components/); the zero value renders none (every shoot).
	Components Components
}

// ClusterFacts are the cluster properties rendering depends on, taken from the Shoot (directly or
// embedded in the Cluster resource) and the Network.
type ClusterFacts struct {
	// IPFamilies are the requested families ("IPv4", "IPv6"); empty means IPv4.
	IPFamilies []string
	// DualStackMigrationPending is true when the shoot carries the DualStackNodesMigrationReady
	// constraint with a status other than True: only the first family is used until it is True.
	DualStackMigrationPending bool
	// PodCIDR is the primary pod network (Network.spec.podCIDR, Shoot.spec.networking.pods).
	PodCIDR string
	// StatusPodCIDRs are all pod networks in use (Shoot.status.networking.pods); the IPv6 one of a
	// dual-stack shoot is only known here.
	StatusPodCIDRs []string
	// NodeCIDR is Shoot.spec.networking.nodes.
	NodeCIDR string
	// StatusNodeCIDRs are all node networks in use (Shoot.status.networking.nodes).
	StatusNodeCIDRs []string
	// ProviderType is the shoot's infrastructure provider (spec.provider.type, e.g. "azure").
	ProviderType string
	// KubernetesVersion is the shoot's Kubernetes version.
	KubernetesVersion string
	// KubeProxyEnabled is Shoot.spec.kubernetes.kubeProxy.enabled; nil means enabled.
	KubeProxyEnabled *bool
	// KubeProxyMode is Shoot.spec.kubernetes.kubeProxy.mode ("IPTables", "IPVS", "NFTables"); empty if unset.
	KubeProxyMode string
	// VPAEnabled is whether the shoot runs a VerticalPodAutoscaler.
	VPAEnabled bool
	// Hibernated is true while hibernation is wanted (HibernationWanted): the shoot is hibernated
	// or going to sleep, not while it wakes up.
	Hibernated bool
	// SeedNamespace is the shoot's control-plane namespace in the seed.
	SeedNamespace string
	// Paths name where these facts came from, for errors.
	Paths FactPaths
}

// FactPaths are the field paths of cluster facts in the user's object.
type FactPaths struct {
	// PodCIDR is where the pod network is (spec.networking.pods or spec.podCIDR).
	PodCIDR *field.Path
	// NodeCIDR is where the node network is (spec.networking.nodes).
	NodeCIDR *field.Path
	// KubeProxyEnabled is spec.kubernetes.kubeProxy.enabled.
	KubeProxyEnabled *field.Path
	// VPAEnabled is spec.kubernetes.verticalPodAutoscaler.enabled.
	VPAEnabled *field.Path
}

// ShootFactPaths are the paths of the facts in a Shoot.
func ShootFactPaths() FactPaths {
	return FactPaths{
		PodCIDR:          field.NewPath("spec", "networking", "pods"),
		NodeCIDR:         field.NewPath("spec", "networking", "nodes"),
		KubeProxyEnabled: rules.ShootKubeProxyEnabledPath(),
		VPAEnabled:       rules.ShootVPAEnabledPath(),
	}
}

// FeatureGates are the extension's feature gates that change rendering.
type FeatureGates struct {
	// NonPrivilegedCalicoNode runs calico-node without privileges (ignored with eBPF, which needs them).
	NonPrivilegedCalicoNode bool
}

// OperatorConfig is the part of the ControllerConfiguration that changes rendering.
type OperatorConfig struct {
	// KubeAPIServerGlobalNetworkSet is the operator default for the GlobalNetworkSet; nil means off.
	KubeAPIServerGlobalNetworkSet *bool
}
