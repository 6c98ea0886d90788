package decode

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

var jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// walker compares a generic JSON value with the Go type it decodes into and reports every unknown
// field (strict mode) and every value of the wrong JSON type, not only the first one the JSON
// decoder stops at. Types with their own UnmarshalJSON (quantities, raw extensions, times) are left
// to the decoder.
type walker struct {
	root   *field.Path
	strict bool
	errs   field.ErrorList
	// more counts the errors found after MaxErrors: they are counted, not built (an error's message
	// lists the known fields, which costs more than finding it).
	more int
}

// full reports whether MaxErrors errors have been found; further ones are only counted.
func (w *walker) full() bool {
	if len(w.errs) < MaxErrors {
		return false
	}
	w.more++
	return true
}

func (w *walker) walk(v any, t reflect.Type, p *field.Path) {
	if v == nil {
		return
	}
	if reflect.PointerTo(deref(t)).Implements(jsonUnmarshalerType) {
		return
	}
	t = deref(t)
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			w.typeError(v, t, p)
			return
		}
		for _, k := range sortedKeys(m) {
			f, ok := fieldByJSONName(t, k)
			if !ok {
				if w.strict && !w.full() {
					w.errs = append(w.errs, w.unknownField(k, t, p))
				}
				continue
			}
			w.walk(m[k], f.Type, w.child(p, k))
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			w.typeError(v, t, p)
			return
		}
		for _, k := range sortedKeys(m) {
			w.walk(m[k], t.Elem(), w.key(p, k))
		}
	case reflect.Slice, reflect.Array:
		list, ok := v.([]any)
		if !ok {
			w.typeError(v, t, p)
			return
		}
		for i, item := range list {
			w.walk(item, t.Elem(), w.index(p, i))
		}
	case reflect.Interface:
	default:
		if !decodesFrom(t, v) {
			w.typeError(v, t, p)
		} else if n, isInt := v.(int64); isInt && overflows(t, n) {
			w.rangeError(n, t, p)
		}
	}
}

// overflows reports whether the integer n does not fit the integer kind of t (the JSON decoder
// would fail with an error that names neither the list index nor the value).
func overflows(t reflect.Type, n int64) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return reflect.Zero(t).OverflowInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return n < 0 || reflect.Zero(t).OverflowUint(uint64(n))
	}
	return false
}

// rangeError reports an integer outside the range of its Go type.
func (w *walker) rangeError(n int64, t reflect.Type, p *field.Path) {
	if w.full() {
		return
	}
	var lo, hi string
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		lo, hi = "0", strconv.FormatUint(uint64(1)<<(t.Bits())-1, 10)
		if t.Bits() == 64 {
			hi = strconv.FormatUint(^uint64(0), 10)
		}
	default:
		lo, hi = strconv.FormatInt(-1<<(t.Bits()-1), 10), strconv.FormatInt(1<<(t.Bits()-1)-1, 10)
	}
	w.errs = append(w.errs, field.Invalid(rootPath(p), n, fmt.Sprintf("must be an integer from %s to %s", lo, hi)))
}

// child, key and index build paths below the root; a nil path is the document itself.
func (w *walker) child(p *field.Path, name string) *field.Path {
	if p == nil {
		return w.root.Child(name)
	}
	return p.Child(name)
}

func (w *walker) key(p *field.Path, k string) *field.Path {
	if p == nil {
		return rootPath(w.root).Key(k)
	}
	return p.Key(k)
}

func (w *walker) index(p *field.Path, i int) *field.Path {
	if p == nil {
		return rootPath(w.root).Index(i)
	}
	return p.Index(i)
}

func (w *walker) typeError(v any, t reflect.Type, p *field.Path) {
	if w.full() {
		return
	}
	want := jsonTypeName(t)
	detail := fmt.Sprintf("must be %s, not %s", want, describeKind(v))
	if _, isNumber := v.(int64); isNumber && want == "a string" {
		detail += fmt.Sprintf(" (quote it: \"%v\")", v)
	}
	w.errs = append(w.errs, field.TypeInvalid(rootPath(p), v, detail))
}

func (w *walker) unknownField(name string, t reflect.Type, parent *field.Path) *field.Error {
	var known []string
	collectJSONNames(t, &known)
	sort.Strings(known)
	parentName := "the document"
	if parent != nil {
		parentName = parent.String()
	} else if w.root != nil {
		parentName = w.root.String()
	}
	detail := fmt.Sprintf("unknown field %q", name)
	if s := Suggest(name, known); s != "" {
		detail += fmt.Sprintf(" (did you mean %q?)", s)
	}
	if len(known) > 0 {
		detail += fmt.Sprintf("; known fields of %s: %s", parentName, strings.Join(known, ", "))
	}
	return field.Forbidden(w.child(parent, name), detail)
}
