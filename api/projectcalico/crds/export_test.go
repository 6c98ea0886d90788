package crds

// Files returns the raw embedded manifests of Calico v3.31, sorted by CRD name (the same order as
// CustomResourceDefinitionsFor(BaseSet)). The byte slices are copies.
func Files() ([]File, error) { return FilesFor(BaseSet) }

// FilesFor is Files for the CRD set of that name.
func FilesFor(set string) ([]File, error) {
	p, err := loadFor(set)
	if err != nil {
		return nil, err
	}
	out := make([]File, len(p.files))
	for i, f := range p.files {
		out[i] = File{Name: f.Name, YAML: append([]byte(nil), f.YAML...)}
	}
	return out, nil
}
