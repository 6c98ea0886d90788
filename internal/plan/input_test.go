package plan

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/calico-pilot/calico-pilot/internal/mrdata"
	"github.com/calico-pilot/calico-pilot/internal/testcheck"
)

func secretYAML(data map[string]string) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Secret\nmetadata: {name: mr, namespace: shoot--p--s}\ndata:\n")
	for k, v := range data {
		b.WriteString("  " + k + ": " + base64.StdEncoding.EncodeToString([]byte(v)) + "\n")
	}
	return b.String()
}

// compressedCRDs is crdV1 compressed as the ManagedResource secret's CRD key holds it.
func compressedCRDs(t testing.TB) string {
	t.Helper()
	crds, err := mrdata.Compress([]byte(crdV1))
	if err != nil {
		t.Fatal(err)
	}
	return string(crds)
}

func TestReadInputShape(t *testing.T) {
	p, crds := parser(t), compressedCRDs(t)
	secret := secretYAML(map[string]string{"config.yaml": poolOld, "crds.yaml.br": crds})
	for _, tc := range []struct {
		name    string
		in      string
		shape   Shape
		objects int
		err     string
	}{
		{name: "secret", in: secret, shape: ShapeSecret, objects: 2},
		{name: "secret and a trailing separator", in: secret + "---\n", shape: ShapeSecret, objects: 2},
		{name: "JSON secret", in: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"},"stringData":{"a.yaml":"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: d}\n"}}`, shape: ShapeSecret, objects: 1},
		{name: "stream", in: poolOld + "---\n" + crdV1, shape: ShapeStream, objects: 2},
		{name: "stream starting with a ConfigMap and holding a Secret", in: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: d}\n---\n" + secret, shape: ShapeStream, objects: 2},
		{name: "empty", in: "", err: "it holds no YAML or JSON document; give the ManagedResource secret (kubectl get secret NAME -o yaml) or a manifest stream"},
		{name: "blank", in: " \n\n# c\n---\n---\n", err: "it holds no YAML or JSON document; give the ManagedResource secret (kubectl get secret NAME -o yaml) or a manifest stream"},
		{name: "secret then more", in: secret + "---\n" + poolOld, err: "the first document is a Secret and more documents follow: give the ManagedResource secret alone (one document), or a manifest stream that does not start with a Secret"},
		// Found by FuzzReadInput: a truncated JSON document made the stream decoder loop forever.
		{name: "truncated JSON", in: " {", err: "1 problem(s): input document 1: cannot be decoded (the resource manager skips it and reports DecodingFailed): unexpected EOF"},
		{name: "secret whose data holds nothing", in: secretYAML(map[string]string{"config.yaml": "---\n"}), err: "the Secret's data holds no objects; give the ManagedResource's secret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set, shape, err := ReadInput(context.Background(), p, []byte(tc.in))
			if testcheck.Err(t, err, tc.err) {
				return
			}
			if shape != tc.shape || len(set.Objects()) != tc.objects {
				t.Fatalf("shape %s with %d object(s), want %s with %d", shape, len(set.Objects()), tc.shape, tc.objects)
			}
		})
	}
}

func TestReadInputCancelled(t *testing.T) {
	p, crds := parser(t), compressedCRDs(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := ReadInput(ctx, p, []byte(secretYAML(map[string]string{"crds.yaml.br": crds})))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
}

// FuzzReadInput: whatever the bytes, ReadInput returns a set with objects or an error, never
// panics, and a set read as a Secret came from exactly one Secret document.
func FuzzReadInput(f *testing.F) {
	crds := compressedCRDs(f)
	for _, s := range []string{
		"", "---\n", "# only a comment\n", poolOld, poolOld + "---\n" + crdV1,
		secretYAML(map[string]string{"config.yaml": poolOld, "crds.yaml.br": crds}),
		secretYAML(map[string]string{"config.yaml": poolOld}) + "---\n",
		secretYAML(map[string]string{"config.yaml": poolOld}) + "---\n" + poolOld,
		secretYAML(map[string]string{"x.br": "not brotli"}),
		"apiVersion: v1\nkind: List\nitems: []\n", "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Secret, metadata: {name: x}, data: {}}\n",
		`{"apiVersion":"v1","kind":"Secret"}` + "\n" + `{"apiVersion":"v1","kind":"Secret"}`, "[1, 2]", "a: [", "\xff\xfe",
	} {
		f.Add([]byte(s))
	}
	p := parser(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		set, shape, err := ReadInput(context.Background(), p, data)
		if err != nil {
			if set != nil {
				t.Fatal("a set and an error")
			}
			return
		}
		if len(set.Objects()) == 0 {
			t.Fatal("no error for an input without objects")
		}
		if shape == ShapeSecret {
			docs, derr := firstDocuments(data, 2)
			if derr != nil || len(docs) != 1 {
				t.Fatalf("read as a Secret from %d documents (%v)", len(docs), derr)
			}
			if _, ok := secretOf(docs[0]); !ok {
				t.Fatal("read as a Secret from a document that is none")
			}
		}
	})
}
