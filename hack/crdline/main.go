package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "crdline: %v\n", err)
		os.Exit(1)
	}
}

// Change is one schema change of the list.
type Change struct {
	// CRD is the plural of the crd.projectcalico.org CRD it applies to.
	CRD string `json:"crd"`
	// Paths are the field paths it applies to (see the package doc).
	Paths []string `json:"paths,omitempty"`
	// Delta is the row of the facts file the change comes from ("2.3 IPPool spec.cidr").
	Delta string `json:"delta"`

	Remove            bool             `json:"remove,omitempty"`
	Add               map[string]any   `json:"add,omitempty"`
	Set               map[string]any   `json:"set,omitempty"`
	Unset             []string         `json:"unset,omitempty"`
	CEL               []map[string]any `json:"cel,omitempty"`
	Required          []string         `json:"required,omitempty"`
	StatusSubresource bool             `json:"statusSubresource,omitempty"`
}

func run(args []string) error {
	fs := flag.NewFlagSet("crdline", flag.ContinueOnError)
	changesFile := fs.String("changes", "", "the YAML list of changes")
	from := fs.String("from", "", "the directory of the older line's generated CRDs")
	out := fs.String("out", "", "the directory to write the newer line's CRDs to")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *changesFile == "" || *from == "" || *out == "" || fs.NArg() != 0 {
		return errors.New("usage: crdline -changes <list.yaml> -from <dir> -out <dir>")
	}
	byCRD, err := readChanges(*changesFile)
	if err != nil {
		return err
	}
	used, err := deriveAll(*from, *out, byCRD)
	if err != nil {
		return err
	}
	for plural := range byCRD {
		if !used[plural] {
			return fmt.Errorf("%s: changes for CRD %q, which %s does not have", *changesFile, plural, *from)
		}
	}
	return nil
}

// readChanges reads the list of changes, by CRD plural.
func readChanges(file string) (map[string][]Change, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	var changes []Change
	if err := yaml.UnmarshalStrict(data, &changes); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", file, err)
	}
	byCRD := map[string][]Change{}
	for i, c := range changes {
		if c.CRD == "" || c.Delta == "" {
			return nil, fmt.Errorf("%s: change %d names no CRD or no delta row", file, i)
		}
		byCRD[c.CRD] = append(byCRD[c.CRD], c)
	}
	return byCRD, nil
}

// deriveAll writes to out each crd.projectcalico.org CRD of from with its changes applied, and
// returns the plurals it found.
func deriveAll(from, out string, byCRD map[string][]Change) (map[string]bool, error) {
	files, err := filepath.Glob(filepath.Join(from, "crd.projectcalico.org_*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	used := map[string]bool{}
	for _, file := range files {
		plural := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(file), "crd.projectcalico.org_"), ".yaml")
		used[plural] = true
		src, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", file, err)
		}
		derived, err := derive(src, byCRD[plural])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", plural, err)
		}
		if err := writeIfChanged(filepath.Join(out, filepath.Base(file)), derived); err != nil {
			return nil, err
		}
	}
	return used, nil
}

// derive applies changes to the CRD manifest src and returns the new manifest.
func derive(src []byte, changes []Change) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}
	versions, _ := dig(doc, "spec", "versions").([]any)
	if len(versions) == 0 {
		return nil, errors.New("no versions")
	}
	for _, v := range versions {
		version, _ := v.(map[string]any)
		root, _ := dig(version, "schema", "openAPIV3Schema").(map[string]any)
		if root == nil {
			return nil, fmt.Errorf("version %v has no schema", version["name"])
		}
		for _, c := range changes {
			if err := apply(version, root, c); err != nil {
				return nil, fmt.Errorf("change from delta %q: %w", c.Delta, err)
			}
		}
	}
	out, err := yaml.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encoding: %w", err)
	}
	// The result must still be a CRD (a typo in a keyword name fails here, not on an API server).
	if err := yaml.UnmarshalStrict(out, &apiextensionsv1.CustomResourceDefinition{}); err != nil {
		return nil, fmt.Errorf("the derived manifest is not a CRD: %w", err)
	}
	return append([]byte("---\n"), out...), nil
}

func apply(version, root map[string]any, c Change) error {
	if c.StatusSubresource {
		if len(c.Paths) > 0 {
			return errors.New("statusSubresource takes no paths")
		}
		subs, _ := version["subresources"].(map[string]any)
		if subs == nil {
			subs = map[string]any{}
			version["subresources"] = subs
		}
		subs["status"] = map[string]any{}
		return nil
	}
	if len(c.Paths) == 0 {
		return errors.New("no paths")
	}
	for _, p := range c.Paths {
		if err := applyAt(root, p, c); err != nil {
			return fmt.Errorf("field %q: %w", p, err)
		}
	}
	return nil
}

// applyAt applies c to the property at path p of root.
func applyAt(root map[string]any, p string, c Change) error {
	var steps []string
	if p != "" {
		steps = strings.Split(p, ".")
	}
	edit := c.Remove || c.Add != nil
	if n := len(steps); edit && n > 0 && !strings.HasSuffix(steps[n-1], "[]") {
		parent, err := descend(root, steps[:n-1])
		if err != nil {
			return err
		}
		return editProperty(parent, steps[n-1], c)
	}
	schema, err := descend(root, steps)
	if err != nil {
		return err
	}
	if edit {
		return errors.New("remove and add need a property path")
	}
	return editSchema(schema, c)
}

// descend walks from root along steps, each a property name, or name[] for the item schema of an
// array property, and returns the schema it arrives at.
func descend(root map[string]any, steps []string) (map[string]any, error) {
	parent := root
	for _, step := range steps {
		name, intoItems := strings.CutSuffix(step, "[]")
		props, _ := parent["properties"].(map[string]any)
		next, _ := props[name].(map[string]any)
		if next == nil {
			return nil, fmt.Errorf("no property %q", name)
		}
		if intoItems {
			items, _ := next["items"].(map[string]any)
			if next["type"] != "array" || items == nil {
				return nil, fmt.Errorf("property %q is not an array with an item schema", name)
			}
			next = items
		}
		parent = next
	}
	return parent, nil
}

// editProperty removes property name of parent (and from its required list) or adds it.
func editProperty(parent map[string]any, name string, c Change) error {
	props, _ := parent["properties"].(map[string]any)
	_, exists := props[name]
	switch {
	case c.Remove && !exists:
		return errors.New("does not exist")
	case c.Remove:
		delete(props, name)
		if req := without(parent["required"], name); req != nil {
			parent["required"] = req
		} else {
			delete(parent, "required")
		}
	case exists:
		return errors.New("already exists")
	default:
		if props == nil {
			props = map[string]any{}
			parent["properties"] = props
		}
		props[name] = deepCopy(c.Add)
	}
	return nil
}

// editSchema sets and unsets keywords of schema and appends CEL rules and required properties.
func editSchema(schema map[string]any, c Change) error {
	for k, v := range c.Set {
		schema[k] = deepCopy(v)
	}
	for _, k := range c.Unset {
		if _, ok := schema[k]; !ok {
			return fmt.Errorf("has no %q to unset", k)
		}
		delete(schema, k)
	}
	if len(c.CEL) > 0 {
		rules, _ := schema["x-kubernetes-validations"].([]any)
		for _, r := range c.CEL {
			rules = append(rules, deepCopy(r))
		}
		schema["x-kubernetes-validations"] = rules
	}
	if len(c.Required) > 0 {
		req, _ := schema["required"].([]any)
		for _, n := range c.Required {
			req = append(req, n)
		}
		schema["required"] = req
	}
	return nil
}

func without(list any, name string) any {
	l, _ := list.([]any)
	var out []any
	for _, x := range l {
		if x != name {
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func dig(m map[string]any, keys ...string) any {
	var cur any = m
	for _, k := range keys {
		mm, _ := cur.(map[string]any)
		if mm == nil {
			return nil
		}
		cur = mm[k]
	}
	return cur
}

// deepCopy copies a decoded YAML value, so that one change applied to several paths shares nothing.
func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[k] = deepCopy(x)
		}
		return m
	case []any:
		l := make([]any, len(t))
		for i, x := range t {
			l[i] = deepCopy(x)
		}
		return l
	}
	return v
}

func writeIfChanged(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	return os.WriteFile(path, data, 0o644)
}
