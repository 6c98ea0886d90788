package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// outsideRef matches a citation of a file that lives beside the repository rather than in it (the
// fact files the docs/ pages were written from). A reader of the repository has none of them.
var outsideRef = regexp.MustCompile(`\.\./shared|shared/reference|calico-v3\.31-components|calico-v3\.3[12](\.7)?-delta|` +
	`gardener-wire-types|networking-calico-reference|ippool-lifecycle|calico-crd-fields|DESIGN\.md|CONVENTIONS\.md`)

// docsRef matches a code comment's citation of a docs page.
var docsRef = regexp.MustCompile(`docs/([a-z0-9.-]+\.md)`)

// outsideRefAllowed are the files that may name ../shared: tests that read a fact file there skip
// where it is absent, and the CI entry point and the bump-cases target say where those inputs are.
var outsideRefAllowed = map[string]bool{
	".ci/run":  true,
	"Makefile": true,
}

// TestFactsCiteTheRepository: code, docs, scripts and data files cite the repository's own docs/
// pages for the facts they rely on, never a file outside the repository, and every docs/ page a
// comment cites exists. Test files may name ../shared only where they read a fact file (and skip
// without it).
func TestFactsCiteTheRepository(t *testing.T) {
	root := testenv.RepoRoot()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") && d.Name() != ".ci" || d.Name() == "bin" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if outsideRefAllowed[rel] || strings.HasSuffix(rel, "_test.go") || !citable(rel) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if m := outsideRef.FindString(line); m != "" {
				t.Errorf("%s:%d cites %q, outside the repository: cite the docs/ page that states the fact", rel, i+1, m)
			}
			if strings.HasSuffix(rel, ".md") {
				continue
			}
			for _, m := range docsRef.FindAllStringSubmatch(line, -1) {
				if _, err := os.Stat(filepath.Join(root, "docs", m[1])); err != nil {
					t.Errorf("%s:%d cites docs/%s, which does not exist", rel, i+1, m[1])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// citable reports whether a file is one whose comments or text may cite facts.
func citable(rel string) bool {
	for _, ext := range []string{".go", ".md", ".yaml", ".sh", ".conf"} {
		if strings.HasSuffix(rel, ext) {
			return true
		}
	}
	return false
}
