package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "crdpatch: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("crdpatch", flag.ContinueOnError)
	var nullableItems, patternItems paths
	fs.Var(&nullableItems, "nullable-items", "dot-separated path of an array field whose items become nullable (repeatable; \"x[]\" steps into the items of array x)")
	fs.Var(&patternItems, "pattern-items", "dot-separated path of an array field whose items get -pattern (repeatable)")
	pattern := fs.String("pattern", "", "the pattern for -pattern-items")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if len(nullableItems)+len(patternItems) == 0 || fs.NArg() != 1 || (len(patternItems) > 0) != (*pattern != "") {
		return errors.New("usage: crdpatch [-nullable-items <field.path>]... [-pattern-items <field.path>... -pattern <re>] <crd.yaml>")
	}
	file := fs.Arg(0)
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("reading %s: %w", file, err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		return fmt.Errorf("decoding %s: %w", file, err)
	}
	if len(crd.Spec.Versions) == 0 {
		return fmt.Errorf("%s: no versions", file)
	}
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			return fmt.Errorf("%s: version %s has no schema", file, v.Name)
		}
		for _, p := range nullableItems {
			if err := setNullableItems(v.Schema.OpenAPIV3Schema, strings.Split(p, ".")); err != nil {
				return fmt.Errorf("%s: version %s: field %s: %w", file, v.Name, p, err)
			}
		}
		for _, p := range patternItems {
			err := patchItems(v.Schema.OpenAPIV3Schema, strings.Split(p, "."), func(s *apiextensionsv1.JSONSchemaProps) { s.Pattern = *pattern })
			if err != nil {
				return fmt.Errorf("%s: version %s: field %s: %w", file, v.Name, p, err)
			}
		}
	}
	// Encode without the empty status block that a typed CRD always carries (controller-gen drops it too).
	asJSON, err := json.Marshal(crd)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", file, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(asJSON, &doc); err != nil {
		return fmt.Errorf("encoding %s: %w", file, err)
	}
	delete(doc, "status")
	out, err := yaml.Marshal(doc)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", file, err)
	}
	// controller-gen starts every manifest with a document separator; keep that.
	out = append([]byte("---\n"), out...)
	if bytes.Equal(out, data) {
		return nil
	}
	return os.WriteFile(file, out, 0o644)
}

// paths is a repeatable flag of field paths.
type paths []string

func (p *paths) String() string     { return strings.Join(*p, ",") }
func (p *paths) Set(v string) error { *p = append(*p, v); return nil }

// setNullableItems follows path through the properties of schema and marks the items of the array
// found there nullable.
func setNullableItems(schema *apiextensionsv1.JSONSchemaProps, path []string) error {
	return patchItems(schema, path, func(s *apiextensionsv1.JSONSchemaProps) { s.Nullable = true })
}

// patchItems follows path through the properties of schema ("x[]" steps into the items of the
// array x) and changes the item schema of the array found at its end. Properties are map values,
// so each level is written back after the change.
func patchItems(schema *apiextensionsv1.JSONSchemaProps, path []string, change func(*apiextensionsv1.JSONSchemaProps)) error {
	name, intoItems := strings.CutSuffix(path[0], "[]")
	prop, ok := schema.Properties[name]
	if !ok {
		return fmt.Errorf("no property %q", name)
	}
	if len(path) > 1 || intoItems {
		next := &prop
		if intoItems {
			if prop.Type != "array" || prop.Items == nil || prop.Items.Schema == nil {
				return fmt.Errorf("property %q has type %q and no item schema, want an array", name, prop.Type)
			}
			next = prop.Items.Schema
		}
		if len(path) == 1 {
			return fmt.Errorf("path ends inside the items of %q", name)
		}
		if err := patchItems(next, path[1:], change); err != nil {
			return err
		}
	} else {
		if prop.Type != "array" || prop.Items == nil || prop.Items.Schema == nil {
			return fmt.Errorf("property %q has type %q and no item schema, want an array", name, prop.Type)
		}
		change(prop.Items.Schema)
	}
	schema.Properties[name] = prop
	return nil
}
