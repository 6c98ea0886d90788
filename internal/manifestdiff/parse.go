package manifestdiff

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/mrdata"
)

// Parser turns manifests into normalized Sets. Normalizing makes two manifests that the API server
// would store identically compare equal, whichever tool wrote them:
//
//   - built-in kinds are converted to their Go type and back (so "0.25" and "250m" CPU are equal, and
//     `resources: {}` equals no resources), as the API server does when it decodes them, and
//     workloads get the defaults the API server fills in before storing them (defaults.go: a field
//     left to its default equals the default written out), unless AsStored is set;
//   - null values are removed (null means unset);
//   - Secret stringData is merged into data (the API server does the same on write);
//   - status and the metadata the API server or the resource manager own are removed (see
//     IgnoredAnnotations, IgnoredLabels and ignoredMetadata);
//   - a namespaced kind without a namespace gets "default" and a cluster-scoped kind loses its
//     namespace, as the resource manager does.
type Parser struct {
	scheme *runtime.Scheme
	// Decompressors maps a data-key suffix to the function that decompresses a value with that
	// suffix. The resource manager Brotli-decompresses keys ending in ".br" (Gardener's own registry
	// writes "data.yaml.br"; calico-pilot writes its CRDs as "crds.yaml.br"); NewParser registers
	// mrdata.Decompress for it. A suffix without a decompressor is an error.
	Decompressors map[string]func([]byte) ([]byte, error)
	// IgnoredLabels and IgnoredAnnotations are removed from every object's metadata and pod
	// template metadata before comparing. NewParser fills them with the keys the resource manager,
	// kubectl and the workload controllers write; add the ManagedResource's spec.injectLabels when
	// comparing live objects with manifests.
	IgnoredLabels      map[string]bool
	IgnoredAnnotations map[string]bool
	// AsStored skips the API server's defaults (defaults.go): for objects read back from an API
	// server, which carries them already, or to compare manifests exactly as written.
	AsStored bool
}

// NewParser returns a Parser that knows the Go types of the Kubernetes built-in kinds.
func NewParser() (*Parser, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, fmt.Errorf("building the scheme of built-in kinds: %w", err)
	}
	return &Parser{
		scheme:        s,
		Decompressors: map[string]func([]byte) ([]byte, error){mrdata.CompressedSuffix: mrdata.Decompress},
		IgnoredLabels: map[string]bool{
			resourcesv1alpha1.LabelManagedBy: true, // written by the resource manager
		},
		IgnoredAnnotations: map[string]bool{
			resourcesv1alpha1.AnnotationOrigin:                 true, // written by the resource manager
			"resources.gardener.cloud/description":             true, // written by the resource manager
			"kubectl.kubernetes.io/last-applied-configuration": true, // kubectl's copy; may hold Secret data
			"kubectl.kubernetes.io/restartedAt":                true, // kept from the live template by the resource manager
			"deprecated.daemonset.template.generation":         true, // DaemonSet controller
			"deployment.kubernetes.io/revision":                true, // Deployment controller
		},
	}, nil
}

// ignoredMetadata are the metadata fields the API server owns. The resource manager also keeps the
// live value of every other metadata field except labels, annotations and ownerReferences; such
// differences are still shown, and the classifier says they are not applied.
var ignoredMetadata = []string{"resourceVersion", "uid", "generation", "creationTimestamp", "managedFields",
	"selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"}

// ManagedResourceData parses the data of a ManagedResource's secret(s) exactly as Gardener's
// resource manager reads it (docs/gardener-api-types.md §3.5): keys in sorted order, a ".br"
// key decompressed first, each value read with apimachinery's YAML-or-JSON stream decoder, null and
// empty documents skipped. Like the resource manager, a document that does not decode is skipped and
// the others are kept; each skipped document becomes a Set.Problem. The resource manager does not
// expand `kind: List` documents (it fails to apply them), so neither does this; they are problems.
// Pass the data of every secret of spec.secretRefs merged into one map (keys are unique in practice;
// the resource manager reads the secrets in order).
func (p *Parser) ManagedResourceData(data map[string][]byte) (*Set, error) {
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	set := NewSet()
	var docs []rawDoc
	for _, k := range keys {
		value := data[k]
		if strings.HasSuffix(k, ".br") {
			dec := p.Decompressors[".br"]
			if dec == nil {
				return nil, fmt.Errorf("secret data key %q is Brotli-compressed (the resource manager decompresses keys ending in \".br\"), and no decompressor for \".br\" is registered in Parser.Decompressors", k)
			}
			var err error
			if value, err = dec(value); err != nil {
				return nil, fmt.Errorf("decompressing secret data key %q: %w", k, err)
			}
		}
		d, problems := decodeStream(fmt.Sprintf("key %q", k), value, false)
		docs = append(docs, d...)
		set.Problems = append(set.Problems, problems...)
	}
	p.addAll(set, docs)
	return set, nil
}

// Stream parses one YAML or JSON stream (a file a person wrote, or `kubectl get -o yaml` output).
// Unlike ManagedResourceData, `kind: List` documents are expanded into their items, and any
// document that cannot be decoded is an error naming it.
func (p *Parser) Stream(source string, data []byte) (*Set, error) {
	docs, problems := decodeStream(source, data, true)
	if len(problems) > 0 {
		return nil, (&Set{Problems: problems}).Err()
	}
	set := NewSet()
	p.addAll(set, docs)
	if len(set.Problems) > 0 {
		return nil, set.Err()
	}
	return set, nil
}

// Objects builds a Set from typed or unstructured objects (what render returns). Every object must
// have its apiVersion and kind set.
func (p *Parser) Objects(objs []client.Object) (*Set, error) {
	docs := make([]rawDoc, 0, len(objs))
	for i, obj := range objs {
		source := fmt.Sprintf("object %d", i+1)
		var m map[string]any
		if u, ok := obj.(*unstructured.Unstructured); ok {
			m = runtime.DeepCopyJSON(u.Object)
		} else {
			var err error
			if m, err = runtime.DefaultUnstructuredConverter.ToUnstructured(obj); err != nil {
				return nil, fmt.Errorf("%s (%T %q): %w", source, obj, obj.GetName(), err)
			}
		}
		if err := checkHeader(m); err != nil {
			return nil, fmt.Errorf("%s (%T %q): %w", source, obj, obj.GetName(), err)
		}
		docs = append(docs, rawDoc{source: source, obj: m})
	}
	set := NewSet()
	p.addAll(set, docs)
	if len(set.Problems) > 0 {
		return nil, set.Err()
	}
	return set, nil
}

// rawDoc is a decoded document before normalization.
type rawDoc struct {
	source string
	obj    map[string]any
}

// decodeStream reads every document of a stream with the resource manager's decoder.
func decodeStream(source string, data []byte, expandLists bool) ([]rawDoc, []Problem) {
	var docs []rawDoc
	var problems []Problem
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for n := 1; ; n++ {
		src := fmt.Sprintf("%s document %d", source, n)
		var u unstructured.Unstructured
		err := dec.Decode(&u)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			problems = append(problems, Problem{Source: src, Message: "cannot be decoded (the resource manager skips it and reports DecodingFailed): " + err.Error()})
			if isSyntaxError(err) || n > len(data) {
				// The decoder cannot find the next document after a syntax error. Every document
				// takes at least one byte, so more errors than bytes mean a decoder that returns
				// the same error for ever (found by plan's FuzzReadInput).
				break
			}
			continue
		}
		if len(u.Object) == 0 {
			continue
		}
		if items, ok := u.Object["items"]; ok && strings.HasSuffix(u.GetKind(), "List") {
			if !expandLists {
				problems = append(problems, Problem{Source: src, Message: fmt.Sprintf("is a %s; the resource manager does not expand lists and fails to apply it: put each object in its own document", u.GetKind())})
				continue
			}
			list, _ := items.([]any)
			if items != nil && list == nil {
				problems = append(problems, Problem{Source: src, Message: fmt.Sprintf("%s items must be a list", u.GetKind())})
				continue
			}
			for i, it := range list {
				isrc := fmt.Sprintf("%s item %d", src, i+1)
				m, ok := it.(map[string]any)
				if !ok {
					problems = append(problems, Problem{Source: isrc, Message: "is not an object"})
					continue
				}
				if err := checkHeader(m); err != nil {
					problems = append(problems, Problem{Source: isrc, Message: err.Error()})
					continue
				}
				docs = append(docs, rawDoc{source: isrc, obj: m})
			}
			continue
		}
		if err := checkHeader(u.Object); err != nil {
			problems = append(problems, Problem{Source: src, Message: err.Error() + " (the resource manager cannot apply it)"})
			continue
		}
		docs = append(docs, rawDoc{source: src, obj: u.Object})
	}
	return docs, problems
}

// isSyntaxError tells whether err leaves the stream decoder unable to continue.
func isSyntaxError(err error) bool {
	var ys *utilyaml.YAMLSyntaxError
	var js *utilyaml.JSONSyntaxError
	// A truncated JSON document (" {") is io.ErrUnexpectedEOF, and the decoder returns it again on
	// every call: the stream cannot go on either (found by plan's FuzzReadInput: it looped forever).
	return errors.As(err, &ys) || errors.As(err, &js) || errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "yaml:") ||
		strings.Contains(err.Error(), "invalid character") || strings.Contains(err.Error(), "decoding failed as both JSON and YAML")
}

// checkHeader requires apiVersion, kind and metadata.name as strings.
func checkHeader(m map[string]any) error {
	av, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	if av == "" || kind == "" {
		return errors.New("apiVersion and kind must be set")
	}
	meta, _ := m["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	if name == "" {
		return fmt.Errorf("%s %s has no metadata.name", av, kind)
	}
	if ns, ok := meta["namespace"]; ok && ns != nil {
		if _, isString := ns.(string); !isString {
			return fmt.Errorf("%s %q: metadata.namespace must be a string", kind, name)
		}
	}
	return nil
}

// addAll normalizes docs and adds them to set. CRDs among them decide the scope of their kinds.
func (p *Parser) addAll(set *Set, docs []rawDoc) {
	scopes := map[string]bool{} // "group/Kind" -> cluster-scoped, from CRDs in this input
	for _, d := range docs {
		if groupOf(str(d.obj, "apiVersion")) != "apiextensions.k8s.io" || str(d.obj, "kind") != "CustomResourceDefinition" {
			continue
		}
		spec, _ := d.obj["spec"].(map[string]any)
		names, _ := spec["names"].(map[string]any)
		g, _ := spec["group"].(string)
		k, _ := names["kind"].(string)
		scope, _ := spec["scope"].(string)
		if k != "" {
			scopes[g+"/"+k] = scope == "Cluster"
		}
	}
	for _, d := range docs {
		o, problem := p.normalize(d, scopes)
		if problem != "" {
			set.Problems = append(set.Problems, Problem{Source: d.source, Message: problem})
		}
		set.add(o)
	}
}

// normalize returns the object of d in normalized form. A non-empty problem means the object was
// kept without the typed round trip.
func (p *Parser) normalize(d rawDoc, scopes map[string]bool) (*Object, string) {
	apiVersion, kind := str(d.obj, "apiVersion"), str(d.obj, "kind")
	gv, _ := schema.ParseGroupVersion(apiVersion)
	gvk := gv.WithKind(kind)
	m := d.obj
	var problem string
	if p.scheme != nil && p.scheme.Recognizes(gvk) {
		if typed, err := p.scheme.New(gvk); err == nil {
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, typed); err != nil {
				problem = fmt.Sprintf("does not match the %s type (%v); compared as written", gvk.Kind, err)
			} else {
				if !p.AsStored {
					// What the API server stores: its defaults filled in (defaults.go).
					applyDefaults(typed)
				}
				if back, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed); err != nil {
					problem = fmt.Sprintf("cannot be converted back from the %s type (%v); compared as written", gvk.Kind, err)
				} else {
					back["apiVersion"], back["kind"] = apiVersion, kind
					m = back
				}
			}
		}
	}
	m = clean(m).(map[string]any)
	delete(m, "status")
	meta, _ := m["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		m["metadata"] = meta
	}
	for _, f := range ignoredMetadata {
		delete(meta, f)
	}
	p.stripMeta(meta)
	if spec, ok := m["spec"].(map[string]any); ok {
		for _, tmpl := range podTemplates(spec) {
			if tm, ok := tmpl["metadata"].(map[string]any); ok {
				p.stripMeta(tm)
				delete(tm, "creationTimestamp")
				if len(tm) == 0 {
					delete(tmpl, "metadata")
				}
			}
		}
	}
	if gv.Group == "" && kind == "Secret" {
		mergeStringData(m)
	}
	id := ObjectID{Group: gv.Group, Kind: kind, Name: str(meta, "name"), Namespace: str(meta, "namespace")}
	cluster, known := scopes[gv.Group+"/"+kind]
	if !known {
		cluster = clusterScoped[gv.Group+"/"+kind]
	}
	switch {
	case cluster:
		id.Namespace = ""
		delete(meta, "namespace")
	case id.Namespace == "":
		id.Namespace = "default"
		meta["namespace"] = "default"
	}
	return &Object{ID: id, APIVersion: apiVersion, Source: d.source, Content: m}, problem
}

// stripMeta removes the ignored labels and annotations, and empty label/annotation maps.
func (p *Parser) stripMeta(meta map[string]any) {
	for field, ignored := range map[string]map[string]bool{"labels": p.IgnoredLabels, "annotations": p.IgnoredAnnotations} {
		mm, ok := meta[field].(map[string]any)
		if !ok {
			continue
		}
		for k := range mm {
			if ignored[k] {
				delete(mm, k)
			}
		}
		if len(mm) == 0 {
			delete(meta, field)
		}
	}
}

// podTemplates returns the pod templates inside a workload spec: spec.template
// (DaemonSet/Deployment/StatefulSet/ReplicaSet/Job) and spec.jobTemplate.spec.template (CronJob).
func podTemplates(spec map[string]any) []map[string]any {
	var out []map[string]any
	if t, ok := spec["template"].(map[string]any); ok {
		out = append(out, t)
	}
	if jt, ok := spec["jobTemplate"].(map[string]any); ok {
		if js, ok := jt["spec"].(map[string]any); ok {
			if t, ok := js["template"].(map[string]any); ok {
				out = append(out, t)
			}
		}
	}
	return out
}

// mergeStringData moves Secret stringData into data, base64-encoded, as the API server does.
func mergeStringData(m map[string]any) {
	sd, ok := m["stringData"].(map[string]any)
	if !ok {
		return
	}
	data, _ := m["data"].(map[string]any)
	if data == nil {
		data = map[string]any{}
	}
	for k, v := range sd {
		if s, ok := v.(string); ok {
			data[k] = base64.StdEncoding.EncodeToString([]byte(s))
		}
	}
	m["data"] = data
	delete(m, "stringData")
}

// clean returns v without null values; integral floats become int64, so JSON from different
// encoders compares equal.
func clean(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			if e == nil {
				continue
			}
			out[k] = clean(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = clean(e)
		}
		return out
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1<<53 {
			return int64(t)
		}
		return t
	case int:
		return int64(t)
	case int32:
		return int64(t)
	default:
		return v
	}
}

// str returns m[key] if it is a string.
func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}
