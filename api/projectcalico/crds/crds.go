package crds

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

//go:embed *.yaml
var files embed.FS

// File is one embedded CRD manifest.
type File struct {
	// Name is the CRD's name (<plural>.<group>).
	Name string
	// YAML is the manifest exactly as generated.
	YAML []byte
}

type parsed struct {
	crds  []*apiextensionsv1.CustomResourceDefinition
	files []File
}

// load parses the embedded manifests once; the result is shared read-only and callers get copies.
// The embedded files never change at run time, so caching them is not mutable global state.
var load = sync.OnceValues(func() (parsed, error) { return parse(files) })

// parse decodes every *.yaml of fsys strictly into a CRD and sorts them by name.
func parse(fsys fs.FS) (parsed, error) {
	names, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return parsed{}, fmt.Errorf("listing embedded CRD manifests: %w", err)
	}
	var p parsed
	seen := make(map[string]string, len(names))
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return parsed{}, fmt.Errorf("reading CRD manifest %s: %w", name, err)
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(data, crd); err != nil {
			return parsed{}, fmt.Errorf("decoding CRD manifest %s: %w", name, err)
		}
		if crd.Kind != "CustomResourceDefinition" || crd.Name == "" {
			return parsed{}, fmt.Errorf("decoding CRD manifest %s: kind %q name %q, want a named CustomResourceDefinition", name, crd.Kind, crd.Name)
		}
		if other, ok := seen[crd.Name]; ok {
			return parsed{}, fmt.Errorf("CRD %s is defined twice, in %s and %s", crd.Name, other, name)
		}
		seen[crd.Name] = name
		p.crds = append(p.crds, crd)
		p.files = append(p.files, File{Name: crd.Name, YAML: data})
	}
	sort.Slice(p.crds, func(i, j int) bool { return p.crds[i].Name < p.crds[j].Name })
	sort.Slice(p.files, func(i, j int) bool { return p.files[i].Name < p.files[j].Name })
	return p, nil
}

// CustomResourceDefinitions returns the 24 embedded CRDs, sorted by name. The manifests are parsed
// once per process; every call returns fresh deep copies, so callers may modify them.
func CustomResourceDefinitions() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	p, err := load()
	if err != nil {
		return nil, err
	}
	out := make([]*apiextensionsv1.CustomResourceDefinition, len(p.crds))
	for i, crd := range p.crds {
		out[i] = crd.DeepCopy()
	}
	return out, nil
}

// Files returns the raw embedded manifests, sorted by CRD name (the same order as
// CustomResourceDefinitions). The byte slices are copies.
func Files() ([]File, error) {
	p, err := load()
	if err != nil {
		return nil, err
	}
	out := make([]File, len(p.files))
	for i, f := range p.files {
		out[i] = File{Name: f.Name, YAML: append([]byte(nil), f.YAML...)}
	}
	return out, nil
}
