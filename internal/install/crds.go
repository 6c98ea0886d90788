package install

import (
	"fmt"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/calico-pilot/calico-pilot/api/projectcalico/crds"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// CRDRelease is the newest carried line whose whole CRD set the cluster holds, judged by the
// schemas: every CRD of the line's set exists, and every field path of each of its served versions
// is in the cluster's schema of that version. It is that line's newest release (a line's releases
// share their CRDs), zero when the cluster holds no carried line's CRDs whole (none installed, or
// older ones). Lowering the CRDs below it would prune the fields it has from stored objects.
func (in *Install) CRDRelease(cat *calicoversion.Catalogue) (calicoversion.Release, error) {
	if len(in.CRDs) == 0 {
		return calicoversion.Release{}, nil
	}
	lines := cat.Lines()
	for i := len(lines) - 1; i >= 0; i-- {
		set, err := crds.CustomResourceDefinitionsFor(lines[i].CRDSet())
		if err != nil {
			return calicoversion.Release{}, fmt.Errorf("the CRDs of Calico %s: %w", lines[i], err)
		}
		if in.holds(set) {
			return lines[i].Newest(), nil
		}
	}
	return calicoversion.Release{}, nil
}

// holds is true when the cluster's CRDs contain every CRD of set with every schema path.
func (in *Install) holds(set []*apiextensionsv1.CustomResourceDefinition) bool {
	for _, want := range set {
		have, ok := in.CRDs[want.Name]
		if !ok {
			return false
		}
		for _, v := range want.Spec.Versions {
			if !v.Served || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			hv := servedVersion(have, v.Name)
			if hv == nil {
				return false
			}
			got := SchemaPaths(hv.Schema.OpenAPIV3Schema)
			for _, p := range SchemaPaths(v.Schema.OpenAPIV3Schema) {
				if _, found := slices.BinarySearch(got, p); !found {
					return false
				}
			}
		}
	}
	return true
}

func servedVersion(crd *apiextensionsv1.CustomResourceDefinition, name string) *apiextensionsv1.CustomResourceDefinitionVersion {
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		if v.Name == name && v.Served && v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			return v
		}
	}
	return nil
}

// SchemaPaths lists the field paths a structural schema declares, sorted ("spec.ipipMode",
// "spec.allowedUses[]", "metadata"; a map's values are "key.*").
func SchemaPaths(s *apiextensionsv1.JSONSchemaProps) []string {
	var out []string
	var walk func(prefix string, s *apiextensionsv1.JSONSchemaProps)
	walk = func(prefix string, s *apiextensionsv1.JSONSchemaProps) {
		if s == nil {
			return
		}
		for name, p := range s.Properties {
			path := name
			if prefix != "" {
				path = prefix + "." + name
			}
			out = append(out, path)
			walk(path, &p)
		}
		if s.Items != nil && s.Items.Schema != nil {
			walk(prefix+"[]", s.Items.Schema)
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			walk(prefix+".*", s.AdditionalProperties.Schema)
		}
	}
	walk("", s)
	slices.Sort(out)
	return slices.Compact(out)
}
