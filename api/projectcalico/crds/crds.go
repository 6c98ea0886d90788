package crds

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// The base set (v3.31's, generated from the Go types) is at the top; every other set is a folder named
// after it (v3.32: derived from the base set by hack/crdline, hack/generate.sh).
//
//go:embed *.yaml v*/*.yaml
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

// sets caches the parsed folder sets by name, each parsed once (the embedded files never change).
var sets sync.Map // string -> func() (parsed, error)

// BaseSet is the name of the CRD set generated from the Go types (Calico v3.31's); the other sets are
// derived from it (hack/crdline). A line of the Calico catalogue names its set (internal/calicoversion).
const BaseSet = "v3.31"

// loadFor returns the parsed CRD set of that name.
func loadFor(set string) (parsed, error) {
	if set == BaseSet {
		return load()
	}
	if !slices.Contains(Sets(), set) {
		return parsed{}, fmt.Errorf("no Calico CRD set %q (sets: %s)", set, strings.Join(Sets(), ", "))
	}
	f, _ := sets.LoadOrStore(set, sync.OnceValues(func() (parsed, error) {
		sub, err := fs.Sub(files, set)
		if err != nil {
			return parsed{}, fmt.Errorf("opening the %s CRD manifests: %w", set, err)
		}
		return parse(sub)
	}))
	return f.(func() (parsed, error))()
}

// Sets are the names of the embedded CRD sets: the base set and every folder.
func Sets() []string {
	out := []string{BaseSet}
	entries, _ := fs.ReadDir(files, ".")
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

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

// CustomResourceDefinitionsFor returns the CRD set of that name (a Calico line's, Release.CRDSet),
// sorted by name: v3.31's 24, and v3.32's 25 (its 22 crd.projectcalico.org CRDs with the v3.32
// schemas, ClusterNetworkPolicy, and the AdminNetworkPolicy and BaselineAdminNetworkPolicy CRDs
// Calico v3.32 no longer ships, kept because CRDs are never deleted: docs/calico-crds.md). Fresh deep
// copies on every call.
func CustomResourceDefinitionsFor(set string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	p, err := loadFor(set)
	if err != nil {
		return nil, err
	}
	out := make([]*apiextensionsv1.CustomResourceDefinition, len(p.crds))
	for i, crd := range p.crds {
		out[i] = crd.DeepCopy()
	}
	return out, nil
}
