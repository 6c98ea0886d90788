package pipeline

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/api/projectcalico/crds"
	"github.com/calico-pilot/calico-pilot/internal/manifest"
	"github.com/calico-pilot/calico-pilot/internal/render"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// Encoder serializes shoot manifests with what never changes encoded once: the static CRDs and
// each of render's constant groups (render.ConstantGroup). Build one per process; it is read-only
// afterwards and safe for concurrent use. Its manifests are byte-identical to encoding everything
// render.Shoot returns (TestEncoderMatchesShoot in internal/render).
type Encoder struct {
	crds   *manifest.Static
	groups []*manifest.Static // indexed by render.ConstantGroup
}

// NewEncoder loads and encodes the CRDs and the constant groups.
func NewEncoder() (*Encoder, error) {
	defs, err := crds.CustomResourceDefinitions()
	if err != nil {
		return nil, fmt.Errorf("loading the Calico CRDs: %w", err)
	}
	objs, err := render.CRDs(defs)
	if err != nil {
		return nil, err
	}
	e := &Encoder{}
	if e.crds, err = manifest.NewStatic(objs); err != nil {
		return nil, fmt.Errorf("encoding the Calico CRDs: %w", err)
	}
	for _, g := range render.ConstantGroups() {
		s, err := manifest.NewStatic(g.Objects())
		if err != nil {
			return nil, fmt.Errorf("encoding constant shoot objects: %w", err)
		}
		e.groups = append(e.groups, s)
	}
	return e, nil
}

// CRDsJSON returns the encoded Calico CRDs, the static part of every stored manifest, in the stored
// format (one compact JSON object per line). The slice is shared: do not modify it.
func (e *Encoder) CRDsJSON() []byte { return e.crds.JSON() }

// Shoot renders and serializes the shoot objects for o, with the CRDs when withCRDs is set (the
// stored manifest always has them).
func (e *Encoder) Shoot(o *values.Options, withCRDs bool) (*manifest.Manifest, error) {
	m, _, err := e.shoot(o, withCRDs)
	return m, err
}

// shoot is Shoot that also hands back the rendered per-shoot objects (Render takes the typed IP
// pools from them).
func (e *Encoder) shoot(o *values.Options, withCRDs bool) (*manifest.Manifest, []client.Object, error) {
	objs, groups, err := render.ShootParts(o)
	if err != nil {
		return nil, nil, err
	}
	pre := make([]*manifest.Static, len(groups))
	for i, g := range groups {
		pre[i] = e.groups[g]
	}
	var static *manifest.Static
	if withCRDs {
		static = e.crds
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
