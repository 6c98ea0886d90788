package render_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// pairs turns delta lines into "object: change" lines, sorted.
func pairs(lines []string) []string {
	var out []string
	obj := ""
	for _, l := range lines {
		if !strings.HasPrefix(l, " ") {
			obj = l
			if !strings.HasPrefix(l, "~") {
				out = append(out, l) // an object added or removed whole
			}
			continue
		}
		out = append(out, obj+": "+strings.TrimSpace(l))
	}
	slices.Sort(out)
	return out
}

// setDiff is the sorted lines of a not in b.
func setDiff(a, b []string) []string {
	var out []string
	for _, l := range a {
		if _, found := slices.BinarySearch(b, l); !found {
			out = append(out, l)
		}
	}
	return out
}

// linesFile pins what Calico v3.32 changes in every scenario: for each scenario rendered at the
// default line, the delta (delta_test.go) of the same scenario with every component at v3.32. The
// delta of scenario "default" is written once; of the others only what differs from default's
// ("also": a change only this scenario has, "not": one of default's it does not have), and a scenario
// whose delta is the same is only named.
var linesFile = filepath.Join("testdata", "lines", "v3.32.txt")

// TestLineDeltas renders every v3.31 scenario at v3.32 as well and compares what changes with
// testdata/lines/v3.32.txt (-update rewrites it). Each difference between the lines is in the
// component that owns it (docs/calico-lines.md); this file shows every one of them in every
// scenario, so a difference that appears only with some option (eBPF, nftables, no typha) is seen.
func TestLineDeltas(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("# what Calico v3.32 (every component and the CRDs at v3.32) changes in each scenario compared with the same scenario at v3.31\n")
	b.WriteString("# (+ object added, - object removed, ~ object changed: - value removed, + value added; CRDs are not part of the render)\n")
	var common []string
	var same []string
	for _, sc := range scenarios {
		if !sc.Calico.IsZero() {
			continue // a scenario at another line already
		}
		v31 := flatten(t, sc)
		at32 := sc
		at32.Calico = calicoversion.Steady(calicoversion.V3_32)
		lines := delta(v31, flatten(t, at32))
		if len(lines) == 0 {
			t.Errorf("scenario %s: v3.32 renders the same as v3.31", sc.Name)
		}
		switch {
		case sc.Name == "default":
			common = lines
			b.WriteString("\n## default\n")
			b.WriteString(strings.Join(lines, "\n") + "\n")
		case common != nil && slices.Equal(lines, common):
			same = append(same, sc.Name)
		default:
			// Only what differs from default's delta, each line under its object.
			only, missing := setDiff(pairs(lines), pairs(common)), setDiff(pairs(common), pairs(lines))
			b.WriteString("\n## " + sc.Name + "\n")
			for _, l := range only {
				b.WriteString("also " + l + "\n")
			}
			for _, l := range missing {
				b.WriteString("not  " + l + "\n")
			}
		}
	}
	if common == nil {
		t.Fatal("no scenario default")
	}
	b.WriteString("\n## the same as default\n" + strings.Join(same, "\n") + "\n")
	got := b.Bytes()
	if *update {
		if err := os.MkdirAll(filepath.Dir(linesFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(linesFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(linesFile)
	if err != nil {
		t.Fatalf("reading %s: %v (run: go test ./internal/render/... -update)", linesFile, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the rendered output (-file +rendered):\n%s\nIf the change is intended, run: go test ./internal/render/... -update",
			linesFile, shortDiff(cmp.Diff(string(want), string(got))))
	}
}
