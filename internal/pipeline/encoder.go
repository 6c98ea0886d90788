package pipeline

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/api/projectcalico/crds"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/manifest"
	"github.com/calico-pilot/calico-pilot/internal/render"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// Encoder serializes shoot manifests with what never changes encoded once: each CRD set of the Calico
// catalogue's lines and each of render's constants (render.Constant: a constant group with the
// releases it serves) in the default layout; the constants of another layout are encoded per render.
// Build one per process; it is read-only afterwards and safe for concurrent use. Its manifests are
// byte-identical to encoding every object ShootParts returns with its groups (rendertest.Shoot;
// TestEncoderMatchesShoot in internal/render).
type Encoder struct {
	crds      map[string]*manifest.Static // by CRD set (calicoversion.Release.CRDSet)
	constants map[render.Constant]*manifest.Static
}

// NewEncoder loads and encodes the CRDs of every line of the default catalogue and every constant.
func NewEncoder() (*Encoder, error) { return NewEncoderFor(calicoversion.Default()) }

// NewEncoderFor is NewEncoder for the releases of catalogue cat.
func NewEncoderFor(cat *calicoversion.Catalogue) (*Encoder, error) {
	e := &Encoder{crds: map[string]*manifest.Static{}, constants: map[render.Constant]*manifest.Static{}}
	for _, line := range cat.Lines() {
		if e.crds[line.CRDSet()] != nil {
			continue
		}
		defs, err := crds.CustomResourceDefinitionsFor(line.CRDSet())
		if err != nil {
			return nil, fmt.Errorf("loading the Calico %s CRDs: %w", line, err)
		}
		objs, err := render.CRDs(defs)
		if err != nil {
			return nil, err
		}
		if e.crds[line.CRDSet()], err = manifest.NewStatic(objs); err != nil {
			return nil, fmt.Errorf("encoding the Calico %s CRDs: %w", line, err)
		}
	}
	for _, c := range render.Constants(cat) {
		s, err := manifest.NewStatic(c.Objects())
		if err != nil {
			return nil, fmt.Errorf("encoding constant shoot objects: %w", err)
		}
		e.constants[c] = s
	}
	return e, nil
}

// CRDsJSONFor returns the encoded CRDs of release r's line, the static part of every stored manifest
// of a shoot whose CRDs are r's, in the stored format (one compact JSON object per line). The slice is
// shared: do not modify it. nil for a line the encoder was not built for.
func (e *Encoder) CRDsJSONFor(r calicoversion.Release) []byte {
	s := e.crds[r.CRDSet()]
	if s == nil {
		return nil
	}
	return s.JSON()
}

// Shoot renders and serializes the shoot objects for o, with the CRDs of o.Calico.CRDs when withCRDs
// is set (the stored manifest always has them).
func (e *Encoder) Shoot(o *values.Options, withCRDs bool) (*manifest.Manifest, error) {
	m, _, err := e.shoot(o, withCRDs)
	return m, err
}

// shoot is Shoot that also hands back the rendered per-shoot objects (Render takes the typed IP
// pools from them).
func (e *Encoder) shoot(o *values.Options, withCRDs bool) (*manifest.Manifest, []client.Object, error) {
	objs, constants, err := render.ShootParts(o)
	if err != nil {
		return nil, nil, err
	}
	pre := make([]*manifest.Static, len(constants))
	for i, c := range constants {
		if pre[i] = e.constants[c]; pre[i] != nil {
			continue
		}
		if c.Layout.IsZero() {
			return nil, nil, fmt.Errorf("encoding shoot objects: no constant group %d for Calico %s", c.Group, o.Calico)
		}
		// Another layout than Gardener's (apply taking over a cluster, one render at a time): encoded
		// for this render, not kept, so the Encoder stays read-only.
		if pre[i], err = manifest.NewStatic(c.Objects()); err != nil {
			return nil, nil, fmt.Errorf("encoding constant shoot objects: %w", err)
		}
	}
	var static *manifest.Static
	if withCRDs {
		if static = e.crds[o.Calico.CRDs.CRDSet()]; static == nil {
			return nil, nil, fmt.Errorf("encoding shoot objects: no CRDs for Calico %s", o.Calico.CRDs)
		}
	}
	m, err := manifest.Build(static, objs, pre...)
	return m, objs, err
}

// Seed renders and serializes the seed-side monitoring objects for o (render --seed).
func Seed(o *values.Options) (*manifest.Manifest, error) {
	objs, err := render.SeedMonitoring(o)
	if err != nil {
		return nil, err
	}
	return manifest.Build(nil, objs)
}
