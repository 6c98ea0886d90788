package plan

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/calico-pilot/calico-pilot/internal/manifestdiff"
	"github.com/calico-pilot/calico-pilot/internal/mrdata"
)

// Shape is how ReadInput read an input.
type Shape string

const (
	// ShapeSecret is a ManagedResource secret: its data keys hold the manifests.
	ShapeSecret Shape = "Secret"
	// ShapeStream is a manifest stream (several documents, Lists expanded).
	ShapeStream Shape = "stream"
)

// ReadInput reads one side of a plan, deciding its shape once from its documents, before anything
// is parsed as objects:
//   - no document (an empty file, only comments or "---") is an error, not "nothing deployed";
//   - exactly one document that is a v1 Secret (a trailing "---" changes nothing), or a List holding
//     exactly one v1 Secret (`kubectl get secret -l ... -o yaml`), is a ManagedResource secret: its
//     data (and stringData) keys are read as the resource manager reads them, every ".br" key
//     decompressed within one budget for the whole input (mrdata.MaxInputDecompressedSize);
//   - a first document that is a v1 Secret followed by more documents is ambiguous (a secret with
//     something appended, or a stream that starts with a Secret) and refused;
//   - anything else is a manifest stream.
//
// An input that yields no object is an error too. ReadInput stops when ctx is done.
func ReadInput(ctx context.Context, p *manifestdiff.Parser, data []byte) (*manifestdiff.Set, Shape, error) {
	docs, err := firstDocuments(data, 2)
	if err != nil {
		// Not decodable as documents: the stream parser names the document and the cause.
		if _, serr := p.Stream("input", data); serr != nil {
			return nil, "", serr
		}
		return nil, "", err
	}
	if len(docs) == 0 {
		return nil, "", errors.New("it holds no YAML or JSON document; give the ManagedResource secret (kubectl get secret NAME -o yaml) or a manifest stream")
	}
	secret, isSecret := secretOf(docs[0])
	if isSecret && len(docs) > 1 {
		return nil, "", errors.New("the first document is a Secret and more documents follow: give the ManagedResource secret alone (one document), or a manifest stream that does not start with a Secret")
	}
	if isSecret {
		set, err := readSecret(ctx, p, secret)
		if err != nil {
			return nil, "", err
		}
		if err := nonEmpty(set, "the Secret's data holds no objects; give the ManagedResource's secret"); err != nil {
			return nil, "", err
		}
		return set, ShapeSecret, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	set, err := p.Stream("input", data)
	if err != nil {
		return nil, "", err
	}
	if err := nonEmpty(set, "it holds no object (an empty List?); give the ManagedResource secret or a manifest stream"); err != nil {
		return nil, "", err
	}
	return set, ShapeStream, nil
}

func nonEmpty(set *manifestdiff.Set, msg string) error {
	if len(set.Objects()) == 0 {
		return errors.New(msg)
	}
	return nil
}

// firstDocuments decodes the non-empty documents of data, at most max of them.
func firstDocuments(data []byte, max int) ([]map[string]any, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var docs []map[string]any
	for len(docs) < max {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(m) > 0 {
			docs = append(docs, m)
		}
	}
	return docs, nil
}

// secretOf returns the v1 Secret doc is, or holds as the only item of a List.
func secretOf(doc map[string]any) (map[string]any, bool) {
	kind, _ := doc["kind"].(string)
	apiVersion, _ := doc["apiVersion"].(string)
	if apiVersion == "v1" && kind == "Secret" {
		return doc, true
	}
	if strings.HasSuffix(kind, "List") {
		items, _ := doc["items"].([]any)
		if len(items) == 1 {
			if item, ok := items[0].(map[string]any); ok {
				if k, _ := item["kind"].(string); k == "Secret" {
					if v, _ := item["apiVersion"].(string); v == "v1" {
						return item, true
					}
				}
			}
		}
	}
	return nil, false
}

func readSecret(ctx context.Context, p *manifestdiff.Parser, doc map[string]any) (*manifestdiff.Set, error) {
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("not a Secret: %w", err)
	}
	var s corev1.Secret
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("not a Secret: %w", err)
	}
	data := make(map[string][]byte, len(s.Data)+len(s.StringData))
	for k, v := range s.Data {
		data[k] = v
	}
	for k, v := range s.StringData { // the API server merges stringData into data
		data[k] = []byte(v)
	}
	if len(data) == 0 {
		return nil, errors.New("the Secret has no data (give the ManagedResource's secret)")
	}
	// One budget for every compressed key of this input, and a decompression that stops on an
	// interrupt: a Parser of its own, so the budget is not shared with the other input.
	budget := mrdata.NewBudget(mrdata.MaxInputDecompressedSize)
	own := *p
	own.Decompressors = map[string]func([]byte) ([]byte, error){
		mrdata.CompressedSuffix: func(b []byte) ([]byte, error) { return budget.Decompress(ctx, b) },
	}
	return own.ManagedResourceData(data)
}
