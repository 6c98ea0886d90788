package bump

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// line is one line of a (masked) input with its structural identity.
type line struct {
	// text is the masked line without its newline.
	text string
	// doc identifies the YAML document: kind/namespace/name, or a positional name.
	doc string
	// path is the key path of the node that starts on this line (".spec.template...",
	// list items as [name=x], [key=x], [=scalar] or []). Empty for comments, blank lines and
	// the continuation lines of multi-line scalars.
	path string
	// num is the 1-based line number in the input file (documents may be reordered).
	num int
}

// isComment reports whether the line is a whole-line YAML comment.
func (l line) isComment() bool {
	return strings.HasPrefix(strings.TrimLeft(l.text, " \t"), "#")
}

// isBlank reports whether the line holds only whitespace.
func (l line) isBlank() bool { return strings.TrimSpace(l.text) == "" }

// document is the parsed form of one input.
type document struct {
	name  string // for error messages: the file name the user gave
	lines []line
	// trailingNewline records whether the input ended with a newline.
	trailingNewline bool
}

// InputError is returned for input that cannot be read as YAML after masking.
type InputError struct {
	File   string
	Line   int
	Reason string
}

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Reason)
}

var yamlErrLine = regexp.MustCompile(`line ([0-9]+): (.*)`)

// isDocSeparator reports whether a line starts a new YAML document ("---" alone or followed by
// whitespace).
func isDocSeparator(text string) bool {
	return strings.HasPrefix(text, "---") && (len(text) == 3 || text[3] == ' ' || text[3] == '\t' || text[3] == '\r')
}

// splitLines splits text into lines without their newline characters.
func splitLines(text string) ([]string, bool) {
	if text == "" {
		return nil, false
	}
	trailing := strings.HasSuffix(text, "\n")
	if trailing {
		text = text[:len(text)-1]
	}
	return strings.Split(text, "\n"), trailing
}

// parseDocument splits masked text into YAML documents and gives every line its identity.
// A cancelled ctx stops it between YAML documents with ctx.Err().
func parseDocument(ctx context.Context, name, masked string) (*document, error) {
	texts, trailing := splitLines(masked)
	d := &document{name: name, lines: make([]line, len(texts)), trailingNewline: trailing}
	for i, t := range texts {
		d.lines[i].text = t
		d.lines[i].num = i + 1
	}
	seen := map[string]int{}
	for start := 0; start < len(texts); {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("bump cancelled: %w", err)
		}
		end := start + 1
		for end < len(texts) && !isDocSeparator(texts[end]) {
			end++
		}
		var root yaml.Node
		if err := yaml.Unmarshal([]byte(strings.Join(texts[start:end], "\n")), &root); err != nil {
			return nil, yamlInputError(name, texts[start:end], start, err)
		}
		id := d.documentName(&root, texts, start, end, seen)
		for i := start; i < end; i++ {
			d.lines[i].doc = id
		}
		if len(root.Content) > 0 {
			assignPaths(d.lines[start:end], root.Content[0], "")
		}
		start = end
	}
	return d, nil
}

// documentName returns the identity of the YAML document (root) in texts[start:end]: its kind and
// name, the preamble, the document before it when it is empty, or its first line of text; the
// second and later documents of one identity get "#2", "#3", ... (seen counts them).
func (d *document) documentName(root *yaml.Node, texts []string, start, end int, seen map[string]int) string {
	id := documentID(root)
	first := firstText(texts[start:end])
	switch {
	case id != "":
	case start == 0 && !isDocSeparator(texts[0]):
		id = "(preamble)"
	case first == "" && start > 0:
		// An empty document has no identity of its own: it stays with the one before.
		id = d.lines[start-1].doc
	default:
		// A document without kind and name (only comments): named by its first line of
		// text, which is stabler than its position.
		id = "(document " + first + ")"
	}
	if first != "" || start == 0 {
		seen[id]++
		if seen[id] > 1 {
			id += "#" + strconv.Itoa(seen[id])
		}
	}
	return id
}

func yamlInputError(name string, chunk []string, chunkStart int, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	m := yamlErrLine.FindStringSubmatch(msg)
	if m == nil {
		return &InputError{File: name, Line: chunkStart + 1, Reason: "not valid YAML (after masking templates): " + msg}
	}
	n, convErr := strconv.Atoi(m[1])
	if convErr != nil {
		n = 1
	}
	reason := m[2]
	if isParserError(reason) {
		// yaml.v3 reports parser errors at the 0-based line of the enclosing construct
		// (scanner errors are 1-based and exact). Find the first line that makes a prefix of
		// the document fail the same way: that is where the problem is.
		n = problemLine(chunk, n+1, reason)
	}
	return &InputError{File: name, Line: chunkStart + n, Reason: "not valid YAML (after masking templates): " + reason}
}

// problemLine returns the smallest k >= from such that the first k lines of chunk fail to parse
// with reason (binary search; failing is monotonic once the bad line is included).
func problemLine(chunk []string, from int, reason string) int {
	fails := func(k int) bool {
		var n yaml.Node
		err := yaml.Unmarshal([]byte(strings.Join(chunk[:k], "\n")+"\n"), &n)
		return err != nil && strings.HasSuffix(err.Error(), reason)
	}
	lo, hi := max(from, 1), len(chunk)
	if lo > hi || !fails(hi) {
		return min(from, len(chunk))
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// firstText returns the first line of a document that is neither its "---" line nor blank, or
// "" for an empty document.
func firstText(lines []string) string {
	for i, l := range lines {
		if i == 0 && isDocSeparator(l) {
			continue
		}
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}

// isParserError tells yaml.v3's parser errors ("did not find expected key", ...) from its scanner
// errors, which number lines differently.
func isParserError(reason string) bool {
	if !strings.HasPrefix(reason, "did not find expected ") {
		return false
	}
	for _, scanner := range []string{"character", "line break", "hexdecimal"} {
		if strings.Contains(reason, scanner) {
			return false
		}
	}
	return true
}

// documentID names a document by kind, namespace and name.
func documentID(root *yaml.Node) string {
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return ""
	}
	top := root.Content[0]
	kind := scalarField(top, "kind")
	var ns, name string
	if meta := mappingField(top, "metadata"); meta != nil {
		ns = scalarField(meta, "namespace")
		name = scalarField(meta, "name")
	}
	if kind == "" && name == "" {
		return ""
	}
	if ns != "" {
		return kind + "/" + ns + "/" + name
	}
	return kind + "/" + name
}

func mappingField(m *yaml.Node, key string) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func scalarField(m *yaml.Node, key string) string {
	if v := mappingField(m, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// itemSegment names a sequence item by its identifying field, so list items keep their identity
// when upstream inserts or removes siblings.
func itemSegment(item *yaml.Node) string {
	switch item.Kind {
	case yaml.MappingNode:
		for _, k := range []string{"name", "key"} {
			if v := scalarField(item, k); v != "" {
				return "[" + k + "=" + v + "]"
			}
		}
	case yaml.ScalarNode:
		return "[=" + item.Value + "]"
	}
	return "[]"
}

// assignPaths records, for each line, the path of the outermost node that starts on it.
// Node line numbers are 1-based within the chunk.
func assignPaths(lines []line, n *yaml.Node, path string) {
	set := func(l int, p string) {
		if l >= 1 && l <= len(lines) && lines[l-1].path == "" {
			lines[l-1].path = p
		}
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := path + "." + k.Value
			set(k.Line, p)
			assignPaths(lines, v, p)
		}
	case yaml.SequenceNode:
		for _, item := range n.Content {
			p := path + itemSegment(item)
			set(item.Line, p)
			assignPaths(lines, item, p)
		}
	case yaml.AliasNode, yaml.ScalarNode, yaml.DocumentNode:
	}
}

// docSpan is one document's line range in a document.
type docSpan struct {
	id         string
	start, end int
}

func (d *document) spans() []docSpan {
	var out []docSpan
	for i, l := range d.lines {
		if len(out) == 0 || out[len(out)-1].id != l.doc {
			out = append(out, docSpan{id: l.doc, start: i})
		}
		out[len(out)-1].end = i + 1
	}
	return out
}

// reorderLike rearranges d's documents into the order reference has them, so that documents
// upstream moved are aligned with their own counterparts instead of looking deleted and
// re-added. Documents reference lacks keep their place after the document that precedes them
// in d.
func (d *document) reorderLike(reference map[string][3]int, level int) map[string][3]int {
	spans := d.spans()
	keys := make([][3]int, len(spans))
	prev := [3]int{-1, 0, 0}
	for i, sp := range spans {
		if k, ok := reference[sp.id]; ok {
			keys[i] = k
		} else {
			k := prev
			k[level]++
			keys[i] = k
		}
		prev = keys[i]
	}
	order := make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	less := func(a, b [3]int) bool {
		for k := 0; k < 3; k++ {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return false
	}
	sort.SliceStable(order, func(x, y int) bool { return less(keys[order[x]], keys[order[y]]) })
	lines := make([]line, 0, len(d.lines))
	own := make(map[string][3]int, len(spans))
	for _, i := range order {
		lines = append(lines, d.lines[spans[i].start:spans[i].end]...)
		own[spans[i].id] = keys[i]
	}
	d.lines = lines
	return own
}

// positions maps each document of d to its position (its sort key when others are reordered
// like it).
func (d *document) positions() map[string][3]int {
	out := map[string][3]int{}
	for i, sp := range d.spans() {
		out[sp.id] = [3]int{i, 0, 0}
	}
	return out
}

// reordered reports whether d has documents of reference in another order than reference.
func reordered(d *document, reference map[string][3]int) bool {
	last := -1
	for _, sp := range d.spans() {
		if p, ok := reference[sp.id]; ok {
			if p[0] < last {
				return true
			}
			last = p[0]
		}
	}
	return false
}
