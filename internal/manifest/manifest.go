package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

var (
	statusKey       = []byte(`,"status":{`)
	emptyStatusTail = []byte(`,"status":{}}`)
	newline         = []byte{'\n'}
)

// Doc is one encoded object.
type Doc struct {
	// Group, Version, Kind, Namespace and Name identify the object.
	Group, Version, Kind, Namespace, Name string
	// JSON is the compact JSON encoding.
	JSON []byte
}

// ID is the object's identity as "<kind>.<group> <namespace>/<name>" (ObjectKey).
func (d Doc) ID() string {
	return ObjectKey(d.Group, d.Kind, d.Namespace, d.Name)
}

// ObjectKey is how messages and reports name an object: "<Kind>[.<group>] [<namespace>/]<name>",
// e.g. "DaemonSet.apps kube-system/calico-node". The version is not part of it: it is the object's
// identity as the resource manager sees it. With group "" it is "<Kind> [<namespace>/]<name>".
func ObjectKey(group, kind, namespace, name string) string {
	k := kind
	if group != "" {
		k += "." + group
	}
	if namespace == "" {
		return k + " " + name
	}
	return k + " " + namespace + "/" + name
}

// newEncoder returns the encoder for buf. HTML characters are not escaped: the documents are
// read by Kubernetes and people, never embedded in HTML, and scripts stay readable.
func newEncoder(buf *bytes.Buffer) *json.Encoder {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return enc
}

// header returns obj's identity as a Doc without JSON, or why obj cannot be encoded.
func header(obj client.Object) (Doc, error) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" || gvk.Version == "" {
		return Doc{}, fmt.Errorf("encoding %T %q: apiVersion and kind are not set", obj, obj.GetName())
	}
	if obj.GetName() == "" {
		return Doc{}, fmt.Errorf("encoding %s: the object has no name", gvk.Kind)
	}
	return Doc{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}, nil
}

// encodeInto appends obj's document and a newline to buf with enc, which writes to buf, and
// sets d.JSON to the document (without the newline). d.JSON aliases buf's bytes, so buf must
// not be reset while d is in use. One encoder serves all documents of a buffer, and the
// encoder's newline is kept as the separator of the stored stream.
func encodeInto(buf *bytes.Buffer, enc *json.Encoder, obj client.Object, d *Doc) error {
	start := buf.Len()
	if err := enc.Encode(obj); err != nil {
		return fmt.Errorf("encoding %s %q: %w", d.Kind, d.Name, err)
	}
	b := stripStatus(buf.Bytes()[start : buf.Len()-1]) // without Encode's newline
	// Keep the buffer in step with the stripped document, so the next one follows it directly.
	buf.Truncate(start + len(b))
	buf.WriteByte('\n')
	d.JSON = buf.Bytes()[start : start+len(b) : start+len(b)]
	return nil
}

// stripStatus drops the top-level status that typed objects always carry (an empty object, or
// zero counters for a DaemonSet): the API server ignores it in a manifest, so it only costs bytes.
// encoding/json writes status as the last top-level field of Kubernetes types; a nested "status"
// key is never removed, because then the remainder is not a single JSON object.
func stripStatus(b []byte) []byte {
	// Most objects end in an empty status: the same result as the search below, without it.
	if bytes.HasSuffix(b, emptyStatusTail) {
		return append(b[:len(b)-len(emptyStatusTail)], '}')
	}
	// An unset status is short; only the tail is searched, so large documents cost nothing.
	from := max(0, len(b)-statusWindow)
	i := bytes.LastIndex(b[from:], statusKey)
	if i < 0 || b[len(b)-1] != '}' {
		return b
	}
	i += from
	if !json.Valid(b[i+len(statusKey)-1 : len(b)-1]) {
		return b
	}
	return append(b[:i], '}')
}

// statusWindow bounds the status stripStatus removes; a larger (set) status is left alone.
const statusWindow = 1024

// Static holds objects encoded once, to be merged into every Manifest.
type Static struct {
	docs   []Doc
	joined []byte
}

// NewStatic encodes objs once, sorted, and joins them into one stream (see Static.JSON).
func NewStatic(objs []client.Object) (*Static, error) {
	m, err := Build(nil, objs)
	if err != nil {
		return nil, err
	}
	return &Static{docs: m.docs, joined: m.dynamic}, nil
}

// JSON returns the static documents as one stream in the stored format, computed once. Together
// with Manifest.DynamicJSON it lets a caller store the static part under its own key without
// copying it on every render. The returned slice is shared: do not modify it.
func (s *Static) JSON() []byte { return s.joined }

// Manifest is a sorted, duplicate-free set of encoded objects.
type Manifest struct {
	docs []Doc
	// dynamic is the stored form of the documents that did not come from the Static, in
	// order: Build encodes them sorted, so their buffer is this stream.
	dynamic []byte
	// static is the number of documents from the Static.
	static int
}

// pending is an object whose document is not encoded yet, or (obj nil) a document encoded
// earlier whose bytes are copied in.
type pending struct {
	doc Doc
	obj client.Object
}

// Build encodes objs, merges the static documents (nil for none), sorts them and rejects duplicates.
//
// The objects are sorted by identity before they are encoded, so their documents land in one
// buffer in stored order (DynamicJSON needs no copy), and only the merge with the static
// documents, sorted once in NewStatic, remains per render.
//
// The documents of each of pre, encoded once like static's, are copied into that buffer in
// their sorted places instead of being encoded again: unlike static's they belong to the
// dynamic part (DynamicJSON), for constant objects that only some renders include.
func Build(static *Static, objs []client.Object, pre ...*Static) (*Manifest, error) {
	n, size := len(objs), 1024*len(objs)
	for _, p := range pre {
		n += len(p.docs)
		size += len(p.joined)
	}
	ps := make([]pending, 0, n)
	for _, o := range objs {
		d, err := header(o)
		if err != nil {
			return nil, err
		}
		ps = append(ps, pending{doc: d, obj: o})
	}
	for _, p := range pre {
		for _, d := range p.docs {
			ps = append(ps, pending{doc: d})
		}
	}
	slices.SortFunc(ps, func(a, b pending) int { return compareDocs(a.doc, b.doc) })
	var staticDocs []Doc
	if static != nil {
		staticDocs = static.docs
	}
	docs := make([]Doc, 0, len(ps)+len(staticDocs))
	// One buffer for all documents: a few large allocations instead of one per object.
	var buf bytes.Buffer
	buf.Grow(size)
	enc := newEncoder(&buf)
	for i := range ps {
		if ps[i].obj == nil {
			// Encoded once already (Static documents carry no status to strip).
			buf.Write(ps[i].doc.JSON)
			buf.WriteByte('\n')
		} else if err := encodeInto(&buf, enc, ps[i].obj, &ps[i].doc); err != nil {
			return nil, err
		}
		docs = append(docs, ps[i].doc)
	}
	// If the buffer grew, earlier documents alias its old arrays; point them all at the final
	// one (the documents follow each other, one newline apart), so only it stays alive.
	b := buf.Bytes()
	off := 0
	for i := range docs {
		n := len(docs[i].JSON)
		docs[i].JSON = b[off : off+n : off+n]
		off += n + 1
	}
	// The static documents are sorted once in NewStatic; merging keeps Build from re-sorting
	// them on every render.
	docs = merge(docs, staticDocs)
	for i := 1; i < len(docs); i++ {
		if compareDocs(docs[i-1], docs[i]) == 0 {
			return nil, fmt.Errorf("building manifest: duplicate object %s", docs[i].ID())
		}
	}
	return &Manifest{docs: docs, dynamic: b[:len(b):len(b)], static: len(staticDocs)}, nil
}

// merge merges the sorted list b into the sorted list a, from the back, so that a's spare
// capacity is used and nothing else is allocated; equal documents (duplicates, which Build
// rejects) end up next to each other.
func merge(a, b []Doc) []Doc {
	i, j := len(a)-1, len(b)-1
	a = slices.Grow(a, len(b))[:len(a)+len(b)]
	for k := len(a) - 1; j >= 0; k-- {
		if i >= 0 && compareDocs(a[i], b[j]) > 0 {
			a[k] = a[i]
			i--
		} else {
			a[k] = b[j]
			j--
		}
	}
	return a
}

// compareDocs orders documents by kind, namespace, name and group. It stops at the first field
// that differs (cmp.Or would compare all four every time).
func compareDocs(a, b Doc) int {
	if c := strings.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	return strings.Compare(a.Group, b.Group)
}

// Docs returns the sorted documents.
func (m *Manifest) Docs() []Doc { return m.docs }

// Len is the number of objects.
func (m *Manifest) Len() int { return len(m.docs) }

// JSON returns the stored form: one compact JSON object per line. Both old resource managers
// (which pick JSON from the first byte) and new ones decode this stream.
// Without static documents it is the stream Build encoded, shared: do not modify it.
func (m *Manifest) JSON() []byte {
	if m.static == 0 {
		return m.dynamic
	}
	// bytes.Join allocates its result without zeroing it first (it is overwritten at once),
	// which for the ~250 KB stored form is a measurable part of the copy. The empty last part
	// gives the final newline.
	parts := make([][]byte, len(m.docs)+1)
	for i, d := range m.docs {
		parts[i] = d.JSON
	}
	return bytes.Join(parts, newline)
}

// DynamicJSON returns the stored form of the documents that did not come from the Static. It is
// the stream Build encoded, shared: do not modify it.
func (m *Manifest) DynamicJSON() []byte { return m.dynamic }

// YAML returns a multi-document YAML stream for people, each document starting with "---".
func (m *Manifest) YAML() ([]byte, error) {
	var buf bytes.Buffer
	for _, d := range m.docs {
		y, err := yaml.JSONToYAML(d.JSON)
		if err != nil {
			return nil, fmt.Errorf("converting %s to YAML: %w", d.ID(), err)
		}
		buf.WriteString("---\n")
		buf.Write(y)
	}
	return buf.Bytes(), nil
}

// List returns the objects as one indented JSON v1 List (what kubectl prints for -o json).
func (m *Manifest) List() ([]byte, error) {
	items := make([]json.RawMessage, len(m.docs))
	for i, d := range m.docs {
		items[i] = d.JSON
	}
	b, err := json.MarshalIndent(struct {
		APIVersion string            `json:"apiVersion"`
		Kind       string            `json:"kind"`
		Items      []json.RawMessage `json:"items"`
	}{"v1", "List", items}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding list: %w", err)
	}
	return append(b, '\n'), nil
}

// FileName is a stable, unique file name for a document: <kind>[.<group>]_[<namespace>_]<name>.yaml.
func FileName(d Doc) string {
	k := strings.ToLower(d.Kind)
	if d.Group != "" {
		k += "." + d.Group
	}
	parts := []string{k}
	if d.Namespace != "" {
		parts = append(parts, d.Namespace)
	}
	parts = append(parts, d.Name)
	return strings.ReplaceAll(strings.Join(parts, "_"), "/", "-") + ".yaml"
}

// GVK returns the document's group, version and kind.
func (d Doc) GVK() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: d.Group, Version: d.Version, Kind: d.Kind}
}
