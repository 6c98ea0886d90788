package cmd

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestInvalidExamplesReadme keeps examples/invalid/README.md honest: its table lists exactly the
// files in the directory, and every field path it names for a file (a backticked dotted path,
// up to a ": ") is in what `validate` reports for that file.
func TestInvalidExamplesReadme(t *testing.T) {
	const dir = "../../examples/invalid/"
	readme, err := os.ReadFile(dir + "README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([^`]+\\.yaml)` \\| (.*) \\|$")
	code := regexp.MustCompile("`([^`]+)`")
	fieldPath := regexp.MustCompile(`^[A-Za-z][A-Za-z0-9\[\]]*(\.[A-Za-z0-9\[\]]+)+$`)
	described := map[string][]string{}
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		var paths []string
		for _, c := range code.FindAllStringSubmatch(m[2], -1) {
			// `overlay.enabled: true` names the path overlay.enabled.
			p, _, _ := strings.Cut(c[1], ": ")
			if fieldPath.MatchString(p) {
				paths = append(paths, p)
			}
		}
		described[m[1]] = paths
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files, listed []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".yaml") {
			files = append(files, e.Name())
		}
	}
	for f := range described {
		listed = append(listed, f)
	}
	sort.Strings(listed)
	if diff := cmp.Diff(files, listed); diff != "" {
		t.Errorf("README table vs files in %s (-files +README):\n%s", dir, diff)
	}
	for file, paths := range described {
		_, out, errOut := runCLI(t, "validate", "-f", dir+file)
		for _, p := range paths {
			if !strings.Contains(out+errOut, p) {
				t.Errorf("README says %s has a mistake at %s; validate does not report it:\n%s%s", file, p, out, errOut)
			}
		}
	}
}
