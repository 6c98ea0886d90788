package rendertest

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/render"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// Shoot renders every shoot object except the static CRDs, in one list: render.ShootParts with the
// constant groups' objects appended, what the pipeline's Encoder encodes (each constant group
// encoded once) and what the golden files of a golden scenario hold.
func Shoot(o *values.Options) ([]client.Object, error) {
	objs, groups, err := render.ShootParts(o)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		objs = append(objs, g.Objects()...)
	}
	return objs, nil
}

// Unstructured renders the scenario's shoot objects (Shoot: everything but the static
// CRDs, what the golden files of a golden scenario hold) as unstructured objects, in render order.
func (sc Scenario) Unstructured() ([]*unstructured.Unstructured, error) {
	opts, err := sc.Options()
	if err != nil {
		return nil, err
	}
	objs, err := Shoot(&opts)
	if err != nil {
		return nil, fmt.Errorf("rendering scenario %s: %w", sc.Name, err)
	}
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for _, o := range objs {
		raw, err := json.Marshal(o)
		if err != nil {
			return nil, fmt.Errorf("encoding %T %s of scenario %s: %w", o, o.GetName(), sc.Name, err)
		}
		u := &unstructured.Unstructured{}
		if err := json.Unmarshal(raw, &u.Object); err != nil {
			return nil, fmt.Errorf("decoding %T %s of scenario %s: %w", o, o.GetName(), sc.Name, err)
		}
		out = append(out, u)
	}
	return out, nil
}
