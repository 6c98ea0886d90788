package lint

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// TestGolden lints every input of testdata/ and compares the text output with its .golden file.
// Inputs are linted twice: the output must be identical (deterministic).
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/*.*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, in := range inputs {
		ext := filepath.Ext(in)
		if ext != ".yaml" && ext != ".json" {
			continue
		}
		n++
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got := lintText(t, data)
			if again := lintText(t, data); again != got {
				t.Fatalf("output differs between two runs:\n%s", cmp.Diff(got, again))
			}
			golden := strings.TrimSuffix(in, ext) + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (create it with: go test ./internal/lint/ -update)", err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("%s differs (-want +got):\n%s\nreview, then rewrite with: go test ./internal/lint/ -update", golden, d)
			}
		})
	}
	if n < 10 {
		t.Fatalf("found %d inputs in testdata/, want at least 10", n)
	}
}

func lintText(t *testing.T, data []byte) string {
	t.Helper()
	res, err := Lint(data)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := res.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// FuzzLint checks that Lint never panics and always returns findings or an error, on any input.
func FuzzLint(f *testing.F) {
	inputs, _ := filepath.Glob("testdata/*.yaml")
	for _, in := range inputs {
		if data, err := os.ReadFile(in); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Lint(data)
		if err == nil && res == nil {
			t.Fatal("nil result without an error")
		}
		if err == nil {
			var b bytes.Buffer
			if err := res.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			if err := res.WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// When the set checks would exceed their budget, lint says which rule was not checked instead of
// passing it in silence (issue 21 finding 7).
func TestLintSetCheckBudget(t *testing.T) {
	res, err := Lint(setsAndRules(2000, 3, 8000))
	if err != nil {
		t.Fatal(err)
	}
	var limits int
	for _, d := range res.Documents {
		for _, f := range d.Findings {
			if f.Rule == "analysis-limit" {
				limits++
				if !strings.Contains(f.Detail, "GlobalNetworkSets: evaluating every rule selector against every set would take more than 33554432 selector terms in this input") {
					t.Errorf("detail %q", f.Detail)
				}
			}
		}
	}
	if limits == 0 {
		t.Fatal("no analysis-limit warning although the budget was exceeded")
	}
}
