package decode

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// JSONFieldsInner is exported: the walk, like the rest of it, skips unexported embedded structs.
type JSONFieldsInner struct {
	Inner string `json:"inner"`
}

type jsonFieldsNamed struct {
	Deep int `json:"deep"`
}

type jsonFieldsOuter struct {
	First string `json:"first,omitempty"`
	JSONFieldsInner
	Named    jsonFieldsNamed  `json:",inline"`
	Pointer  *jsonFieldsNamed `json:"pointer"`
	Skipped  string           `json:"-"`
	Untagged bool
	//lint:ignore U1000 never set or read: the test checks that reflection leaves unexported fields out
	hidden string
}

// jsonFields yields the JSON names encoding/json decodes into, inline structs in place, "-" and
// unexported fields left out; collectJSONNames and fieldByJSONName read them.
func TestJSONFields(t *testing.T) {
	typ := reflect.TypeFor[jsonFieldsOuter]()
	var names []string
	collectJSONNames(typ, &names)
	if diff := cmp.Diff([]string{"first", "inner", "deep", "pointer", "Untagged"}, names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		key   string
		field string // "" when not found
	}{
		{"first", "First"}, {"inner", "Inner"}, {"deep", "Deep"}, {"pointer", "Pointer"}, {"Untagged", "Untagged"},
		{"Skipped", ""}, {"-", ""}, {"", ""}, {"hidden", ""}, {"Named", ""},
	} {
		f, ok := fieldByJSONName(typ, tc.key)
		if got := map[bool]string{true: f.Name}[ok]; got != tc.field {
			t.Errorf("fieldByJSONName(%q) = %q; want %q", tc.key, got, tc.field)
		}
	}
}
