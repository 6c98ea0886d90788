package ssa

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsapply "k8s.io/apiextensions-apiserver/pkg/client/applyconfiguration"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	clientgoapply "k8s.io/client-go/applyconfigurations"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Comparer answers whether server-side applies would change live objects. It holds the schemas of
// the built-in kinds and one field manager per kind; build one with NewComparer and share it (it is
// safe for concurrent use).
type Comparer struct {
	scheme *runtime.Scheme
	eq     conversion.Equalities
	conv   schemaConverter
	custom map[schema.GroupVersionKind]customKind

	mu       sync.Mutex
	managers map[schema.GroupVersionKind]*managedfields.FieldManager
}

// NewComparer builds a Comparer for Kubernetes' own kinds, CustomResourceDefinitions and the custom
// resources of crds (their served versions). Other kinds are always answered "changed".
func NewComparer(crds ...*apiextensionsv1.CustomResourceDefinition) (*Comparer, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, fmt.Errorf("building the scheme of the built-in kinds: %w", err)
	}
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		return nil, fmt.Errorf("building the scheme of CustomResourceDefinitions: %w", err)
	}
	custom, err := customKinds(crds)
	if err != nil {
		return nil, err
	}
	eq, err := withoutTimes()
	if err != nil {
		return nil, err
	}
	return &Comparer{
		scheme: s,
		eq:     eq,
		custom: custom,
		conv: schemaConverter{
			builtin:       clientgoapply.NewTypeConverter(s),
			apiextensions: apiextensionsapply.NewTypeConverter(s),
		},
		managers: map[schema.GroupVersionKind]*managedfields.FieldManager{},
	}, nil
}

// Unchanged says whether a server-side apply of rendered by field manager manager, with force (as
// calico-pilot applies), would leave live exactly as it is: no new resourceVersion, so no write. It
// runs the API server's field manager in memory on live (as read, managedFields included) and
// rendered (as it would be sent), then compares the result with live. The answer is true only when
//   - every field of rendered is in live with the value the apply would store,
//   - every field manager owns in live is still in rendered (else the apply removes it),
//   - manager already owns every field of rendered (else the apply takes it over: managedFields
//     change), and
//   - no other step of the API server's apply changes live (the last-applied annotation kubectl
//     keeps, the first apply to an object without managedFields).
//
// Fields other managers own and rendered leaves out do not matter, nor do defaults the API server
// set in live. When the answer is false, reason says why; when the decision cannot be made (no
// schema for the kind, a manager that wrote another version, a field the schema does not know),
// the answer is false too and reason starts with "cannot tell".
func (c *Comparer) Unchanged(rendered, live *unstructured.Unstructured, manager string) (bool, string) {
	switch {
	case manager == "":
		return false, "cannot tell: no field manager given"
	case rendered == nil:
		return false, "cannot tell: no rendered object"
	case live == nil:
		return false, "the object does not exist: the apply creates it"
	}
	gvk := rendered.GroupVersionKind()
	if have := live.GroupVersionKind(); have != gvk {
		return false, fmt.Sprintf("cannot tell: the live object is a %s, the rendered one a %s", have, gvk)
	}
	fm, err := c.fieldManager(gvk)
	if err != nil {
		return false, "cannot tell: " + err.Error()
	}
	applied, err := wire(rendered)
	if err != nil {
		return false, "cannot tell: " + err.Error()
	}
	out, err := fm.Apply(live.DeepCopy(), applied, manager, true)
	if err != nil {
		return false, "cannot tell: applying in memory: " + err.Error()
	}
	after, ok := out.(*unstructured.Unstructured)
	if !ok {
		return false, fmt.Sprintf("cannot tell: the field manager returned a %T", out)
	}
	// The common case first: the field manager left live as it was, times included.
	if reflect.DeepEqual(after.Object, live.Object) || c.same(after, live) {
		return true, ""
	}
	return false, c.explain(live, after, manager)
}

// fieldManager is the API server's field manager for gvk, built once.
func (c *Comparer) fieldManager(gvk schema.GroupVersionKind) (*managedfields.FieldManager, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if fm, ok := c.managers[gvk]; ok {
		return fm, nil
	}
	if k, ok := c.custom[gvk]; ok {
		var reset map[fieldpath.APIVersion]fieldpath.Filter
		if k.statusReset {
			reset = statusReset(gvk)
		}
		fm, err := managedfields.NewDefaultCRDFieldManager(k.conv, sameVersion{}, noDefaults{}, unstructuredCreater{}, gvk, gvk.GroupVersion(), "", reset)
		if err != nil {
			return nil, fmt.Errorf("field manager of %s: %w", gvk, err)
		}
		c.managers[gvk] = fm
		return fm, nil
	}
	// A custom resource's schema is its CRD's: without it the answer would be guessed.
	if _, err := c.conv.of(gvk).ObjectToTyped(emptyOf(gvk)); err != nil {
		return nil, fmt.Errorf("no schema for %s (a custom resource whose CRD the Comparer was not given)", gvk)
	}
	// The API server resets status on the main resource of every kind calico-pilot renders that
	// has one (the strategies' GetResetFields): applied status values are not owned. Where a kind
	// has no such reset, the set differs from the server's and the answer is "changed": safe.
	fm, err := managedfields.NewDefaultFieldManager(c.conv, sameVersion{}, noDefaults{}, unstructuredCreater{}, gvk, gvk.GroupVersion(), "", statusReset(gvk))
	if err != nil {
		return nil, fmt.Errorf("field manager of %s: %w", gvk, err)
	}
	c.managers[gvk] = fm
	return fm, nil
}

func statusReset(gvk schema.GroupVersionKind) map[fieldpath.APIVersion]fieldpath.Filter {
	return map[fieldpath.APIVersion]fieldpath.Filter{
		fieldpath.APIVersion(gvk.GroupVersion().String()): fieldpath.NewExcludeSetFilter(fieldpath.NewSet(fieldpath.MakePathOrDie("status"))),
	}
}

// converter is the schema of gvk's objects.
func (c *Comparer) converter(gvk schema.GroupVersionKind) managedfields.TypeConverter {
	if k, ok := c.custom[gvk]; ok {
		return k.conv
	}
	return c.conv
}

func emptyOf(gvk schema.GroupVersionKind) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(gvk)
	return u
}

// wire is rendered as the API server reads an apply request: JSON numbers without a fraction are
// int64 (a rendered object decoded with encoding/json holds float64), and nothing else changes.
func wire(rendered *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	obj, err := wireValue(rendered.Object)
	if err != nil {
		return nil, fmt.Errorf("reading the rendered object: %w", err)
	}
	m, _ := obj.(map[string]any)
	return &unstructured.Unstructured{Object: m}, nil
}

func wireValue(v any) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			w, err := wireValue(e)
			if err != nil {
				return nil, err
			}
			out[k] = w
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			w, err := wireValue(e)
			if err != nil {
				return nil, err
			}
			out[i] = w
		}
		return out, nil
	case float64:
		// Go writes an integral float64 below 1e21 without a fraction or exponent; the API
		// server's JSON reader makes such a number an int64 when it fits.
		if v == math.Trunc(v) && math.Abs(v) < 1<<63 {
			return int64(v), nil
		}
		return v, nil
	case int:
		return int64(v), nil
	case int32:
		return int64(v), nil
	case nil, string, bool, int64:
		return v, nil
	}
	// Anything else (a typed value put into the map by hand) goes through JSON, as on the wire.
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var back any
	if err := json.Unmarshal(raw, &back); err != nil {
		return nil, err
	}
	return wireValue(back)
}
