package pipeline

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/manifest"
	"github.com/calico-pilot/calico-pilot/internal/pools"
	"github.com/calico-pilot/calico-pilot/internal/render"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// Result is everything one render produces, typed where a caller needs to know what was rendered:
// the images deployed are Options.Images (each workload's in Workloads), the IP pools are Pools, so
// nobody reads them back out of the manifest's bytes.
type Result struct {
	// Options are the resolved render options, Images among them.
	Options values.Options
	// Manifest is the shoot manifest, CRDs included: its JSON() is the ManagedResource secret's content.
	Manifest *manifest.Manifest
	// SeedObjects are the objects for the shoot's control-plane namespace in the seed (monitoring).
	SeedObjects []client.Object
	// Status records what Manifest deploys (status.providerStatus).
	Status calicov1alpha1.NetworkStatus
	// Pools are the IP pools in Manifest, typed and without the resource-manager annotations
	// (pools.Desired): the controller creates and patches them through the shoot's API.
	Pools []calicov1.IPPool
}

// Workloads are the Calico components the manifest runs, each with the image of its main container
// (the container named as the component): what a move waits to see running in the shoot.
func (r Result) Workloads() map[calicoversion.Component]string {
	out := map[calicoversion.Component]string{calicoversion.Node: r.Options.Images.CalicoNode}
	if r.Options.Typha {
		out[calicoversion.Typha] = r.Options.Images.CalicoTypha
	}
	if r.Options.KubeControllers {
		out[calicoversion.KubeControllers] = r.Options.Images.CalicoKubeControllers
	}
	c := r.Options.Components
	for _, o := range []struct {
		on    bool
		comp  calicoversion.Component
		image string
	}{{c.APIServer, calicoversion.APIServer, r.Options.Images.CalicoAPIServer}, {c.Goldmane, calicoversion.Goldmane, r.Options.Images.CalicoGoldmane},
		{c.Whisker, calicoversion.Whisker, r.Options.Images.CalicoWhisker}, {c.CSIDriver, calicoversion.CSIDriver, r.Options.Images.CalicoCSI}} {
		if o.on {
			out[o.comp] = o.image
		}
	}
	return out
}

// Render resolves the options of a source and its decoded, validated config with settings s (passed
// unchanged to values.Resolve), and renders the shoot manifest, the seed objects and the applied
// status. Configuration that does not fit the shoot comes back as field errors (with a nil error);
// any other failure as an error.
func (e *Encoder) Render(src Source, cfg *calicov1alpha1.NetworkConfig, s values.Settings) (Result, field.ErrorList, error) {
	opts, errs := Options(src, cfg, s)
	if len(errs) > 0 {
		return Result{}, errs, nil
	}
	m, objs, err := e.shoot(&opts, true)
	if err != nil {
		return Result{}, nil, err
	}
	seed, err := render.SeedMonitoring(&opts)
	if err != nil {
		return Result{}, nil, err
	}
	st := AppliedStatus(&opts)
	mode := s.Compatibility
	if mode == "" {
		mode = calicov1alpha1.CompatibilityNative
	}
	st.Compatibility = &mode
	return Result{Options: opts, Manifest: m, SeedObjects: seed, Status: st, Pools: pools.Desired(objs)}, nil, nil
}
