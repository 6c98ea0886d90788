package validation

import (
	"fmt"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxBadValueBytes is how much of a bad value an error quotes: a 10 MB value written where a CIDR
// belongs must not become a 10 MB line (a measured denial of service).
const MaxBadValueBytes = 256

// ShortValue is s cut to MaxBadValueBytes (at a character boundary), saying how long it was.
func ShortValue(s string) string {
	if len(s) <= MaxBadValueBytes {
		return s
	}
	cut := MaxBadValueBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d bytes)", s[:cut], len(s))
}

// ShortenBadValues cuts every bad value of errs that prints longer than MaxBadValueBytes, in place:
// a long string to its start, any other value (a list, a map) to the start of how it prints.
func ShortenBadValues(errs field.ErrorList) {
	for _, e := range errs {
		switch v := e.BadValue.(type) {
		case nil, bool, int, int32, int64, float64:
		case string:
			e.BadValue = ShortValue(v)
		case *string:
			if v != nil && len(*v) > MaxBadValueBytes {
				e.BadValue = ShortValue(*v)
			}
		default:
			if s := fmt.Sprintf("%v", v); len(s) > MaxBadValueBytes {
				e.BadValue = ShortValue(s)
			}
		}
	}
}
