package validation

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestShortenBadValues(t *testing.T) {
	long := strings.Repeat("é", 200) // 400 bytes: the cut falls inside a character
	errs := field.ErrorList{
		field.Invalid(field.NewPath("a"), long, "x"),
		field.Invalid(field.NewPath("b"), "short", "x"),
		field.Invalid(field.NewPath("c"), []string{strings.Repeat("y", 300)}, "x"),
		field.Invalid(field.NewPath("d"), 7, "x"),
	}
	ShortenBadValues(errs)
	if got := errs[0].BadValue.(string); got != strings.Repeat("é", 128)+"... (400 bytes)" {
		t.Errorf("long string: %q", got)
	}
	if errs[1].BadValue != "short" || errs[3].BadValue != 7 {
		t.Errorf("short values changed: %v %v", errs[1].BadValue, errs[3].BadValue)
	}
	if got, ok := errs[2].BadValue.(string); !ok || !strings.HasSuffix(got, "... (302 bytes)") {
		t.Errorf("long list: %v", errs[2].BadValue)
	}
}
