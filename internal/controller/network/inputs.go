package network

import (
	"context"
	"net/netip"
	"time"

	"k8s.io/component-base/featuregate"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/rules"
)

// Inputs are the gathered facts the decide + render step works from. The Renderer must not modify
// anything reachable from Inputs.
type Inputs struct {
	// Network is the Network being reconciled.
	Network *extensionsv1alpha1.Network
	// Shoot is the shoot embedded in the Network's Cluster.
	Shoot *gardencorev1beta1.Shoot
	// Config is the decoded and validated providerConfig; an empty NetworkConfig when none is set.
	Config *calicov1alpha1.NetworkConfig
	// KubeAPIServerAddresses are the addresses for the gardener-kube-apiserver GlobalNetworkSet. Nil
	// means the set is left out (disabled, or hibernation is wanted: values.HibernationWanted); never
	// empty when enabled on a shoot that is not hibernated.
	KubeAPIServerAddresses []netip.Addr
	// FeatureGates are the controller's feature gates.
	FeatureGates featuregate.FeatureGate
	// ControllerConfig is the operator configuration.
	ControllerConfig *configv1alpha1.ControllerConfiguration
	// Compatibility is how the fields the reference extension ignored are treated for this Network
	// (pipeline.ChooseCompatibility).
	Compatibility calicov1alpha1.CompatibilityMode
	// TakenOver is what Reference mode renders unchanged from the reference's deployed calico-node
	// (internal/takeover); nil in Native mode or when nothing was taken over.
	TakenOver *calicov1alpha1.TakenOverTemplate
	// Calico is the release each Calico component runs (the actuator decides it: pin, operator
	// default or rollout, a move in progress); zero means every component at the default line.
	Calico calicoversion.Deployment
}

// Rendered is what the decide + render step produced.
type Rendered struct {
	// Data is the content of the ManagedResource secret (key -> manifest stream).
	Data map[string][]byte
	// Status records what Data deploys; it becomes Network.status.providerStatus. OverlayEnabled
	// must be set: the overlay switch check decides from it.
	Status calicov1alpha1.NetworkStatus
	// SeedObjects are objects for the shoot's control-plane namespace in the seed (monitoring).
	SeedObjects []client.Object
	// Findings are the providerConfig fields deployed other than written (contradictions the
	// reference accepted, fields it ignored); they go to the ProviderConfigHonoured condition.
	Findings []rules.Finding
	// Pools are the IP pools of Data. The resource manager leaves them alone (mode Ignore); the
	// controller creates them once and patches only their encapsulation (internal/pools).
	Pools []calicov1.IPPool
	// Workloads are the Calico components Data runs, each with its main container's image
	// (pipeline.Result.Workloads): what a move waits to see rolled out in the shoot.
	Workloads map[calicoversion.Component]string
}

// Renderer is the decide + render step: values derivation, rendering and serialization.
type Renderer interface {
	// Render turns the inputs into the manifest to store. An error wrapping a field.ErrorList or
	// otherwise naming the user's configuration must be returned through ConfigurationError.
	Render(ctx context.Context, in Inputs) (Rendered, error)
}

// ConfigDecoder strictly decodes and validates a Network's providerConfig.
type ConfigDecoder interface {
	// Decode returns the NetworkConfig of raw (an empty one for nil raw). Invalid input gives an
	// error that names the field path, what is wrong and what is accepted.
	Decode(raw []byte, ipFamilies []string) (*calicov1alpha1.NetworkConfig, error)
}

// ConfigDecoderFunc adapts a function to the ConfigDecoder interface.
type ConfigDecoderFunc func(raw []byte, ipFamilies []string) (*calicov1alpha1.NetworkConfig, error)

// Decode calls f.
func (f ConfigDecoderFunc) Decode(raw []byte, ipFamilies []string) (*calicov1alpha1.NetworkConfig, error) {
	return f(raw, ipFamilies)
}

// KubeAPIServerAddresses are the addresses of a shoot's kube-apiserver load balancer.
type KubeAPIServerAddresses struct {
	// Addrs are the addresses to publish, never empty.
	Addrs []netip.Addr
	// Resolved is true when a CNAME record was resolved: the addresses may then change without any
	// change of the DNSRecords, so the Network is reconciled again after TTL.
	Resolved bool
	// TTL is the shortest TTL of the DNS answers used to resolve CNAME records.
	TTL time.Duration
}

// AddressSource finds the kube-apiserver addresses of the shoot whose control-plane namespace is
// given. When none can be determined it returns an error saying why.
type AddressSource interface {
	KubeAPIServerAddresses(ctx context.Context, namespace string) (KubeAPIServerAddresses, error)
}
