package render

import (
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/values"
)

// ComponentObjects are the objects of one component of a shoot.
type ComponentObjects struct {
	Name    string
	Objects []client.Object
}

// ShootComponents renders what Shoot renders, split by component, in render order: each
// component's objects that depend on the options and its constant groups that o selects. The
// golden tests keep one file per component and scenario.
func ShootComponents(o *values.Options) ([]ComponentObjects, error) {
	if err := check(o); err != nil {
		return nil, fmt.Errorf("rendering shoot objects: %w", err)
	}
	var selected [numConstantGroups]bool
	for _, g := range constantGroups(o) {
		selected[g] = true
	}
	out := make([]ComponentObjects, 0, len(components))
	for _, c := range components {
		objs, err := c.objects(o)
		if err != nil {
			return nil, fmt.Errorf("rendering shoot objects: %w", err)
		}
		for _, g := range c.groups {
			if selected[g] {
				objs = append(objs, g.Objects()...)
			}
		}
		out = append(out, ComponentObjects{Name: c.name, Objects: objs})
	}
	return out, nil
}
