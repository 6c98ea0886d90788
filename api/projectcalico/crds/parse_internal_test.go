package crds

import (
	"strings"
	"testing"
	"testing/fstest"
)

const validCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.com
spec:
  group: example.com
  names: {kind: Thing, plural: things}
  scope: Cluster
  versions: [{name: v1, served: true, storage: true}]
`

func TestParseRejectsBadManifests(t *testing.T) {
	tests := []struct {
		name    string
		files   fstest.MapFS
		wantErr string
	}{
		{
			name:    "unknown field",
			files:   fstest.MapFS{"a.yaml": {Data: []byte(validCRD + "  bogus: true\n")}},
			wantErr: `decoding CRD manifest a.yaml: error unmarshaling JSON: while decoding JSON: json: unknown field "bogus"`,
		},
		{
			name:    "not a CRD",
			files:   fstest.MapFS{"a.yaml": {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")}},
			wantErr: `decoding CRD manifest a.yaml: kind "ConfigMap" name "x", want a named CustomResourceDefinition`,
		},
		{
			name:    "same CRD twice",
			files:   fstest.MapFS{"a.yaml": {Data: []byte(validCRD)}, "b.yaml": {Data: []byte(validCRD)}},
			wantErr: "CRD things.example.com is defined twice, in a.yaml and b.yaml",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(tt.files)
			if err == nil {
				t.Fatalf("parse succeeded, want error %q", tt.wantErr)
			}
			if err.Error() != tt.wantErr {
				t.Errorf("error\n got: %s\nwant: %s", err, tt.wantErr)
			}
		})
	}
}

func TestParseSortsByCRDName(t *testing.T) {
	// File names sort the other way round from CRD names.
	files := fstest.MapFS{
		"a.yaml": {Data: []byte(strings.ReplaceAll(validCRD, "things", "zebras"))},
		"b.yaml": {Data: []byte(validCRD)},
	}
	p, err := parse(files)
	if err != nil {
		t.Fatal(err)
	}
	if p.crds[0].Name != "things.example.com" || p.crds[1].Name != "zebras.example.com" {
		t.Errorf("CRDs in order %s, %s; want things, zebras", p.crds[0].Name, p.crds[1].Name)
	}
	if p.files[0].Name != "things.example.com" || string(p.files[0].YAML) != validCRD {
		t.Errorf("files[0] is %s, want things.example.com with its own bytes", p.files[0].Name)
	}
}

// BenchmarkParse is the cost of decoding all embedded manifests, which CustomResourceDefinitions pays once.
func BenchmarkParse(b *testing.B) {
	for b.Loop() {
		if _, err := parse(files); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCustomResourceDefinitions is the cost of every call after the first (deep copies of the
// parsed CRDs); compare with BenchmarkParse.
func BenchmarkCustomResourceDefinitions(b *testing.B) {
	if _, err := CustomResourceDefinitionsFor(BaseSet); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := CustomResourceDefinitionsFor(BaseSet); err != nil {
			b.Fatal(err)
		}
	}
}
