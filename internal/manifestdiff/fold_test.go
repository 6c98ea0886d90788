package manifestdiff

import (
	"io"
	"strings"
	"testing"

	"github.com/calico-pilot/calico-pilot/internal/manifestdiff/manifestdifftest"
)

// TestWriteTextFolding: a folded kind's field changes are one line with their counts, its impacts
// stay; other kinds and an unfolded report show every field.
func TestWriteTextFolding(t *testing.T) {
	p := newParser(t)
	old := mrSet(t, p, manifestdifftest.IPPoolCRD("cidr: {type: string}", "disabled: {type: boolean}"))
	new := mrSet(t, p, manifestdifftest.IPPoolCRD("cidr: {type: string}", "blockSize: {type: integer}", "natOutgoing: {type: boolean}"))
	d := classified(old, new)
	full := textOf(t, d)
	folded := written(t, func(w io.Writer) error { return d.WriteTextFolding(w, "CustomResourceDefinition") })
	if !strings.Contains(full, "blockSize") || strings.Contains(folded, "blockSize") {
		t.Errorf("folding did not fold the schema fields:\nfull:\n%s\nfolded:\n%s", full, folded)
	}
	if !strings.Contains(folded, "field(s) changed (2 added, 1 removed, 0 changed; folded)") {
		t.Errorf("folded report lacks the counts:\n%s", folded)
	}
	if !strings.Contains(folded, "why ") || strings.Count(folded, "\n") >= strings.Count(full, "\n") {
		t.Errorf("folded report lost the impacts or is not shorter:\n%s", folded)
	}
	if got := written(t, func(w io.Writer) error { return d.WriteTextFolding(w, "Deployment") }); got != full {
		t.Errorf("folding another kind changed the report:\n%s", got)
	}
}
