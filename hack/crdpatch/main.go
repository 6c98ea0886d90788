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
	nullableItems := fs.String("nullable-items", "", "dot-separated path of an array field whose items become nullable")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *nullableItems == "" || fs.NArg() != 1 {
		return errors.New("usage: crdpatch -nullable-items <field.path> <crd.yaml>")
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
		if err := setNullableItems(v.Schema.OpenAPIV3Schema, strings.Split(*nullableItems, ".")); err != nil {
			return fmt.Errorf("%s: version %s: field %s: %w", file, v.Name, *nullableItems, err)
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

// setNullableItems follows path through the properties of schema and marks the items of the array
// found there nullable. Properties are map values, so each level is written back after the change.
func setNullableItems(schema *apiextensionsv1.JSONSchemaProps, path []string) error {
	prop, ok := schema.Properties[path[0]]
	if !ok {
		return fmt.Errorf("no property %q", path[0])
	}
	if len(path) > 1 {
		if err := setNullableItems(&prop, path[1:]); err != nil {
			return err
		}
	} else {
		if prop.Type != "array" || prop.Items == nil || prop.Items.Schema == nil {
			return fmt.Errorf("property %q has type %q and no item schema, want an array", path[0], prop.Type)
		}
		prop.Items.Schema.Nullable = true
	}
	schema.Properties[path[0]] = prop
	return nil
}
