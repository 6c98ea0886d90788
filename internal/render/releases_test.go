package render_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
)

// releasesDir holds one file per release of the catalogue other than the base release
// (rendertest.Base, whose renders testdata/shoot and testdata/delta pin): testdata/releases/<release>.txt
// is what that release changes in every scenario, compared with the same scenario at the base release.
var releasesDir = filepath.Join("testdata", "releases")

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

// releaseFile is what release r changes in every base scenario (the scenarios at rendertest.Base):
// the delta (delta_test.go) of the scenario at r
// against the same scenario at the base release. The delta of scenario "default" is written in
// full; of every other scenario only what differs from default's ("also": a change only this
// scenario has, "not": one of default's it does not have); a scenario whose delta is default's is
// only named. The header lists the catalogue's differences (internal/calicoversion) that r has and
// the base release lacks, and the reverse: what the file shows must be those and the images.
func releaseFile(t *testing.T, r calicoversion.Release) []byte {
	t.Helper()
	base := rendertest.Base()
	var b bytes.Buffer
	b.WriteString("# what Calico " + r.Name() + " (every component and the CRDs at " + r.Name() + ") changes in each scenario compared with the same scenario at " + base.Name() + ", the base release\n")
	b.WriteString("# (+ object added, - object removed, ~ object changed: - value removed, + value added; \"path | text\" is a line of a\n")
	b.WriteString("# multi-line string; CRDs are not part of the render: api/projectcalico/crds holds each line's)\n")
	b.WriteString("# catalogue differences " + r.Name() + " has and " + base.Name() + " lacks: " + differenceNames(r, base) + "\n")
	b.WriteString("# catalogue differences " + base.Name() + " has and " + r.Name() + " lacks: " + differenceNames(base, r) + "\n")
	var common, same []string
	for _, sc := range scenarios {
		if !sc.Calico.IsZero() {
			continue // a move scenario: testdata/delta
		}
		lines := delta(flatten(t, sc), flatten(t, sc.At(r)))
		if len(lines) == 0 {
			t.Errorf("scenario %s: %s renders the same as %s (its images at least must differ)", sc.Name, r, base)
		}
		switch {
		case sc.Name == "default":
			common = lines
			b.WriteString("\n## default\n")
			b.WriteString(strings.Join(lines, "\n") + "\n")
		case common != nil && slices.Equal(lines, common):
			same = append(same, sc.Name)
		default:
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
	return b.Bytes()
}

// differenceNames lists the differences a has and b lacks ("none").
func differenceNames(a, b calicoversion.Release) string {
	var out []string
	for _, d := range a.Differences() {
		if !b.Has(d.Name) {
			out = append(out, string(d.Name))
		}
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// TestReleaseDeltas renders every base scenario at every release of the catalogue and compares what
// each release changes with testdata/releases/<release>.txt (-update rewrites them). Each
// difference between releases is in the component that owns it (docs/calico-lines.md); these files
// show every one of them in every scenario, so a difference that appears only with some option
// (eBPF, nftables, no typha) is seen, and a release's review is one file.
func TestReleaseDeltas(t *testing.T) {
	want := map[string]bool{}
	for _, r := range calicoversion.Default().Releases() {
		if r == rendertest.Base() {
			continue // pinned whole: testdata/shoot and testdata/delta
		}
		want[r.Name()+".txt"] = true
		t.Run(r.Name(), func(t *testing.T) {
			compareGolden(t, filepath.Join(releasesDir, r.Name()+".txt"), releaseFile(t, r))
		})
	}
	entries, err := os.ReadDir(releasesDir)
	if err != nil && !*update {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !want[e.Name()] {
			if *update {
				if err := os.Remove(filepath.Join(releasesDir, e.Name())); err != nil {
					t.Fatal(err)
				}
				continue
			}
			t.Errorf("%s is not the file of a release of the catalogue other than the base release", filepath.Join(releasesDir, e.Name()))
		}
	}
}

// stringLines returns the lines of a flattened JSON string value holding a newline.
func stringLines(v string) ([]string, bool) {
	var s string
	if !strings.HasPrefix(v, `"`) || json.Unmarshal([]byte(v), &s) != nil || !strings.Contains(s, "\n") {
		return nil, false
	}
	return strings.Split(s, "\n"), true
}

// lineDiff is the lines of a removed ("- path | text") and added ("+ path | text") to make b, in
// order (longest common subsequence).
func lineDiff(path string, a, b []string) []string {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, "  - "+path+" | "+a[i])
			i++
		default:
			out = append(out, "  + "+path+" | "+b[j])
			j++
		}
	}
	return out
}
