package network

import (
	"context"
	"fmt"

	extensionsnetwork "github.com/calico-pilot/calico-pilot/internal/extensions/network"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/mrdata"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
)

// calicoRenderer is the production decide + render step: internal/pipeline, the same path
// `calico-pilot render --network --cluster` takes, with the CRDs and render's constant groups
// encoded once per Calico line when the renderer is built.
type calicoRenderer struct {
	images  *imagevector.Resolver
	encoder *pipeline.Encoder
	// crds are the CRD streams of each CRD set of the catalogue's lines (by
	// calicoversion.Release.CRDSet), Brotli-compressed once: the content secret's mrdata.CRDsKey.
	crds map[string][]byte
}

// NewRenderer returns the production Renderer deploying the images of vector (nil: the embedded
// one), looked up per shoot from its Kubernetes version as Gardener's image vector does, so an
// override constrained by targetVersion or runtimeVersion applies to the shoots it names.
func NewRenderer(vector *imagevector.Vector) (Renderer, error) {
	if vector == nil {
		var err error
		if vector, err = imagevector.LoadVector(nil); err != nil {
			return nil, err
		}
	}
	enc, err := pipeline.NewEncoderFor(vector.Catalogue())
	if err != nil {
		return nil, err
	}
	crds := map[string][]byte{}
	for _, line := range vector.Catalogue().Lines() {
		if crds[line.CRDSet()], err = mrdata.Compress(enc.CRDsJSONFor(line.Newest())); err != nil {
			return nil, fmt.Errorf("compressing the Calico %s CRDs: %w", line, err)
		}
	}
	return &calicoRenderer{images: imagevector.NewResolver(vector), encoder: enc, crds: crds}, nil
}

// Render implements Renderer: in.Settings with the shoot's images and Ratchet, through the pipeline.
func (r *calicoRenderer) Render(_ context.Context, in Inputs) (Rendered, error) {
	s := in.Settings
	var err error
	if s.Images, err = r.images.ForShoot(in.Shoot.Spec.Kubernetes.Version, s.Calico); err != nil {
		return Rendered{}, err
	}
	// A config in a Network was admitted (or deployed by the reference): never an error for rules
	// beyond the reference.
	s.Ratchet = true
	res, errs, err := r.encoder.Render(pipeline.Source{Shoot: in.Shoot, Network: in.Network}, in.Config, s)
	if len(errs) > 0 {
		return Rendered{}, extensionsnetwork.ConfigurationError(errs.ToAggregate())
	}
	if err != nil {
		return Rendered{}, err
	}
	crds := r.crds[res.Options.Calico.CRDs.CRDSet()]
	if crds == nil {
		return Rendered{}, fmt.Errorf("no CRDs for Calico %s", res.Options.Calico.CRDs)
	}
	return Rendered{
		Pools:     res.Pools,
		Workloads: res.Workloads(),
		// The CRDs (the same for every shoot, ~90 % of the bytes) compressed once, the rest as a
		// plain stream: no copy of the whole manifest per render, a ~37 KB secret.
		Data:        map[string][]byte{ManagedResourceDataKey: res.Manifest.DynamicJSON(), mrdata.CRDsKey: crds},
		Status:      res.Status,
		SeedObjects: res.SeedObjects,
		Findings:    res.Options.Findings,
	}, nil
}
