package crds_test

import (
	"testing"

	"github.com/calico-pilot/calico-pilot/api/projectcalico/crds"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// TestEveryLineHasItsCRDSet: each line of the Calico catalogue names an embedded CRD set, and no
// embedded set is left without a line.
func TestEveryLineHasItsCRDSet(t *testing.T) {
	used := map[string]bool{}
	for _, l := range calicoversion.Default().Lines() {
		defs, err := crds.CustomResourceDefinitionsFor(l.CRDSet())
		if err != nil || len(defs) == 0 {
			t.Errorf("line %s: CRD set %q: %d CRDs, %v", l, l.CRDSet(), len(defs), err)
		}
		used[l.CRDSet()] = true
	}
	for _, s := range crds.Sets() {
		if !used[s] {
			t.Errorf("embedded CRD set %s belongs to no line of the catalogue", s)
		}
	}
}
