package lint

import (
	"fmt"
	"strings"
	"testing"
)

// contradictionPolicy is a GlobalNetworkPolicy whose selectors are `a in {'v0', …, 'vN-1'} && a !=
// 'w0' && a starts with 'v' && … (N of each) && a ends with 'x'`: every value of the set passes
// every string test but the last, which is what made the contradiction analysis |values| × |checks|
// (issue 21 finding 7: 0.29 s at 1k terms, 5.2 s at 8k, 36.8 s at 20k).
func contradictionPolicy(n int) []byte {
	vals := make([]string, n)
	for i := range vals {
		vals[i] = fmt.Sprintf("'v%d'", i)
	}
	var sel strings.Builder
	sel.WriteString("a in {" + strings.Join(vals, ", ") + "}")
	for i := range vals {
		fmt.Fprintf(&sel, " && a != 'w%d' && a starts with 'v'", i)
	}
	sel.WriteString(" && a ends with 'x'")
	return []byte(`apiVersion: crd.projectcalico.org/v1
kind: GlobalNetworkPolicy
metadata: {name: p}
spec:
  order: 10
  types: [Ingress]
  selector: "` + sel.String() + `"
  ingress:
  - action: Allow
    source:
      selector: "` + sel.String() + `"
`)
}

// setsAndRules is sets GlobalNetworkSets (each with label a) and one policy with rules ingress
// rules whose source selector has terms terms on label a (issue 21 finding 7: 8k sets × 20 rules ×
// 8k terms took 65 s and 160 MB).
func setsAndRules(sets, rules, terms int) []byte {
	var b strings.Builder
	for i := range sets {
		fmt.Fprintf(&b, "---\napiVersion: crd.projectcalico.org/v1\nkind: GlobalNetworkSet\nmetadata: {name: s%d, labels: {a: v%d}}\nspec: {nets: [10.0.0.0/8]}\n", i, i)
	}
	sel := make([]string, terms)
	for i := range sel {
		sel[i] = fmt.Sprintf("a != 'x%d'", i)
	}
	fmt.Fprintf(&b, "---\napiVersion: crd.projectcalico.org/v1\nkind: GlobalNetworkPolicy\nmetadata: {name: p}\nspec:\n  order: 10\n  types: [Ingress]\n  selector: all()\n  ingress:\n")
	for range rules {
		fmt.Fprintf(&b, "  - action: Allow\n    protocol: TCP\n    destination: {ports: [443]}\n    source: {selector: \"%s\"}\n", strings.Join(sel, " && "))
	}
	return []byte(b.String())
}

// BenchmarkLintContradiction lints the contradiction selector at 1k, 8k and 20k terms in one run:
// ns/op grows with the terms' count when the analysis is linear (8× and 20× the 1k baseline), and
// with its square when it is not (64× and 400×).
func BenchmarkLintContradiction(b *testing.B) {
	for _, n := range []int{1_000, 8_000, 20_000} {
		in := contradictionPolicy(n)
		b.Run(fmt.Sprintf("terms=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Lint(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLintSetsTimesRules lints sets GlobalNetworkSets against rules whose selectors have
// terms terms; the baseline (1k sets) and 8k sets in one run.
func BenchmarkLintSetsTimesRules(b *testing.B) {
	for _, sets := range []int{1_000, 8_000} {
		in := setsAndRules(sets, 20, 8_000)
		b.Run(fmt.Sprintf("sets=%d/rules=20/terms=8000", sets), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Lint(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
