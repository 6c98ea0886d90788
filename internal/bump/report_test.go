package bump

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReportFormats(t *testing.T) {
	ou, od, nu, _ := readCase(t, filepath.Join("testdata", "commented-block-removed"))
	res, err := Merge(context.Background(), ou, od, nu, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `{
  "oldUpstream": "old-upstream.yaml",
  "oldDownstream": "old-downstream.yaml",
  "newUpstream": "new-upstream.yaml",
  "fromVersion": "v3.22.0",
  "toVersion": "v3.24.1",
  "versionSource": "upstream image tags",
  "maskedTemplates": 0,
  "patches": [
    {
      "id": 1,
      "kind": "commented-out",
      "document": "DaemonSet/calico-node",
      "anchor": ".spec.template.spec.initContainers[name=flexvol-driver]",
      "summary": "# Note: no Dikastes here.",
      "oldUpstreamLines": {
        "from": 12,
        "to": 15
      },
      "oldDownstreamLines": {
        "from": 12,
        "to": 16
      },
      "status": "applied",
      "notes": [
        "the new upstream removed the block this patch commented out; the commented copy and its comments were dropped"
      ]
    }
  ],
  "conflicts": 0,
  "checks": [
    {
      "name": "image rewrites",
      "ok": true,
      "message": "the downstream rewrote no image references"
    }
  ]
}
`
	var js strings.Builder
	if err := res.Report.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantJSON, js.String()); diff != "" {
		t.Errorf("JSON report mismatch (-want +got):\n%s", diff)
	}
	wantText := `calico-pilot bump report
  old upstream:   old-upstream.yaml
  old downstream: old-downstream.yaml
  new upstream:   new-upstream.yaml
  versions:       v3.22.0 -> v3.24.1 (from upstream image tags)
  masked template pieces: 0

1 downstream patches, 0 conflicts

patch 1 [applied] commented-out: # Note: no Dikastes here.
  at:     DaemonSet/calico-node .spec.template.spec.initContainers[name=flexvol-driver]
  lines:  old upstream 12-15, old downstream 12-16, output -
  note:   the new upstream removed the block this patch commented out; the commented copy and its comments were dropped

checks:
  ok   image rewrites: the downstream rewrote no image references
`
	var txt strings.Builder
	if err := res.Report.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantText, txt.String()); diff != "" {
		t.Errorf("text report mismatch (-want +got):\n%s", diff)
	}
}
