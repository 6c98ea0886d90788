package decode

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// Document is one non-empty document of a YAML or JSON stream, converted to JSON.
type Document struct {
	// Index is the position of the document among the non-empty documents of the stream, from 0.
	Index int
	// JSON is the document as JSON.
	JSON []byte
	// APIVersion, Kind, Namespace and Name are read from the document when they are strings.
	APIVersion, Kind, Namespace, Name string
}

// header is the part of every Kubernetes-style document used to route it.
type header struct {
	APIVersion any `json:"apiVersion"`
	Kind       any `json:"kind"`
	Metadata   any `json:"metadata"`
}

// SplitDocuments splits a YAML (or JSON) stream on "---" lines and converts each non-empty document
// to JSON. Documents that are empty or only comments are skipped. An error means the input is not
// YAML, has duplicate keys, or has a document that is not a mapping; it names the document (from 1).
func SplitDocuments(data []byte) ([]Document, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs []Document
	pos := 0
	for n := 1; ; n++ {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading document %d: %w", n, err)
		}
		// The YAML parser counts lines from the start of the document; find where the document
		// starts in the stream so that errors point at the line of the file.
		lineOffset := 0
		if i := bytes.Index(data[pos:], raw); i >= 0 {
			lineOffset = bytes.Count(data[:pos+i], []byte("\n"))
			pos += i + len(raw)
		}
		js, err := yaml.YAMLToJSONStrict(raw)
		if err != nil {
			return nil, fmt.Errorf("document %d is not valid YAML: %s", n, shiftLines(err.Error(), lineOffset))
		}
		js = bytes.TrimSpace(js)
		if len(js) == 0 || bytes.Equal(js, []byte("null")) {
			continue
		}
		if js[0] != '{' {
			return nil, fmt.Errorf("document %d is not a YAML mapping (an object with apiVersion and kind)", n)
		}
		doc := Document{Index: len(docs), JSON: js}
		var h header
		if err := yaml.Unmarshal(js, &h); err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		doc.APIVersion, _ = h.APIVersion.(string)
		doc.Kind, _ = h.Kind.(string)
		if meta, ok := h.Metadata.(map[string]any); ok {
			doc.Name, _ = meta["name"].(string)
			doc.Namespace, _ = meta["namespace"].(string)
		}
		docs = append(docs, doc)
	}
	return docs, nil
}

var lineNumber = regexp.MustCompile(`line (\d+)`)

// shiftLines adds offset to every "line N" in a YAML parser message.
func shiftLines(msg string, offset int) string {
	if offset == 0 {
		return msg
	}
	return lineNumber.ReplaceAllStringFunc(msg, func(m string) string {
		n, err := strconv.Atoi(strings.TrimPrefix(m, "line "))
		if err != nil {
			return m
		}
		return "line " + strconv.Itoa(n+offset)
	})
}
