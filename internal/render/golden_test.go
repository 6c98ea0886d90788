package render_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calico-pilot/calico-pilot/internal/manifest"
	"github.com/calico-pilot/calico-pilot/internal/render"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// renderYAML renders a scenario's shoot objects (without the static CRDs) as YAML.
func renderYAML(t testing.TB, sc scenario) []byte {
	t.Helper()
	opts, validErrs, resolveErrs := resolve(shootOf(sc), sc.nonPrivileged, sc.addresses)
	if len(validErrs) > 0 || len(resolveErrs) > 0 {
		t.Fatalf("scenario %s: validation errors %v, resolve errors %v", sc.name, validErrs.ToAggregate(), resolveErrs.ToAggregate())
	}
	objs, err := render.Shoot(&opts)
	if err != nil {
		t.Fatalf("scenario %s: %v", sc.name, err)
	}
	m, err := manifest.Build(nil, objs)
	if err != nil {
		t.Fatalf("scenario %s: %v", sc.name, err)
	}
	y, err := m.YAML()
	if err != nil {
		t.Fatalf("scenario %s: %v", sc.name, err)
	}
	return y
}

func TestGolden(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			got := renderYAML(t, sc)
			path := filepath.Join("testdata", sc.name+".yaml")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("reading golden file: %v (run: go test ./internal/render/... -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the rendered output (-golden +rendered):\n%s\nIf the change is intended, run: go test ./internal/render/... -update",
					path, shortDiff(cmp.Diff(string(want), string(got))))
			}
		})
	}
}

func shortDiff(d string) string {
	lines := strings.Split(d, "\n")
	if len(lines) > 60 {
		lines = append(lines[:60], fmt.Sprintf("... (%d more lines)", len(lines)-60))
	}
	return strings.Join(lines, "\n")
}

// TestDeterministic renders every scenario twice and requires identical bytes, both for YAML
// and for the stored JSON form.
func TestDeterministic(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			a, b := renderYAML(t, sc), renderYAML(t, sc)
			if !bytes.Equal(a, b) {
				t.Fatalf("two renders differ:\n%s", shortDiff(cmp.Diff(string(a), string(b))))
			}
			j1, j2 := renderJSON(t, sc), renderJSON(t, sc)
			if !bytes.Equal(j1, j2) {
				t.Fatalf("two JSON renders differ")
			}
		})
	}
}

func renderJSON(t testing.TB, sc scenario) []byte {
	t.Helper()
	opts, validErrs, resolveErrs := resolve(shootOf(sc), sc.nonPrivileged, sc.addresses)
	if len(validErrs)+len(resolveErrs) > 0 {
		t.Fatalf("scenario %s invalid", sc.name)
	}
	objs, err := render.Shoot(&opts)
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Build(nil, objs)
	if err != nil {
		t.Fatal(err)
	}
	return m.JSON()
}

// TestGoldenFilesHaveScenarios keeps testdata free of golden files nobody checks.
func TestGoldenFilesHaveScenarios(t *testing.T) {
	known := map[string]bool{}
	for _, sc := range scenarios {
		known[sc.name+".yaml"] = true
	}
	files, err := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !known[filepath.Base(f)] && !strings.HasPrefix(filepath.Base(f), "seed-monitoring-") {
			t.Errorf("%s has no scenario", f)
		}
	}
}

var _ = values.Options{}
