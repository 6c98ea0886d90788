package main

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const testCRD = `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.org
spec:
  group: example.org
  names: {kind: Thing, listKind: ThingList, plural: things, singular: thing}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [old]
            properties:
              old: {type: string}
              mode: {type: string, enum: [A, B]}
              list:
                type: array
                items:
                  type: object
                  properties:
                    cidr: {type: string}
`

func specOf(t *testing.T, out []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := yaml.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	return dig(doc, "spec", "versions").([]any)[0].(map[string]any)
}

func TestDerive(t *testing.T) {
	out, err := derive([]byte(testCRD), []Change{
		{CRD: "things", Delta: "d1", Paths: []string{"spec.old"}, Remove: true},
		{CRD: "things", Delta: "d2", Paths: []string{"spec.new"}, Add: map[string]any{"type": "integer"}},
		{CRD: "things", Delta: "d3", Paths: []string{"spec.mode"}, Unset: []string{"enum"}, Set: map[string]any{"default": "A"}},
		{CRD: "things", Delta: "d4", Paths: []string{"spec.list[]"}, CEL: []map[string]any{{"rule": "has(self.cidr)"}}},
		{CRD: "things", Delta: "d5", Paths: []string{"spec.list[].cidr"}, Set: map[string]any{"format": "cidr"}},
		{CRD: "things", Delta: "d6", StatusSubresource: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	v := specOf(t, out)
	spec := dig(v, "schema", "openAPIV3Schema", "properties", "spec").(map[string]any)
	props := spec["properties"].(map[string]any)
	if _, ok := props["old"]; ok || spec["required"] != nil {
		t.Errorf("old not removed with its required entry: %v", spec)
	}
	if dig(props, "new", "type") != "integer" || dig(props, "mode", "default") != "A" || dig(props, "mode", "enum") != nil {
		t.Errorf("add/set/unset: %v", props)
	}
	items := dig(props, "list", "items").(map[string]any)
	if items["x-kubernetes-validations"] == nil || dig(items, "properties", "cidr", "format") != "cidr" {
		t.Errorf("cel/set in items: %v", items)
	}
	if dig(v, "subresources", "status") == nil {
		t.Errorf("no status subresource: %v", v)
	}
	if !strings.HasPrefix(string(out), "---\n") {
		t.Error("no document separator")
	}
}

func TestDeriveRejects(t *testing.T) {
	for _, tt := range []struct {
		c    Change
		want string
	}{
		{Change{Delta: "x", Paths: []string{"spec.gone"}, Remove: true}, `field "spec.gone": does not exist`},
		{Change{Delta: "x", Paths: []string{"spec.old"}, Add: map[string]any{"type": "string"}}, `field "spec.old": already exists`},
		{Change{Delta: "x", Paths: []string{"spec.nope.x"}, Set: map[string]any{"default": "a"}}, `no property "nope"`},
		{Change{Delta: "x", Paths: []string{"spec.old[]"}, Set: map[string]any{"default": "a"}}, `is not an array`},
		{Change{Delta: "x", Paths: []string{"spec.old"}, Unset: []string{"enum"}}, `has no "enum" to unset`},
		{Change{Delta: "x", Paths: []string{"spec.old"}, Set: map[string]any{"maxLenght": 3}}, `not a CRD`},
	} {
		tt.c.CRD = "things"
		_, err := derive([]byte(testCRD), []Change{tt.c})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: error %v, want %q", tt.c, err, tt.want)
		}
	}
}
