package decode

import (
	"fmt"
	"reflect"
	"sort"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var quantityType = reflect.TypeFor[resource.Quantity]()

// findBadQuantity walks a generic JSON value alongside the Go type it decodes into and returns the
// path and value of the first (in sorted key order) resource quantity that does not parse. The JSON
// decoder reports such failures without a path, so this recovers it.
func findBadQuantity(generic any, fldPath *field.Path, t reflect.Type) (*field.Path, any, bool) {
	t = deref(t)
	if t == quantityType {
		if quantityOK(generic) {
			return nil, nil, false
		}
		return fldPath, generic, true
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := generic.(map[string]any)
		if !ok {
			return nil, nil, false
		}
		for _, k := range sortedKeys(m) {
			f, ok := fieldByJSONName(t, k)
			if !ok {
				continue
			}
			if p, v, bad := findBadQuantity(m[k], fldPath.Child(k), f.Type); bad {
				return p, v, true
			}
		}
	case reflect.Map:
		m, ok := generic.(map[string]any)
		if !ok {
			return nil, nil, false
		}
		for _, k := range sortedKeys(m) {
			if p, v, bad := findBadQuantity(m[k], fldPath.Key(k), t.Elem()); bad {
				return p, v, true
			}
		}
	case reflect.Slice:
		list, ok := generic.([]any)
		if !ok {
			return nil, nil, false
		}
		for i, item := range list {
			if p, v, bad := findBadQuantity(item, fldPath.Index(i), t.Elem()); bad {
				return p, v, true
			}
		}
	}
	return nil, nil, false
}

func quantityOK(v any) bool {
	var s string
	switch x := v.(type) {
	case nil:
		return true
	case string:
		s = x
	case int64, float64:
		s = fmt.Sprint(x)
	default:
		return false
	}
	_, err := resource.ParseQuantity(s)
	return err == nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
