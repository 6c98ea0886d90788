package render

import (
	"os"
	"testing"
)

// TestComponentsOwnTheirFilesAndGroups checks the component table: every component has a
// distinct name that is also its file (node -> node.go), and every constant group belongs to
// exactly one component, so the per-component golden files hold each object once.
func TestComponentsOwnTheirFilesAndGroups(t *testing.T) {
	names := map[string]bool{}
	owners := map[ConstantGroup][]string{}
	for _, c := range components {
		if c.name == "" || c.objects == nil {
			t.Fatalf("component %+v has no name or no objects function", c)
		}
		if names[c.name] {
			t.Errorf("component name %q is used twice", c.name)
		}
		names[c.name] = true
		if _, err := os.Stat(c.name + ".go"); err != nil {
			t.Errorf("component %q has no file %s.go: %v", c.name, c.name, err)
		}
		for _, g := range c.groups {
			owners[g] = append(owners[g], c.name)
		}
	}
	for g := range numConstantGroups {
		if len(owners[g]) != 1 {
			t.Errorf("constant group %d belongs to components %v, want exactly one", g, owners[g])
		}
	}
}
