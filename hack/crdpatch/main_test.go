package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func schema() *apiextensionsv1.JSONSchemaProps {
	return &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"allocations": {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "integer"}}},
			"cidr":        {Type: "string"},
		}},
	}}
}

func TestSetNullableItems(t *testing.T) {
	tests := []struct {
		name    string
		path    []string
		wantErr string
	}{
		{name: "array found", path: []string{"spec", "allocations"}},
		{name: "missing property", path: []string{"spec", "nope"}, wantErr: `no property "nope"`},
		{name: "not an array", path: []string{"spec", "cidr"}, wantErr: `property "cidr" has type "string" and no item schema, want an array`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := schema()
			err := setNullableItems(s, tt.path)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tt.wantErr {
				t.Fatalf("error %q, want %q", gotErr, tt.wantErr)
			}
			want := schema()
			if tt.wantErr == "" {
				want.Properties["spec"].Properties["allocations"].Items.Schema.Nullable = true
			}
			if diff := cmp.Diff(want, s); diff != "" {
				t.Errorf("schema after patch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPatchItemsThroughArrays(t *testing.T) {
	s := &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"ingress": {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{
				Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"ports": {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{XIntOrString: true}}},
				},
			}}},
		}},
	}}
	set := func(p *apiextensionsv1.JSONSchemaProps) { p.Pattern = "^.*" }
	if err := patchItems(s, []string{"spec", "ingress[]", "ports"}, set); err != nil {
		t.Fatal(err)
	}
	got := s.Properties["spec"].Properties["ingress"].Items.Schema.Properties["ports"].Items.Schema.Pattern
	if got != "^.*" {
		t.Errorf("pattern of spec.ingress[].ports items = %q, want ^.*", got)
	}
	for _, bad := range [][]string{{"spec", "nope"}, {"spec", "ingress[]"}, {"spec[]", "ingress"}} {
		if err := patchItems(s, bad, set); err == nil {
			t.Errorf("path %v: no error", bad)
		}
	}
}
