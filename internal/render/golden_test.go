package render_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/manifest"
	"github.com/calico-pilot/calico-pilot/internal/render"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// shootGoldenDir holds one directory per scenario with one file per component that renders
// something for it: testdata/shoot/<scenario>/<component>.yaml.
var shootGoldenDir = filepath.Join("testdata", "shoot")

func scenarioOptions(t testing.TB, sc scenario) values.Options {
	t.Helper()
	opts, validErrs, resolveErrs := sc.Resolve()
	if len(validErrs) > 0 || len(resolveErrs) > 0 {
		t.Fatalf("scenario %s: validation errors %v, resolve errors %v", sc.Name, validErrs.ToAggregate(), resolveErrs.ToAggregate())
	}
	return opts
}

func yamlOf(t testing.TB, objs []client.Object) []byte {
	t.Helper()
	m, err := manifest.Build(nil, objs)
	if err != nil {
		t.Fatal(err)
	}
	y, err := m.YAML()
	if err != nil {
		t.Fatal(err)
	}
	return y
}

// renderYAML renders a scenario's shoot objects (without the static CRDs) as YAML.
func renderYAML(t testing.TB, sc scenario) []byte {
	t.Helper()
	return yamlOf(t, renderScenario(t, sc))
}

// componentYAML renders a scenario component by component: the YAML of each component that
// renders anything, keyed by its golden file name.
func componentYAML(t testing.TB, sc scenario) map[string][]byte {
	t.Helper()
	opts := scenarioOptions(t, sc)
	comps, err := render.ShootComponents(&opts)
	if err != nil {
		t.Fatalf("scenario %s: %v", sc.Name, err)
	}
	out := map[string][]byte{}
	for _, c := range comps {
		if len(c.Objects) > 0 {
			out[c.Name+".yaml"] = yamlOf(t, c.Objects)
		}
	}
	return out
}

// yamlFiles lists the names of the .yaml files in dir (none if dir does not exist).
func yamlFiles(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".yaml") {
			names = append(names, e.Name())
		}
	}
	return names
}

// copiesFile lists the component files of golden scenarios that are byte-identical to the same
// component's file of an earlier golden scenario ("multus/node.yaml = default/node.yaml"): such a
// file is not kept, and TestGolden compares the render with the file it names instead.
var copiesFile = filepath.Join(shootGoldenDir, "copies.txt")

const copiesHeader = "# component files of golden scenarios that are byte-identical to an earlier golden scenario's: not kept,\n" +
	"# TestGolden compares the render with the file named on the right (go test ./internal/render/... -update rewrites this list)\n"

// readCopies reads copiesFile: the copy's path (scenario/component.yaml) to the kept file's.
func readCopies(t testing.TB) map[string]string {
	t.Helper()
	data, err := os.ReadFile(copiesFile)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}
	}
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		copyOf, kept, ok := strings.Cut(line, " = ")
		if !ok {
			t.Fatalf("%s: line %q is not \"scenario/component.yaml = scenario/component.yaml\"", copiesFile, line)
		}
		out[copyOf] = kept
	}
	return out
}

// TestGolden compares every golden scenario's components with
// testdata/shoot/<scenario>/<component>.yaml, or, for a component whose render is byte-identical to
// an earlier golden scenario's, with the file copies.txt names (the other scenarios:
// TestDecisionDeltas; the other releases: TestReleaseDeltas). A component that renders nothing for
// a scenario has no file there; a file left over from one, or kept although copies.txt names it, is
// an error (and -update deletes it). These files are the render at the base release
// (rendertest.Base, what shoots without a recorded release run): byte-identical across
// calico-pilot versions, which is what keeps such shoots from rolling.
func TestGolden(t *testing.T) {
	copies := readCopies(t)
	kept := map[string]string{} // -update: rendered bytes to the first golden file holding them
	var newCopies []string
	for _, sc := range scenarios {
		if !sc.Golden {
			continue // pinned by TestDecisionDeltas
		}
		t.Run(sc.Name, func(t *testing.T) {
			got := componentYAML(t, sc)
			dir := filepath.Join(shootGoldenDir, sc.Name)
			names := make([]string, 0, len(got))
			for name := range got {
				names = append(names, name)
			}
			slices.Sort(names)
			if *update {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				for _, name := range names {
					rel := sc.Name + "/" + name
					if first, ok := kept[string(got[name])]; ok {
						newCopies = append(newCopies, rel+" = "+first)
						continue
					}
					kept[string(got[name])] = rel
					if err := os.WriteFile(filepath.Join(dir, name), got[name], 0o644); err != nil {
						t.Fatal(err)
					}
				}
				for _, name := range yamlFiles(t, dir) {
					if first, ok := kept[string(got[name])]; !ok || first != sc.Name+"/"+name {
						if err := os.Remove(filepath.Join(dir, name)); err != nil {
							t.Fatal(err)
						}
					}
				}
				return
			}
			for _, name := range yamlFiles(t, dir) {
				rel := sc.Name + "/" + name
				if _, ok := got[name]; !ok {
					t.Errorf("%s exists, but its component renders nothing for this scenario (run: go test ./internal/render/... -update)",
						filepath.Join(dir, name))
				}
				if first, ok := copies[rel]; ok {
					t.Errorf("%s exists, but %s names it a copy of %s (run: go test ./internal/render/... -update)", filepath.Join(dir, name), copiesFile, first)
				}
			}
			for _, name := range names {
				path := filepath.Join(dir, name)
				if first, ok := copies[sc.Name+"/"+name]; ok {
					path = filepath.Join(shootGoldenDir, filepath.FromSlash(first))
					if strings.HasPrefix(first, sc.Name+"/") || !strings.HasSuffix(first, "/"+name) {
						t.Errorf("%s: %s = %s: a copy is of the same component of an earlier golden scenario", copiesFile, sc.Name+"/"+name, first)
					}
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Errorf("reading golden file: %v (run: go test ./internal/render/... -update)", err)
					continue
				}
				if !bytes.Equal(got[name], want) {
					t.Errorf("%s differs from the rendered output of %s (-golden +rendered):\n%s\nIf the change is intended, run: go test ./internal/render/... -update",
						path, sc.Name+"/"+name, shortDiff(cmp.Diff(string(want), string(got[name]))))
				}
			}
		})
	}
	if *update {
		if err := os.WriteFile(copiesFile, []byte(copiesHeader+strings.Join(newCopies, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for copyOf := range copies {
		sc, _, _ := strings.Cut(copyOf, "/")
		if !slices.ContainsFunc(scenarios, func(s scenario) bool { return s.Golden && s.Name == sc }) {
			t.Errorf("%s names %s, which is not a file of a golden scenario", copiesFile, copyOf)
		}
	}
}

// TestComponentsAreTheShoot checks that the components together are exactly what Shoot renders:
// every object in one component (manifest.Build rejects duplicates), none missing, same bytes.
// With TestGolden this makes the per-component golden files a complete record of each shoot.
func TestComponentsAreTheShoot(t *testing.T) {
	for _, sc := range everyRelease {
		t.Run(sc.Name, func(t *testing.T) {
			opts := scenarioOptions(t, sc)
			comps, err := render.ShootComponents(&opts)
			if err != nil {
				t.Fatal(err)
			}
			var all []client.Object
			for _, c := range comps {
				all = append(all, c.Objects...)
			}
			shoot, err := rendertest.Shoot(&opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(all) != len(shoot) {
				t.Errorf("the components render %d objects, Shoot %d", len(all), len(shoot))
			}
			if d := cmp.Diff(string(yamlOf(t, shoot)), string(yamlOf(t, all))); d != "" {
				t.Errorf("the components differ from Shoot (-Shoot +components):\n%s", shortDiff(d))
			}
		})
	}
}

// TestWholeShootMatchesBaseline compares the whole-shoot YAML of every scenario (rendertest.Shoot,
// manifest.Build without CRDs, YAML: what the golden files held before they were split by
// component) with <scenario>.yaml, and the seed-side objects with seed-monitoring-<scenario>.yaml,
// in the directory RENDER_BASELINE_DIR names: a copy of internal/render/testdata from a commit
// before a refactoring that must not change any rendered byte. Without the variable it is skipped.
func TestWholeShootMatchesBaseline(t *testing.T) {
	base := os.Getenv("RENDER_BASELINE_DIR")
	if base == "" {
		t.Skip("RENDER_BASELINE_DIR is not set")
	}
	checked := map[string]bool{}
	compare := func(t *testing.T, name string, got []byte) {
		checked[name] = true
		want, err := os.ReadFile(filepath.Join(base, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs (-baseline +rendered):\n%s", name, shortDiff(cmp.Diff(string(want), string(got))))
		}
	}
	for _, sc := range scenarios {
		if _, err := os.Stat(filepath.Join(base, sc.Name+".yaml")); err != nil && !sc.Calico.IsZero() {
			continue // a move scenario the baseline's calico-pilot did not have
		}
		t.Run(sc.Name, func(t *testing.T) { compare(t, sc.Name+".yaml", renderYAML(t, sc)) })
	}
	for _, name := range seedGoldenScenarios {
		t.Run("seed-monitoring-"+name, func(t *testing.T) {
			compare(t, "seed-monitoring-"+name+".yaml", seedYAML(t, scenarioByName(t, name)))
		})
	}
	for _, name := range yamlFiles(t, base) {
		if !checked[name] {
			t.Errorf("baseline file %s was not compared with anything", name)
		}
	}
}

// compareGolden requires the file at path to hold exactly got; with -update it writes got there.
func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file %s: %v (run: go test ./internal/render/... -update)", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the rendered output (-golden +rendered):\n%s\nIf the change is intended, run: go test ./internal/render/... -update",
			path, shortDiff(cmp.Diff(string(want), string(got))))
	}
}

// shortDiff cuts a diff to its first 60 lines.
func shortDiff(d string) string {
	lines := strings.Split(d, "\n")
	if len(lines) > 60 {
		lines = append(lines[:60], fmt.Sprintf("... (%d more lines)", len(lines)-60))
	}
	return strings.Join(lines, "\n")
}

// TestDeterministic renders every scenario at every release twice and requires identical bytes, both for YAML
// and for the stored JSON form.
func TestDeterministic(t *testing.T) {
	for _, sc := range everyRelease {
		t.Run(sc.Name, func(t *testing.T) {
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
	m, err := manifest.Build(nil, renderScenario(t, sc))
	if err != nil {
		t.Fatal(err)
	}
	return m.JSON()
}

// TestGoldenFilesHaveScenarios keeps testdata free of golden files nobody checks: every
// directory in testdata/shoot is a golden scenario, every file in testdata/delta is another
// scenario, every file in testdata/seed-monitoring is one of the seed scenarios, and no golden
// file is left at the top level (the old whole-shoot layout); TestReleaseDeltas does the same for
// testdata/releases.
func TestGoldenFilesHaveScenarios(t *testing.T) {
	known, deltas := map[string]bool{}, map[string]bool{}
	for _, sc := range scenarios {
		known[sc.Name] = sc.Golden
		deltas[sc.Name+".txt"] = !sc.Golden
	}
	delta, err := os.ReadDir(deltaDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range delta {
		if !deltas[e.Name()] {
			t.Errorf("%s is not the delta file of a scenario without golden files", filepath.Join(deltaDir, e.Name()))
		}
	}
	entries, err := os.ReadDir(shootGoldenDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if filepath.Join(shootGoldenDir, e.Name()) == copiesFile {
			continue
		}
		if !e.IsDir() || !known[e.Name()] {
			t.Errorf("%s is not the directory of a golden scenario", filepath.Join(shootGoldenDir, e.Name()))
		}
	}
	for _, name := range yamlFiles(t, seedGoldenDir) {
		if !slices.Contains(seedGoldenScenarios, strings.TrimSuffix(name, ".yaml")) {
			t.Errorf("%s has no seed scenario", filepath.Join(seedGoldenDir, name))
		}
	}
	for _, name := range yamlFiles(t, "testdata") {
		t.Errorf("%s: golden files live in %s/<scenario>/ and %s/", filepath.Join("testdata", name), shootGoldenDir, seedGoldenDir)
	}
}
