package selector

import (
	"testing"
)

// FuzzParse checks that Parse never panics, that every error carries a position inside the input,
// and that a parsed selector prints to a canonical form that parses back to the same tree and
// prints identically again.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"all()", "global()", "has(a)", "!has(projectcalico.org/name)", "a == 'x'", `a != "y'"`,
		"a in {'x', \"y\"}", "a not in {}", "a contains 'x' && b starts with 'y' || c ends with 'z'",
		"(a == 'x' || !(b == 'y')) && all()", "networking.gardener.cloud/endpoint == 'kube-apiserver'",
		"((((has(a)))))", "a == 'x' &", "a in {'x',}", "has(", "'", "!!!!", "in in {'in'}",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		n, err := Parse(in)
		if err != nil {
			pe, ok := err.(*Error)
			if !ok {
				t.Fatalf("error of type %T", err)
			}
			if pe.Offset < 0 || pe.Offset > len(in) || pe.Column != Column(in, pe.Offset) {
				t.Fatalf("bad position %d/%d for input of %d bytes", pe.Offset, pe.Column, len(in))
			}
			return
		}
		printed := String(n)
		again, err := Parse(printed)
		if err != nil {
			t.Fatalf("Parse(%q) ok, but its print %q fails: %v", in, printed, err)
		}
		if d := treeDiff(n, again); d != "" {
			t.Fatalf("Parse(%q) -> %q re-parses to another tree:\n%s", in, printed, d)
		}
		if String(again) != printed {
			t.Fatalf("printing is not stable: %q then %q", printed, String(again))
		}
		// The analyses must not panic either.
		NeverMatches(n)
		InvalidKeys(n)
	})
}
