package lint

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// position is a line and column (1-based, in characters) in the input.
type position struct{ line, column int }

// valueAt is where a value was written and how, so that an offset inside a string value can be
// turned into a column of the file.
type valueAt struct {
	position
	// text is the source line the value starts on.
	text string
	// scalar is the decoded value of a scalar node.
	scalar string
	style  yaml.Style
	kind   yaml.Kind
}

// locator maps field paths (as field.Path prints them: spec.egress[1].destination.selector) of one
// document to where their values are written.
type locator struct {
	values map[string]valueAt
	// keys are where the keys of mapping entries are written.
	keys  map[string]position
	start position
}

// locateDocuments parses the stream once more with a YAML parser that keeps positions, one locator
// per non-empty document (the documents decode.SplitDocuments returns, in order). Positions are
// only for messages: if the stream cannot be parsed this way, the result is nil and findings carry
// no line.
func locateDocuments(data []byte) []*locator {
	lines := strings.Split(string(data), "\n")
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []*locator
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			return nil
		}
		if len(doc.Content) == 0 {
			continue
		}
		root := doc.Content[0]
		if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
			continue
		}
		l := &locator{values: map[string]valueAt{}, keys: map[string]position{}, start: position{root.Line, root.Column}}
		l.walk(root, "", lines)
		out = append(out, l)
	}
}

func (l *locator) walk(n *yaml.Node, path string, lines []string) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	at := valueAt{position: position{n.Line, n.Column}, scalar: n.Value, style: n.Style, kind: n.Kind}
	if n.Line >= 1 && n.Line <= len(lines) {
		at.text = lines[n.Line-1]
	}
	if path != "" {
		l.values[path] = at
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			child := key
			if path != "" {
				child = path + "." + key
			}
			l.keys[child] = position{n.Content[i].Line, n.Content[i].Column}
			l.walk(n.Content[i+1], child, lines)
			// Map entries (labels, annotations) print as path[key] in field paths.
			if path != "" {
				l.walk(n.Content[i+1], path+"["+key+"]", lines)
			}
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			l.walk(item, path+"["+strconv.Itoa(i)+"]", lines)
		}
	}
}

// find returns where the value at path is written or, for a value that is not written (a missing
// required field), the key of its nearest written ancestor (the line of "spec:").
func (l *locator) find(path string) (valueAt, bool) {
	if l == nil {
		return valueAt{}, false
	}
	if v, ok := l.values[path]; ok {
		return v, true
	}
	for p := parentPath(path); p != ""; p = parentPath(p) {
		if k, ok := l.keys[p]; ok {
			return valueAt{position: k}, true
		}
		if v, ok := l.values[p]; ok {
			return valueAt{position: v.position}, true
		}
	}
	return valueAt{position: l.start}, true
}

// parentPath strips the last segment of a field path ("a.b[1]" -> "a.b", "a.b" -> "a").
func parentPath(p string) string {
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i]
		}
	}
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i]
	}
	return ""
}

// columnInValue returns the file position of the character at the 1-based column col of the string
// value at path, when the value is written on one line as it reads (plain, or quoted without
// escapes); otherwise the position of the value itself.
func (l *locator) columnInValue(path string, col int) (position, bool) {
	v, ok := l.find(path)
	if !ok {
		return position{}, false
	}
	if v.kind != yaml.ScalarNode || strings.Contains(v.scalar, "\n") {
		return v.position, true
	}
	quote := 0
	switch v.style {
	case 0:
	case yaml.SingleQuotedStyle, yaml.DoubleQuotedStyle:
		quote = 1
	default:
		return v.position, true
	}
	line := []rune(v.text)
	value := []rune(v.scalar)
	from := v.column - 1 + quote
	if from < 0 || from+len(value) > len(line) || string(line[from:from+len(value)]) != v.scalar {
		return v.position, true
	}
	return position{v.line, v.column + quote + col - 1}, true
}
