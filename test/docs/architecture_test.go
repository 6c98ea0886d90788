package docs

import (
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/calico-pilot/calico-pilot/internal/cmd"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// packageRoots are the folders whose Go packages the package table lists.
var packageRoots = []string{"api", "cmd", "deploy", "hack", "internal", "test"}

// TestArchitectureListsEveryPackage: every Go package under api/, cmd/, deploy/, hack/ (its nested
// tool modules included), internal/ and test/ has a row (or a shared row, "`internal/a`,
// `internal/b`") in docs/architecture.md's package table, and every package the table names
// exists. A "<name>" step in a named path stands for any one folder (`test/integration/<area>`).
func TestArchitectureListsEveryPackage(t *testing.T) {
	root := testenv.RepoRoot()
	named := map[string]bool{}
	for _, row := range tableRows(t, root) {
		for _, part := range strings.Split(row[0], "`") {
			for _, r := range packageRoots {
				if part == r || strings.HasPrefix(part, r+"/") {
					named[part] = true
				}
			}
		}
	}
	packages := map[string]bool{}
	for _, r := range packageRoots {
		err := filepath.WalkDir(filepath.Join(root, r), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(path, ".go") {
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
	}
	if len(packages) < 60 {
		t.Fatalf("found only %d packages", len(packages))
	}
	for p := range packages {
		if !listed(named, p) {
			t.Errorf("docs/architecture.md: package %s has no row in the package table", p)
		}
	}
	for n := range named {
		if !slices.ContainsFunc(slices.Collect(maps.Keys(packages)), func(p string) bool { return matches(n, p) }) {
			t.Errorf("docs/architecture.md names %s, which is not a package", n)
		}
	}
}

// TestArchitectureListsEveryCommand: the internal/cmd row of the package table names every command
// of the CLI by its path below calico-pilot (`pools migrate`, `rollout status`), except the
// groups that only hold subcommands and cobra's own help and completion.
func TestArchitectureListsEveryCommand(t *testing.T) {
	var cmdRow string
	for _, row := range tableRows(t, testenv.RepoRoot()) {
		if strings.TrimSpace(row[0]) == "`internal/cmd`" {
			cmdRow = row[1]
		}
	}
	if cmdRow == "" {
		t.Fatal("docs/architecture.md has no internal/cmd row")
	}
	listed := map[string]bool{}
	for i, part := range strings.Split(cmdRow, "`") {
		if i%2 == 1 {
			listed[part] = true
		}
	}
	root := cmd.NewRootCommand(cmd.IO{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard})
	var walk func(c *cobra.Command, path string) int
	walk = func(c *cobra.Command, path string) int {
		n := 0
		if path != "" && (c.Runnable() || !c.HasSubCommands()) {
			n++
			if !listed[path] {
				t.Errorf("docs/architecture.md: the internal/cmd row does not list the command `%s`", path)
			}
		}
		for _, sub := range c.Commands() {
			if sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			n += walk(sub, strings.TrimSpace(path+" "+sub.Name()))
		}
		return n
	}
	if n := walk(root, ""); n < 10 {
		t.Fatalf("found only %d commands", n)
	}
}

// tableRows returns the first two cells of each row of docs/architecture.md's package table.
func tableRows(t *testing.T, root string) [][2]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	var rows [][2]string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 3 {
			continue
		}
		rows = append(rows, [2]string{cells[1], strings.Join(cells[2:], "|")})
	}
	return rows
}

// listed reports whether package p is named, directly or through a "<name>" step.
func listed(named map[string]bool, p string) bool {
	for n := range named {
		if matches(n, p) {
			return true
		}
	}
	return false
}

// matches reports whether the named path n stands for package p: the same steps, where a step
// "<name>" matches any one step.
func matches(n, p string) bool {
	ns, ps := strings.Split(n, "/"), strings.Split(p, "/")
	if len(ns) != len(ps) {
		return false
	}
	for i := range ns {
		if ns[i] != ps[i] && !(strings.HasPrefix(ns[i], "<") && strings.HasSuffix(ns[i], ">")) {
			return false
		}
	}
	return true
}
