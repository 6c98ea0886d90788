package selector

import (
	"fmt"
	"strings"
	"testing"
)

// benchSelector builds a selector of n terms mixing every operator, || groups and negations.
func benchSelector(n int) string {
	terms := []string{"app == 'web'", "tier != 'db'", "role in {'a', 'b', 'c'}", "x not in {'y'}",
		"name contains 'f'", "name starts with 'w'", "name ends with 'b'", "has(projectcalico.org/name)", "!has(z)", "(a == 'b' || c == 'd')"}
	var b strings.Builder
	for i := range n {
		if i > 0 {
			if i%7 == 0 {
				b.WriteString(" || ")
			} else {
				b.WriteString(" && ")
			}
		}
		b.WriteString(terms[i%len(terms)])
	}
	return b.String()
}

// BenchmarkParse parses selectors of 1k, 10k and 100k terms: time per byte (the MB/s column)
// stays flat when parsing is linear.
func BenchmarkParse(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		in := benchSelector(n)
		b.Run(fmt.Sprintf("terms=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNeverMatches runs the contradiction check on the same selectors.
func BenchmarkNeverMatches(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		node, err := Parse(benchSelector(n))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("terms=%d", n), func(b *testing.B) {
			for b.Loop() {
				NeverMatches(node)
			}
		})
	}
}
