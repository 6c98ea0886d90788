package decode

import (
	"bytes"
	gojson "encoding/json"
	"fmt"
	"iter"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// mode selects how unknown fields are treated.
type mode int

const (
	strictMode mode = iota
	lenientMode
)

// rootPath returns fldPath, or a path naming the whole document when the document is the root
// (field.Path has no representation of an empty root).
func rootPath(fldPath *field.Path) *field.Path {
	if fldPath == nil {
		return field.NewPath("<document>")
	}
	return fldPath
}

// child returns the path of a dotted JSON path (as reported by the JSON decoder) below fldPath.
func child(fldPath *field.Path, dotted string) *field.Path {
	segments := strings.Split(dotted, ".")
	return fldPath.Child(segments[0], segments[1:]...)
}

// toJSON converts YAML or JSON input to JSON.
func toJSON(data []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '{' && gojson.Valid(trimmed) {
		return trimmed, nil
	}
	return yaml.YAMLToJSONStrict(data)
}

// into decodes data (YAML or JSON) into obj after checking that it is an object of gvk. Strict
// mode reports unknown and duplicate fields; both modes report values of the wrong type. All paths
// are below fldPath (nil: the document is the root).
func into(data []byte, fldPath *field.Path, gvk schema.GroupVersionKind, obj any, m mode) field.ErrorList {
	js, err := toJSON(data)
	if err != nil {
		return field.ErrorList{field.Invalid(rootPath(fldPath), "", fmt.Sprintf("not valid YAML or JSON: %v", err))}
	}
	var generic any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(js, &generic); err != nil {
		return field.ErrorList{field.Invalid(rootPath(fldPath), "", fmt.Sprintf("not valid JSON: %v", err))}
	}
	object, ok := generic.(map[string]any)
	if !ok {
		return field.ErrorList{field.TypeInvalid(rootPath(fldPath), jsonKind(generic), fmt.Sprintf("must be an object with apiVersion %q and kind %q", gvk.GroupVersion().String(), gvk.Kind))}
	}
	if errs := checkTypeMeta(object, fldPath, gvk); len(errs) > 0 {
		// Fields of another kind would only add noise as unknown fields.
		return errs
	}

	// The walker finds every unknown field and wrongly typed value; the decoder adds duplicate
	// fields and what only custom unmarshallers (quantities) detect.
	w := walker{root: fldPath, strict: m == strictMode}
	w.walk(object, reflect.TypeOf(obj), nil)
	found := map[string]bool{}
	for _, e := range w.errs {
		found[e.Field] = true
	}
	var allErrs field.ErrorList
	var decErr error
	if m == strictMode {
		var strictErrs []error
		strictErrs, decErr = kjson.UnmarshalStrict(js, obj)
		for _, se := range strictErrs {
			if w.more > 0 {
				// The walker stopped building errors, so found is incomplete: count the
				// duplicates (which only the decoder sees) with the errors not reported.
				if strings.HasPrefix(se.Error(), "duplicate field") {
					w.more++
				}
				continue
			}
			// Unknown fields the walker did not see (it should see all) are still reported.
			if fe := strictError(se, fldPath, obj); !found[fe.Field] {
				allErrs = append(allErrs, fe)
			}
		}
	} else {
		decErr = kjson.UnmarshalCaseSensitivePreserveInts(js, obj)
	}
	allErrs = append(allErrs, w.errs...)
	if decErr != nil && len(w.errs) == 0 {
		allErrs = append(allErrs, decodeError(decErr, fldPath, generic, obj))
	}
	if w.more > 0 {
		allErrs = append(allErrs, summary(rootPath(fldPath).String(), w.more))
	}
	return Truncate(allErrs)
}

// checkTypeMeta requires apiVersion and kind to be exactly gvk's.
func checkTypeMeta(object map[string]any, fldPath *field.Path, gvk schema.GroupVersionKind) field.ErrorList {
	var allErrs field.ErrorList
	check := func(key, want string) {
		p := fldPath.Child(key)
		v, present := object[key]
		s, isString := v.(string)
		switch {
		case !present || s == "" && isString:
			allErrs = append(allErrs, field.Required(p, fmt.Sprintf("must be %q", want)))
		case !isString:
			allErrs = append(allErrs, field.TypeInvalid(p, v, fmt.Sprintf("must be the string %q", want)))
		case s != want:
			allErrs = append(allErrs, field.NotSupported(p, s, []string{want}))
		}
	}
	check("apiVersion", gvk.GroupVersion().String())
	check("kind", gvk.Kind)
	return allErrs
}

// strictError converts an unknown or duplicate field reported by the strict decoder.
func strictError(err error, fldPath *field.Path, obj any) *field.Error {
	fe, ok := err.(kjson.FieldError)
	if !ok {
		return field.Invalid(rootPath(fldPath), "", err.Error())
	}
	dotted := fe.FieldPath()
	p := child(fldPath, dotted)
	if strings.HasPrefix(err.Error(), "duplicate field") {
		return field.Duplicate(p, lastSegment(dotted))
	}
	name := lastSegment(dotted)
	parentDotted := strings.TrimSuffix(strings.TrimSuffix(dotted, name), ".")
	known := knownFields(reflect.TypeOf(obj), parentDotted)
	parent := "the document"
	if parentDotted != "" || fldPath != nil {
		parentPath := fldPath
		if parentDotted != "" {
			parentPath = child(fldPath, parentDotted)
		}
		parent = parentPath.String()
	}
	detail := fmt.Sprintf("unknown field %q", name)
	if s := Suggest(name, known); s != "" {
		detail += fmt.Sprintf(" (did you mean %q?)", s)
	}
	if len(known) > 0 {
		detail += fmt.Sprintf("; known fields of %s: %s", parent, strings.Join(known, ", "))
	}
	return field.Forbidden(p, detail)
}

// decodeError converts a decoding failure that is not a strict-mode finding: a value of the wrong
// JSON type or a value a custom unmarshaller (resource quantities) rejects.
func decodeError(err error, fldPath *field.Path, generic any, obj any) *field.Error {
	if te, ok := err.(*gojson.UnmarshalTypeError); ok && te.Field != "" {
		p := child(fldPath, te.Field)
		got, _ := lookup(generic, te.Field)
		// For a map of scalars the decoder names the map, not the entry; find the entry.
		if m, isMap := got.(map[string]any); isMap && !decodesFrom(te.Type, got) {
			for _, k := range sortedKeys(m) {
				if !decodesFrom(te.Type, m[k]) {
					p, got = p.Key(k), m[k]
					break
				}
			}
		}
		want := jsonTypeName(te.Type)
		detail := fmt.Sprintf("must be %s, not %s", want, describeKind(got))
		if want == "a string" {
			if _, isNumber := got.(int64); isNumber {
				detail += fmt.Sprintf(" (quote it: \"%v\")", got)
			}
		}
		return field.TypeInvalid(p, got, detail)
	}
	if p, v, ok := findBadQuantity(generic, fldPath, reflect.TypeOf(obj)); ok {
		return field.Invalid(p, v, "must be a resource quantity such as 250m, 1 or 100Mi")
	}
	return field.Invalid(rootPath(fldPath), "", fmt.Sprintf("cannot decode: %v", err))
}

func lastSegment(dotted string) string {
	if i := strings.LastIndex(dotted, "."); i >= 0 {
		return dotted[i+1:]
	}
	return dotted
}

// lookup returns the value at a dotted path of a generic JSON value.
func lookup(generic any, dotted string) (any, bool) {
	cur := generic
	for _, seg := range strings.Split(dotted, ".") {
		name, index := splitIndex(seg)
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[name]; !ok {
			return nil, false
		}
		if index >= 0 {
			list, ok := cur.([]any)
			if !ok || index >= len(list) {
				return nil, false
			}
			cur = list[index]
		}
	}
	return cur, true
}

// splitIndex splits "workers[2]" into ("workers", 2); without an index it returns -1.
func splitIndex(seg string) (string, int) {
	open := strings.IndexByte(seg, '[')
	if open < 0 || !strings.HasSuffix(seg, "]") {
		return seg, -1
	}
	i, err := strconv.Atoi(seg[open+1 : len(seg)-1])
	if err != nil {
		return seg, -1
	}
	return seg[:open], i
}

// knownFields lists the JSON field names of the struct found at a dotted path below t, sorted.
func knownFields(t reflect.Type, dotted string) []string {
	t = deref(t)
	if dotted != "" {
		for _, seg := range strings.Split(dotted, ".") {
			name, _ := splitIndex(seg)
			switch t.Kind() {
			case reflect.Map:
				t = deref(t.Elem())
				continue
			case reflect.Struct:
			default:
				return nil
			}
			f, ok := fieldByJSONName(t, name)
			if !ok {
				return nil
			}
			t = deref(f.Type)
			if t.Kind() == reflect.Slice {
				t = deref(t.Elem())
			}
		}
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	collectJSONNames(t, &names)
	sort.Strings(names)
	return names
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// jsonName returns the JSON name of a struct field and whether it is inlined.
func jsonName(f reflect.StructField) (name string, inline bool) {
	tag := f.Tag.Get("json")
	name, opts, _ := strings.Cut(tag, ",")
	if name == "-" {
		return "", false
	}
	if name == "" && (f.Anonymous || strings.Contains(opts, "inline")) {
		return "", true
	}
	if name == "" {
		name = f.Name
	}
	return name, false
}

// jsonFields yields the exported fields of struct type t that JSON decodes into, with their JSON
// names, in declaration order: the fields of an inlined struct (embedded, or tagged ",inline") in its
// place; fields tagged "-" are left out, as encoding/json leaves them out.
func jsonFields(t reflect.Type) iter.Seq2[string, reflect.StructField] {
	return func(yield func(string, reflect.StructField) bool) { yieldJSONFields(t, yield) }
}

// yieldJSONFields is jsonFields' walk; it returns false once yield has asked to stop.
func yieldJSONFields(t reflect.Type, yield func(string, reflect.StructField) bool) bool {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, inline := jsonName(f)
		switch {
		case inline:
			if !yieldJSONFields(deref(f.Type), yield) {
				return false
			}
		case name != "":
			if !yield(name, f) {
				return false
			}
		}
	}
	return true
}

func collectJSONNames(t reflect.Type, names *[]string) {
	for name := range jsonFields(t) {
		*names = append(*names, name)
	}
}

func fieldByJSONName(t reflect.Type, want string) (reflect.StructField, bool) {
	for name, f := range jsonFields(t) {
		if name == want {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// jsonTypeName describes the JSON type a Go type decodes from, with an article.
func jsonTypeName(t reflect.Type) string {
	t = deref(t)
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean (true or false)"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	default:
		return t.String()
	}
}

// jsonKind names the JSON type of a generic value.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64, float64, gojson.Number:
		return "number"
	case []any:
		return "list"
	case map[string]any:
		return "object"
	default:
		return fmt.Sprintf("%T", v)
	}
}

// describeKind names the JSON type of a generic value with an article, for messages.
func describeKind(v any) string {
	switch k := jsonKind(v); k {
	case "null":
		return "null"
	case "object":
		return "an object"
	default:
		return "a " + k
	}
}

// decodesFrom reports whether a generic JSON value has the JSON type that Go type t decodes from.
func decodesFrom(t reflect.Type, v any) bool {
	want := jsonTypeName(t)
	switch v.(type) {
	case nil:
		return true
	case string:
		return want == "a string"
	case bool:
		return want == "a boolean (true or false)"
	case int64:
		return want == "an integer" || want == "a number"
	case float64, gojson.Number:
		return want == "a number"
	case []any:
		return want == "a list"
	case map[string]any:
		return want == "an object"
	}
	return false
}
