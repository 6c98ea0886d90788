package bump

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// realCasesDir is where the shared real bump cases live (../shared from the repository root).
const realCasesDir = "../../../shared/bump-cases"

// realCase is one real MetalK8s bump with the most differing lines we accept (what the engine
// achieves today; lower is better) and the differences the README lists as not derivable.
type realCase struct {
	name string
	// files, when set, names old-upstream, old-downstream, new-upstream and the expected file
	// relative to realCasesDir (derived cases that combine two real cases); otherwise the case
	// folder's own four files are used.
	files [4]string
	// maxDiffLines is the regression bound: lines differing from new-deployed.sls.
	maxDiffLines int
	// nonDerivable is how many of those lines the README lists as not derivable from the inputs.
	nonDerivable int
	// maxConflicts bounds the conflict blocks left in the output.
	maxConflicts int
	// mergeFile is the diff-line count of `git merge-file` on the same case (from
	// bump-cases/README.md), for comparison.
	mergeFile int
}

// The not-derivable counts are in diff lines (a changed line counts twice: removed and added).
var realCases = []realCase{
	// Maintainer added a "# NOTE: ... PortMap" comment (1) and kept the stale v3.24.1 header,
	// which the tool moves to v3.25.0 (2).
	{name: "3.24.1_to_3.25.0", maxDiffLines: 3, nonDerivable: 3, mergeFile: 21},
	{name: "3.25.0_to_3.26.1", maxDiffLines: 0, nonDerivable: 0, mergeFile: 22},
	// Maintainer restored one blank line the old downstream had removed.
	{name: "3.20.0_to_3.22.0", maxDiffLines: 1, nonDerivable: 1, mergeFile: 93},
	// Listed: IP autodetection method changed (5), kube-controllers pinned to masters (3), new
	// Note comments (2+1+4). Not listed but equally maintainer-made: one blank line added after
	// the RBAC subject, two trailing blank lines removed (3).
	{name: "3.12.0_to_3.16.1", maxDiffLines: 18, nonDerivable: 18, mergeFile: 183},

	// Derived cases, built from the files of two real cases. Their expected file is what the
	// maintainers committed at the target version, so every patch they added in between counts
	// as not derivable.
	// Skipping a release: only the PortMap NOTE added at 3.25.0 is missing (1).
	{name: "3.24.1_to_3.26.1*", nonDerivable: 1, maxDiffLines: 1, files: [4]string{
		"3.24.1_to_3.25.0/old-upstream.yaml", "3.24.1_to_3.25.0/old-deployed.sls", "3.25.0_to_3.26.1/new-upstream.yaml", "3.25.0_to_3.26.1/new-deployed.sls"}},
	// Downgrade: the PortMap NOTE (1) and the "- watch" trailing space the maintainers had fixed (2).
	{name: "3.26.1_to_3.24.1*", nonDerivable: 3, maxDiffLines: 3, files: [4]string{
		"3.25.0_to_3.26.1/new-upstream.yaml", "3.25.0_to_3.26.1/new-deployed.sls", "3.24.1_to_3.25.0/old-upstream.yaml", "3.24.1_to_3.25.0/old-deployed.sls"}},
	// Older era, 3.16.1 -> 3.20.0: every difference is a patch the maintainers added or changed
	// in between (MTU comment, CALICO_MANAGE_CNI, FELIX_LOGSEVERITYSCREEN, more commented-out
	// mounts and volumes, Note comments, the "- watch" fix, two blank lines), plus the two
	// trailing blank lines the 3.16.1 downstream had removed (a patch the tool carries) and the
	// 3.20.0 maintainers had back.
	{name: "3.16.1_to_3.20.0*", nonDerivable: 33, maxDiffLines: 33, files: [4]string{
		"3.12.0_to_3.16.1/new-upstream.yaml", "3.12.0_to_3.16.1/new-deployed.sls", "3.20.0_to_3.22.0/old-upstream.yaml", "3.20.0_to_3.22.0/old-deployed.sls"}},
	// Across the eras, 3.22.0 -> 3.24.1: the maintainers changed strategy in between (CNI
	// containers and mounts no longer commented out, the RBAC group and two env vars dropped, a
	// checksum annotation and a header line added, the new mount-bpffs image rewritten, which the
	// image check reports). The table pins the count; every difference was read and is one of
	// these.
	{name: "3.22.0_to_3.24.1*", nonDerivable: 262, maxDiffLines: 262, files: [4]string{
		"3.20.0_to_3.22.0/new-upstream.yaml", "3.20.0_to_3.22.0/new-deployed.sls", "3.24.1_to_3.25.0/old-upstream.yaml", "3.24.1_to_3.25.0/old-deployed.sls"}},
}

func loadCase(t testing.TB, name string) (Input, Input, Input, []byte) {
	t.Helper()
	return loadFiles(t, [4]string{
		filepath.Join(name, "old-upstream.yaml"), filepath.Join(name, "old-deployed.sls"),
		filepath.Join(name, "new-upstream.yaml"), filepath.Join(name, "new-deployed.sls"),
	})
}

func loadFiles(t testing.TB, files [4]string) (Input, Input, Input, []byte) {
	t.Helper()
	read := func(f string) []byte {
		b, err := os.ReadFile(filepath.Join(realCasesDir, f))
		if err != nil {
			t.Fatalf("reading %s: %v", f, err)
		}
		return b
	}
	return Input{Name: files[0], Data: read(files[0])}, Input{Name: files[1], Data: read(files[1])},
		Input{Name: files[2], Data: read(files[2])}, read(files[3])
}

// diffLines counts the lines of a minimal line diff between got and want (added plus removed).
func diffLines(got, want string) int {
	g, _ := splitLines(got)
	w, _ := splitLines(want)
	ids := keyTable{}
	intern := func(ls []string) []int {
		out := make([]int, len(ls))
		for i, l := range ls {
			out[i] = ids.id(l)
		}
		return out
	}
	matched := len(matchLines(context.Background(), intern(g), intern(w)))
	return len(g) - matched + len(w) - matched
}

func TestRealCases(t *testing.T) {
	if _, err := os.Stat(realCasesDir); err != nil {
		t.Skipf("real bump cases not available at %s (CI has ../shared): %v", realCasesDir, err)
	}
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-18s %10s %13s %10s %8s %16s\n", "case", "diff lines", "not derivable", "conflicts", "patches", "git merge-file")
	for _, rc := range realCases {
		t.Run(rc.name, func(t *testing.T) {
			var ou, od, nu Input
			var want []byte
			if rc.files[0] != "" {
				ou, od, nu, want = loadFiles(t, rc.files)
			} else {
				ou, od, nu, want = loadCase(t, rc.name)
			}
			res, err := Merge(context.Background(), ou, od, nu, Options{})
			if err != nil {
				t.Fatalf("Merge: %v", err)
			}
			got := diffLines(string(res.Output), string(want))
			mergeFile := "-"
			if rc.mergeFile > 0 {
				mergeFile = fmt.Sprint(rc.mergeFile)
			}
			fmt.Fprintf(&table, "%-18s %10d %13d %10d %8d %16s\n", rc.name, got, rc.nonDerivable, res.Report.Conflicts, len(res.Report.Patches), mergeFile)
			if got > rc.maxDiffLines {
				t.Errorf("output differs from new-deployed.sls in %d lines, want at most %d", got, rc.maxDiffLines)
			}
			if res.Report.Conflicts > rc.maxConflicts {
				t.Errorf("%d conflicts, want at most %d", res.Report.Conflicts, rc.maxConflicts)
			}
			// Without an upstream change the downstream must come back byte for byte.
			same, err := Merge(context.Background(), ou, od, Input{Name: "old-upstream (again)", Data: ou.Data}, Options{})
			if err != nil {
				t.Fatalf("Merge onto the same upstream: %v", err)
			}
			if string(same.Output) != string(od.Data) || same.Report.Conflicts != 0 {
				t.Errorf("merging onto the unchanged upstream gives %d differing lines and %d conflicts, want the old downstream unchanged",
					diffLines(string(same.Output), string(od.Data)), same.Report.Conflicts)
			}
			if dir := os.Getenv("BUMP_CASES_OUT"); dir != "" {
				if err := os.WriteFile(filepath.Join(dir, rc.name+".out"), res.Output, 0o644); err != nil {
					t.Fatal(err)
				}
				var rep strings.Builder
				if err := res.Report.WriteText(&rep); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, rc.name+".report"), []byte(rep.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	table.WriteString("(* = derived case combining two real cases; see realCases)\n")
	t.Log(table.String())
}

// TestRealCaseUpstreamMove moves the CALICO_IPV4POOL_IPIP env var (with its upstream comment)
// further down in the real 3.26.1 upstream and expects the maintainers' 3.26.1 file with the same
// move: the MetalK8s Note comments and the CrossSubnet value travel with the variable.
func TestRealCaseUpstreamMove(t *testing.T) {
	if _, err := os.Stat(realCasesDir); err != nil {
		t.Skipf("real bump cases not available at %s: %v", realCasesDir, err)
	}
	ou, od, nu, want := loadCase(t, "3.25.0_to_3.26.1")
	up := strings.Split(string(nu.Data), "\n")
	exp := strings.Split(string(want), "\n")
	// move cuts lines [from, from+n) (0-based) and puts them before index to (in the original
	// numbering, to > from).
	move := func(lines []string, from, n, to int) []string {
		block := append([]string(nil), lines[from:from+n]...)
		out := append([]string(nil), lines[:from]...)
		out = append(out, lines[from+n:to]...)
		out = append(out, block...)
		return append(out, lines[to:]...)
	}
	find := func(lines []string, text string) int {
		for i, l := range lines {
			if l == text {
				return i
			}
		}
		t.Fatalf("line %q not found", text)
		return -1
	}
	// Upstream: "# Enable IPIP", "- name: CALICO_IPV4POOL_IPIP", "value: Always" go after the
	// FELIX_HEALTHENABLED value line.
	ipip := find(up, "            # Enable IPIP")
	health := find(up, "            - name: FELIX_HEALTHENABLED")
	nu.Data = []byte(strings.Join(move(up, ipip, 3, health+2), "\n"))
	// Expected: the five downstream lines follow FELIX_HEALTHENABLED, before the variable the
	// downstream appended at the end of the list (which stays last).
	dIPIP := find(exp, "            # Enable IPIP")
	usage := find(exp, "            # Note: We do not want to report about outgoing connections")
	wantOut := strings.Join(move(exp, dIPIP, 5, usage), "\n")

	mergeClean(t, ou, od, nu, wantOut, "moved")
}

// mergeClean merges a real case without conflicts into exactly wantOut (the expected what file).
func mergeClean(t *testing.T, ou, od, nu Input, wantOut, what string) *Result {
	t.Helper()
	res, err := Merge(context.Background(), ou, od, nu, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.Conflicts != 0 {
		t.Errorf("%d conflicts, want none", res.Report.Conflicts)
	}
	if n := diffLines(string(res.Output), wantOut); n != 0 {
		t.Errorf("output differs from the expected %s file in %d lines", what, n)
	}
	return res
}

// TestRealCaseUpstreamRename renames the mount-bpffs init container to ebpf-bootstrap in the
// real 3.26.1 upstream (as later Calico releases did) and expects the maintainers' 3.26.1 file
// with the same rename: the build_image_name rewrite of its image follows the new name.
func TestRealCaseUpstreamRename(t *testing.T) {
	if _, err := os.Stat(realCasesDir); err != nil {
		t.Skipf("real bump cases not available at %s: %v", realCasesDir, err)
	}
	ou, od, nu, want := loadCase(t, "3.25.0_to_3.26.1")
	const from, to = `        - name: "mount-bpffs"`, `        - name: ebpf-bootstrap`
	if strings.Count(string(nu.Data), from) != 1 || strings.Count(string(want), from) != 1 {
		t.Fatalf("expected exactly one %q line in the new upstream and the expected file", from)
	}
	nu.Data = []byte(strings.Replace(string(nu.Data), from, to, 1))
	wantOut := strings.Replace(string(want), from, to, 1)

	res := mergeClean(t, ou, od, nu, wantOut, "renamed")
	wantNotes := []string{"upstream renamed DaemonSet/kube-system/calico-node .spec.template.spec.initContainers[name=mount-bpffs] to .spec.template.spec.initContainers[name=ebpf-bootstrap]; patches to it follow the new name"}
	if diff := cmp.Diff(wantNotes, res.Report.Notes); diff != "" {
		t.Errorf("notes mismatch (-want +got):\n%s", diff)
	}
}
