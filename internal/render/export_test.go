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
	// Groups are the constant groups the component selected (their objects are in Objects).
	Groups []Constant
}

// ShootComponents renders what ShootParts renders, split by component, in render order: each
// component's objects that depend on the options and the constant groups it selected. The golden
// tests keep one file per component and scenario.
func ShootComponents(o *values.Options) ([]ComponentObjects, error) {
	if err := check(o); err != nil {
		return nil, fmt.Errorf("rendering shoot objects: %w", err)
	}
	out := make([]ComponentObjects, 0, len(components))
	for _, c := range components {
		p, err := c.render(o)
		if err != nil {
			return nil, fmt.Errorf("rendering shoot objects: %w", err)
		}
		objs := p.objects
		for _, g := range p.groups {
			objs = append(objs, g.Objects()...)
		}
		out = append(out, ComponentObjects{Name: c.name, Objects: objs, Groups: p.groups})
	}
	return out, nil
}
