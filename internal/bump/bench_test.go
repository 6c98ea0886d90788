package bump

import (
	"context"
	"os"
	"testing"
)

// The largest real case is 3.25.0_to_3.26.1 (about 5000 lines per file). BenchmarkLineDiffBaseline
// is the cost of a plain two-way line diff of the two upstream files, the floor any line-based
// merge pays; BenchmarkMergeLargestCase is the whole bump (mask, parse three files, two
// alignments, merge, checks). Compare the two in the same run: go test -bench . ./internal/bump/
const largestCase = "3.25.0_to_3.26.1"

func skipWithoutCases(b *testing.B) {
	if _, err := os.Stat(realCasesDir); err != nil {
		b.Skipf("real bump cases not available at %s: %v", realCasesDir, err)
	}
}

func BenchmarkLineDiffBaseline(b *testing.B) {
	skipWithoutCases(b)
	ou, _, nu, _ := loadCase(b, largestCase)
	b.SetBytes(int64(len(ou.Data) + len(nu.Data)))
	b.ReportAllocs()
	for b.Loop() {
		diffLines(string(ou.Data), string(nu.Data))
	}
}

func BenchmarkMergeLargestCase(b *testing.B) {
	skipWithoutCases(b)
	ou, od, nu, _ := loadCase(b, largestCase)
	b.SetBytes(int64(len(ou.Data) + len(od.Data) + len(nu.Data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Merge(context.Background(), ou, od, nu, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
