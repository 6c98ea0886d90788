package decode

import (
	"bufio"
	"bytes"
	"encoding/json"
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
	return splitDocuments(data, &lineCounter{data: data})
}

// lineCounter finds where each document starts in the stream, counting lines only over the bytes
// between the previous document and this one: once over the stream in all (counting from the start
// for every document made `validate` quadratic in the number of documents).
type lineCounter struct {
	data []byte
	pos  int // bytes of data consumed
	line int // newlines in data[:pos]
	// scanned counts the bytes looked at, for the test that keeps this linear.
	scanned int
}

// start returns the number of lines before raw, the next document, and moves past it.
func (c *lineCounter) start(raw []byte) int {
	i := bytes.Index(c.data[c.pos:], raw)
	if i < 0 {
		c.scanned += len(c.data) - c.pos
		return c.line
	}
	c.line += bytes.Count(c.data[c.pos:c.pos+i], []byte("\n"))
	offset := c.line
	c.line += bytes.Count(raw, []byte("\n"))
	c.pos += i + len(raw)
	c.scanned += 2 * (i + len(raw)) // Index and Count each pass over them
	return offset
}

func splitDocuments(data []byte, lines *lineCounter) ([]Document, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs []Document
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
		lineOffset := lines.start(raw)
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
		if err := json.Unmarshal(js, &h); err != nil {
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

// JoinPath prepends prefix (a document's or list item's path, e.g. "documents[2]") to a field path,
// as the CLI reports findings of multi-document input: "documents[2].spec.x", "items[0][1]".
func JoinPath(prefix, path string) string {
	switch {
	case prefix == "":
		return path
	case path == "":
		return prefix
	case strings.HasPrefix(path, "["):
		return prefix + path
	default:
		return prefix + "." + path
	}
}
