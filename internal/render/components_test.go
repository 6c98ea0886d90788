package render

import (
	"os"
	"testing"
)

// TestComponentsOwnTheirFiles checks the component table: every component has a distinct name
// that is also its file (node -> node.go). That every constant group belongs to exactly one
// component is checked over every scenario by TestEachConstantGroupHasOneComponent.
func TestComponentsOwnTheirFiles(t *testing.T) {
	names := map[string]bool{}
	for _, c := range components {
		if c.name == "" || c.render == nil {
			t.Fatalf("component %+v has no name or no objects function", c)
		}
		if names[c.name] {
			t.Errorf("component name %q is used twice", c.name)
		}
		names[c.name] = true
		if _, err := os.Stat(c.name + ".go"); err != nil {
			t.Errorf("component %q has no file %s.go: %v", c.name, c.name, err)
		}
	}
}
