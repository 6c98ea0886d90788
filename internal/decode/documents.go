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
	"unicode/utf16"
	"unicode/utf8"

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
		var js []byte
		if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' && json.Valid(t) {
			// A JSON document is used as it is (after the duplicate-key check YAMLToJSONStrict
			// would make): parsing it as YAML cost ~30× its size in memory for a large List.
			if err := jsonDuplicateKeys(t); err != nil {
				return nil, fmt.Errorf("document %d is not valid JSON: %w", n, err)
			}
			js = t
		} else {
			if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
				raw = jsonSurrogates(raw)
			}
			var err error
			if js, err = yaml.YAMLToJSONStrict(raw); err != nil {
				return nil, fmt.Errorf("document %d is not valid YAML: %s", n, shiftLines(err.Error(), lineOffset))
			}
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

// jsonSurrogates rewrites the UTF-16 surrogate pairs of a JSON document's string escapes
// ("\ud83d\ude00") as the UTF-8 of the character they encode, and a lone surrogate as "\ufffd",
// as encoding/json (and so kubectl) reads them. The YAML parser that turns documents into JSON
// refuses surrogate escapes, so valid JSON was refused as "not valid YAML". In JSON, "\u" occurs
// only inside strings; a backslash that is itself escaped ("\\ud83d") is left alone.
func jsonSurrogates(doc []byte) []byte {
	if !bytes.Contains(doc, []byte(`\u`)) && !bytes.Contains(doc, []byte(`\U`)) {
		return doc
	}
	var out []byte
	last := 0
	for i := 0; i < len(doc); i++ {
		if doc[i] != '\\' {
			continue
		}
		if i+1 < len(doc) && doc[i+1] != 'u' {
			i++ // an escape of another character, "\\" included
			continue
		}
		hi, ok := hex4(doc, i+2)
		if !ok || hi < 0xd800 || hi > 0xdfff {
			i++
			continue
		}
		end, r := i+6, rune(0xfffd)
		if hi <= 0xdbff && end+1 < len(doc) && doc[end] == '\\' && doc[end+1] == 'u' {
			if lo, ok := hex4(doc, end+2); ok && lo >= 0xdc00 && lo <= 0xdfff {
				r, end = utf16.DecodeRune(rune(hi), rune(lo)), end+6
			}
		}
		out = append(out, doc[last:i]...)
		if r == 0xfffd {
			out = append(out, `\ufffd`...)
		} else {
			out = utf8.AppendRune(out, r)
		}
		last = end
		i = end - 1
	}
	if out == nil {
		return doc
	}
	return append(out, doc[last:]...)
}

// hex4 reads four hex digits at doc[i:].
func hex4(doc []byte, i int) (int, bool) {
	if i+4 > len(doc) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(doc[i:i+4]), 16, 16)
	return int(v), err == nil
}

// jsonDuplicateKeys reports the first object key of a JSON value that appears twice in its object
// (what the strict YAML conversion refuses), walking the tokens without building the value.
func jsonDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		keys   map[string]bool
		object bool
		key    bool // the next token of an object is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.key {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				continue
			}
			k, _ := tok.(string)
			if top.keys[k] {
				return fmt.Errorf("duplicate key %q in an object", k)
			}
			top.keys[k] = true
			top.key = false
			continue
		}
		if top != nil && top.object {
			top.key = true // this token is the value
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, object: true, key: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
	}
}
