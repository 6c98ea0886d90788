package manifestdiff

import (
	"bytes"
	"testing"
)

// FuzzManagedResourceData feeds arbitrary bytes to the stream parser: it must not panic, must
// return the same set for the same input, and a set must compare equal to itself.
func FuzzManagedResourceData(f *testing.F) {
	f.Add([]byte(calicoNode))
	f.Add(stream(calicoConfig, ipPool, secret))
	f.Add([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}` + "\n" + `{"apiVersion":"v1","kind":"List","items":[]}`))
	f.Add([]byte("---\nnull\n---\n{\n"))
	f.Add([]byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":7}}`))
	f.Add([]byte("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {a: b}\ndata: {c: 1}\n"))
	p, err := NewParser()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := p.ManagedResourceData(map[string][]byte{"k": data})
		if err != nil {
			t.Fatal(err)
		}
		b, err := p.ManagedResourceData(map[string][]byte{"k": data})
		if err != nil {
			t.Fatal(err)
		}
		d := Compare(a, b)
		if len(d.Objects) != 0 {
			t.Fatalf("same input differs from itself: %v", lines(d))
		}
		DefaultClassifier().Classify(Compare(a, NewSet()))
		var out1, out2 bytes.Buffer
		if err := classified(NewSet(), a).WriteJSON(&out1); err != nil {
			t.Fatal(err)
		}
		if err := classified(NewSet(), b).WriteJSON(&out2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out1.Bytes(), out2.Bytes()) {
			t.Fatal("JSON output is not deterministic")
		}
		if _, err := p.Stream("s", data); err != nil {
			return // rejecting bad input is fine; panicking is not
		}
	})
}
