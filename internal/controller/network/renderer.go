package network

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/api/projectcalico/crds"
	"github.com/calico-pilot/calico-pilot/internal/features"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/manifest"
	"github.com/calico-pilot/calico-pilot/internal/render"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// calicoRenderer is the production decide + render step: values.Resolve, render.ShootWith and
// render.SeedMonitoring, serialized by internal/manifest. The static CRDs and the shoot objects that
// do not depend on the options are serialized once, when the renderer is built.
type calicoRenderer struct {
	images    imagevector.Images
	static    *manifest.Static
	constants *render.Constants
}

// NewRenderer returns the production Renderer for the given image pins.
func NewRenderer(images imagevector.Images) (Renderer, error) {
	defs, err := crds.CustomResourceDefinitions()
	if err != nil {
		return nil, fmt.Errorf("loading calico CRDs: %w", err)
	}
	objs, err := render.CRDs(defs)
	if err != nil {
		return nil, err
	}
	static, err := manifest.NewStatic(objs)
	if err != nil {
		return nil, fmt.Errorf("serializing calico CRDs: %w", err)
	}
	constants, err := render.NewConstants()
	if err != nil {
		return nil, err
	}
	return &calicoRenderer{images: images, static: static, constants: constants}, nil
}

// Render implements Renderer.
func (r *calicoRenderer) Render(_ context.Context, in Inputs) (Rendered, error) {
	opts, err := r.options(in)
	if err != nil {
		return Rendered{}, err
	}
	objs, groups, err := render.ShootWith(&opts, r.constants)
	if err != nil {
		return Rendered{}, err
	}
	m, err := manifest.Build(r.static, objs, groups...)
	if err != nil {
		return Rendered{}, err
	}
	seed, err := render.SeedMonitoring(&opts)
	if err != nil {
		return Rendered{}, err
	}
	return Rendered{
		Data:        map[string][]byte{ManagedResourceDataKey: m.JSON()},
		Status:      appliedStatus(&opts),
		SeedObjects: seed,
	}, nil
}

// options resolves the values for a Network: the cluster facts come from the embedded shoot, except
// what the Network itself states (pod CIDR and IP families, with their paths in the Network).
func (r *calicoRenderer) options(in Inputs) (values.Options, error) {
	facts := values.FactsFromShoot(in.Shoot, in.Network.Namespace)
	facts.PodCIDR = in.Network.Spec.PodCIDR
	facts.IPFamilies = nil
	for _, f := range in.Network.Spec.IPFamilies {
		facts.IPFamilies = append(facts.IPFamilies, string(f))
	}
	facts.Paths.PodCIDR = field.NewPath("spec", "podCIDR")
	// Only a wanted hibernation leaves the GlobalNetworkSet out: the wake-up reconcile runs while
	// status.hibernated is still true, after the gardenlet recreated the DNSRecords, and must put
	// the set back rather than wait for the next shoot reconcile.
	facts.Hibernated = in.Hibernated
	var operator values.OperatorConfig
	if c := in.ControllerConfig; c != nil && c.KubeAPIServerGlobalNetworkSet != nil {
		operator.KubeAPIServerGlobalNetworkSet = c.KubeAPIServerGlobalNetworkSet.Enabled
	}
	gates := values.FeatureGates{}
	if in.FeatureGates != nil {
		gates.NonPrivilegedCalicoNode = in.FeatureGates.Enabled(features.NonPrivilegedCalicoNode)
	}
	opts, errs := values.Resolve(values.Inputs{
		Config:                 in.Config,
		ConfigPath:             providerConfigPath(),
		Cluster:                facts,
		FeatureGates:           gates,
		Operator:               operator,
		Images:                 r.images,
		KubeAPIServerAddresses: in.KubeAPIServerAddresses,
	})
	if len(errs) > 0 {
		return values.Options{}, configurationError(errs.ToAggregate())
	}
	return opts, nil
}

// appliedStatus records what the options deploy: whether the overlay (IPIP or VXLAN encapsulation)
// is on, the backend and the IP families.
func appliedStatus(o *values.Options) calicov1alpha1.NetworkStatus {
	overlay := (o.FelixIPIPEnabled != nil && *o.FelixIPIPEnabled) || o.FelixVXLANEnabled
	backend := calicov1alpha1.Backend(o.Backend)
	st := calicov1alpha1.NetworkStatus{OverlayEnabled: &overlay, Backend: &backend}
	if o.IPv4 {
		st.IPFamilies = append(st.IPFamilies, "IPv4")
	}
	if o.IPv6 {
		st.IPFamilies = append(st.IPFamilies, "IPv6")
	}
	return st
}
