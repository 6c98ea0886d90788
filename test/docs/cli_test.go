package docs

import (
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/calico-pilot/calico-pilot/internal/cmd"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// cliHeading is a command's section heading in docs/cli.md: "## `calico-pilot pools migrate`".
var cliHeading = regexp.MustCompile("(?m)^## `calico-pilot ([a-z -]+)`$")

// readmeCommandRow is a row of the README's command table: "| [`pools migrate`](docs/cli.md#anchor) | ... |".
var readmeCommandRow = regexp.MustCompile("(?m)^\\| \\[`([a-z -]+)`\\]\\(docs/cli\\.md#([a-z0-9-]+)\\) \\| (.+) \\|$")

// pageLink is a link to another docs page: "[plan.md](plan.md)".
var pageLink = regexp.MustCompile(`\]\(([a-z0-9.-]+\.md)(#[a-z0-9-]+)?\)`)

// TestCLIReferenceListsEveryCommand: docs/cli.md has exactly one section per command of the CLI
// (its path below calico-pilot, as TestArchitectureListsEveryCommand counts them) and none for a
// command that does not exist; each section says how the command exits and links the docs page
// with its details, which exists.
func TestCLIReferenceListsEveryCommand(t *testing.T) {
	root := testenv.RepoRoot()
	data, err := os.ReadFile(filepath.Join(root, "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	sections := map[string]string{}
	locs := cliHeading.FindAllStringSubmatchIndex(text, -1)
	for i, loc := range locs {
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		body := text[loc[1]:end]
		// The last section ends where the next "## " heading that is not a command starts.
		if j := strings.Index(body, "\n## "); j >= 0 {
			body = body[:j]
		}
		name := text[loc[2]:loc[3]]
		if _, dup := sections[name]; dup {
			t.Errorf("docs/cli.md: two sections for `calico-pilot %s`", name)
		}
		sections[name] = body
	}
	if diff := cmp.Diff(commands(t), slices.Sorted(maps.Keys(sections))); diff != "" {
		t.Errorf("docs/cli.md sections vs the CLI's commands (-commands +sections):\n%s", diff)
	}
	for name, body := range sections {
		if !strings.Contains(body, "- **Exit**: ") {
			t.Errorf("docs/cli.md: the section of `calico-pilot %s` has no \"- **Exit**: \" line", name)
		}
		page := ""
		for _, line := range strings.Split(body, "\n") {
			if strings.HasPrefix(line, "- **Page**: ") {
				page = line
			}
		}
		links := pageLink.FindAllStringSubmatch(page, -1)
		if len(links) == 0 {
			t.Errorf("docs/cli.md: the section of `calico-pilot %s` links no page (\"- **Page**: [x.md](x.md)\")", name)
		}
		for _, l := range links {
			if _, err := os.Stat(filepath.Join(root, "docs", l[1])); err != nil {
				t.Errorf("docs/cli.md: the section of `calico-pilot %s` links %s, which does not exist", name, l[1])
			}
		}
	}
}

// TestReadmeListsEveryCommand: the README's command table has one row per command of the CLI, each
// linking its section of docs/cli.md by the anchor GitHub gives that section's heading, with one
// short line of its own (the details are in docs/cli.md).
func TestReadmeListsEveryCommand(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, m := range readmeCommandRow.FindAllStringSubmatch(string(data), -1) {
		name, anchor, line := m[1], m[2], m[3]
		listed = append(listed, name)
		if want := headingAnchor("calico-pilot " + name); anchor != want {
			t.Errorf("README: the row of `%s` links docs/cli.md#%s, want #%s", name, anchor, want)
		}
		if len(line) > 150 {
			t.Errorf("README: the row of `%s` has %d characters; keep it to one short line (details go to docs/cli.md)", name, len(line))
		}
	}
	slices.Sort(listed)
	if diff := cmp.Diff(commands(t), listed); diff != "" {
		t.Errorf("README command table vs the CLI's commands (-commands +README):\n%s", diff)
	}
}

// commands are the CLI's commands by their path below calico-pilot, sorted: every runnable command
// and every leaf, without cobra's help and completion.
func commands(t *testing.T) []string {
	t.Helper()
	root := cmd.NewRootCommand(cmd.IO{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard})
	var out []string
	var walk func(c *cobra.Command, path string)
	walk = func(c *cobra.Command, path string) {
		if path != "" && (c.Runnable() || !c.HasSubCommands()) {
			out = append(out, path)
		}
		for _, sub := range c.Commands() {
			if sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			walk(sub, strings.TrimSpace(path+" "+sub.Name()))
		}
	}
	walk(root, "")
	if len(out) < 10 {
		t.Fatalf("found only %d commands", len(out))
	}
	slices.Sort(out)
	return out
}

// headingAnchor is the anchor GitHub gives a heading of inline code: lower case, spaces as dashes.
func headingAnchor(heading string) string {
	return strings.ReplaceAll(strings.ToLower(heading), " ", "-")
}
