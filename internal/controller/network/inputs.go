package network

import (
	"context"
	"net/netip"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/rules"
	"github.com/calico-pilot/calico-pilot/internal/values"
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
	// Settings go to the pipeline unchanged but for two fields the Renderer owns: it sets Images
	// (looked up for the shoot's Kubernetes version and Settings.Calico) and Ratchet (a Network's
	// config was admitted or deployed by the reference, so rules beyond the reference are findings).
	// The actuator builds them with pipeline.OperatorSettings and adds what it gathered: the
	// kube-apiserver addresses (nil: the set is left out), the compatibility mode, the taken-over
	// template and the Calico release each component runs (zero: the default line).
	Settings values.Settings
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
