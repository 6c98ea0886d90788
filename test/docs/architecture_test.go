package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// TestArchitectureListsEveryPackage: every Go package under internal/ has a row (or a shared row,
// "`internal/a`, `internal/b`") in docs/architecture.md's package table, and every internal/ package
// the table names exists.
func TestArchitectureListsEveryPackage(t *testing.T) {
	root := testenv.RepoRoot()
	data, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.Split(line, "|")[1]
		for _, part := range strings.Split(first, "`") {
			if strings.HasPrefix(part, "internal/") {
				named[part] = true
			}
		}
	}
	packages := map[string]bool{}
	err = filepath.WalkDir(filepath.Join(root, "internal"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			packages[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(packages) < 30 {
		t.Fatalf("found only %d packages under internal/", len(packages))
	}
	for p := range packages {
		if !named[p] {
			t.Errorf("docs/architecture.md: package %s has no row in the package table", p)
		}
	}
	for p := range named {
		if !packages[p] {
			t.Errorf("docs/architecture.md names %s, which is not a package", p)
		}
	}
}
