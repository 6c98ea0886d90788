package decode

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// manyDocuments is a stream of n small NetworkConfig documents separated by "---" and a comment.
func manyDocuments(n int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "---\n# document %d\napiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\nkind: NetworkConfig\nvethMTU: \"1440\"\n", i)
	}
	return []byte(b.String())
}

// Finding where each document starts looks at every byte of the stream a bounded number of times,
// however many documents it has (issue 15: counting lines from the start for every document made
// validate quadratic).
func TestSplitDocumentsLinear(t *testing.T) {
	for _, n := range []int{10, 2_000} {
		data := manyDocuments(n)
		lines := &lineCounter{data: data}
		docs, err := splitDocuments(data, lines)
		if err != nil || len(docs) != n {
			t.Fatalf("%d documents: got %d, %v", n, len(docs), err)
		}
		if lines.scanned > 2*len(data) {
			t.Errorf("%d documents: %d bytes looked at for a %d byte stream; want at most twice its size", n, lines.scanned, len(data))
		}
	}
}

// A YAML error in a late document names the line of the stream.
func TestSplitDocumentsLineOfLateDocument(t *testing.T) {
	data := append(manyDocuments(500), "---\nkind: X\nb: [\n"...)
	_, err := SplitDocuments(data)
	want := fmt.Sprintf("document 501 is not valid YAML: yaml: line %d: did not find expected node content", 500*5+3)
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %q", err, want)
	}
}

// BenchmarkSplitDocuments splits streams of 10k and 80k documents: linear means 80k costs about 8x
// 10k (it was 0.8 s and 14 s in `validate`). Run: go test -run '^$' -bench SplitDocuments ./internal/decode/
func BenchmarkSplitDocuments(b *testing.B) {
	for _, n := range []int{10_000, 80_000} {
		data := manyDocuments(n)
		b.Run(fmt.Sprintf("documents=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := SplitDocuments(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Valid JSON with UTF-16 surrogate-pair escapes is read as encoding/json and kubectl read it
// (issue 21 finding 12: "document 1 is not valid YAML: yaml: found invalid Unicode character escape
// code"): a valid JSON document is used as it is; one that is not JSON but starts like it goes to
// the YAML parser with its surrogate pairs rewritten.
func TestSplitDocumentsJSONSurrogates(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":"\ud83d\ude00"}`, "😀"},
		{`{"a":"x\uD83D\uDE00y"}`, "x😀y"},
		{`{"a":"\ud83d"}`, "\ufffd"},                 // a lone high surrogate, as encoding/json
		{`{"a":"\\ud83d\\ude00"}`, `\\ud83d\\ude00`}, // escaped backslashes: text, not escapes
		{`{a: "\ud83d\ude00"}`, "😀"},                 // YAML flow mapping, not JSON
		{`{a: "\ud83d x"}`, "\ufffd x"},
	} {
		docs, err := SplitDocuments([]byte(tc.in))
		if err != nil || len(docs) != 1 {
			t.Errorf("%s: %v %v", tc.in, docs, err)
			continue
		}
		var got struct{ A string }
		if err := json.Unmarshal(docs[0].JSON, &got); err != nil {
			t.Fatal(err)
		}
		want := tc.want
		if err := json.Unmarshal([]byte(`"`+tc.want+`"`), &want); err != nil {
			t.Fatal(err)
		}
		if got.A != want {
			t.Errorf("%s: a = %q, want %q", tc.in, got.A, want)
		}
	}
	if _, err := SplitDocuments([]byte(`{"kind":"Shoot","kind":"x"}`)); err == nil || err.Error() != `document 1 is not valid JSON: duplicate key "kind" in an object` {
		t.Errorf("duplicate key: %v", err)
	}
	if _, err := SplitDocuments([]byte(`{"a":[{"b":1},{"b":2}],"c":{"b":{"b":3}}}`)); err != nil {
		t.Errorf("same key in sibling objects: %v", err)
	}
}
