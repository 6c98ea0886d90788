package bump

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the want files of the synthetic cases under testdata/")

// readCase reads a synthetic case directory: old-upstream.yaml, old-downstream.{yaml,sls},
// new-upstream.yaml and the expected want.{yaml,sls}.
func readCase(t *testing.T, dir string) (Input, Input, Input, string) {
	t.Helper()
	find := func(stem string) string {
		matches, err := filepath.Glob(filepath.Join(dir, stem+".*"))
		if err != nil || len(matches) != 1 {
			t.Fatalf("want exactly one %s.* in %s, got %v (%v)", stem, dir, matches, err)
		}
		return matches[0]
	}
	read := func(path string) Input {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return Input{Name: filepath.Base(path), Data: data}
	}
	return read(find("old-upstream")), read(find("old-downstream")), read(find("new-upstream")), find("want")
}

// patchSummary is the part of a Patch the table asserts.
type patchSummary struct {
	Kind, Status, Document, Anchor string
}

func TestMergeCases(t *testing.T) {
	cases := []struct {
		dir           string
		wantConflicts int
		wantPatches   []patchSummary
		wantNotes     []string // substrings that must appear among the patch notes
		// wantReportNotes are the file-level notes, exactly.
		wantReportNotes []string
	}{
		{
			dir: "plain-values",
			wantPatches: []patchSummary{
				{"changed", "applied-over-upstream-change", "DaemonSet/kube-system/calico-node", ".spec.template.spec.containers[name=calico-node].image"},
				{"added", "applied", "DaemonSet/kube-system/calico-node", ".spec.template.spec.containers[name=calico-node].env[name=IP_AUTODETECTION_METHOD]"},
				{"added", "applied", "DaemonSet/kube-system/calico-node", "before .spec.template.spec.containers[name=calico-node].env[name=CALICO_IPV4POOL_IPIP]"},
				{"changed", "applied", "DaemonSet/kube-system/calico-node", ".spec.template.spec.containers[name=calico-node].env[name=CALICO_IPV4POOL_IPIP].value"},
				{"added", "applied", "DaemonSet/kube-system/calico-node", ".spec.template.spec.containers[name=calico-node].env[name=FELIX_USAGEREPORTINGENABLED]"},
				{"added", "applied", "DaemonSet/kube-system/calico-node", ".spec.template.spec.tolerations[key=example.com/infra]"},
			},
			wantNotes: []string{
				`upstream changed "image: docker.io/calico/node:v3.1.0" to "image: docker.io/calico/node:v3.2.0"; the downstream replacement was kept`,
				`version in "image: registry.example.com/calico/node:v3.1.0" updated to v3.2.0`,
			},
		},
		{
			dir: "jinja-metalk8s",
			wantPatches: []patchSummary{
				{"added", "applied", "(file header)", "before the first document"},
				{"changed", "applied", "ConfigMap/kube-system/calico-config", ".data.veth_mtu"},
				{"changed", "applied", "ConfigMap/kube-system/calico-config", "inside .data.cni_network_config"},
				{"added", "applied", "DaemonSet/kube-system/calico-node", ".spec.template.metadata.annotations"},
				{"changed", "applied-over-upstream-change", "DaemonSet/kube-system/calico-node", ".spec.template.spec.initContainers[name=install-cni].image"},
				{"changed", "applied-over-upstream-change", "DaemonSet/kube-system/calico-node", ".spec.template.spec.containers[name=calico-node].image"},
			},
			wantNotes: []string{`updated to v3.26.1`},
		},
		{
			dir: "commented-blocks",
			wantPatches: []patchSummary{
				{"commented-out", "applied-over-upstream-change", "DaemonSet/kube-system/calico-node", ".spec.template.spec.initContainers[name=install-cni]"},
				{"changed", "applied", "DaemonSet/kube-system/calico-node", ".spec.template.spec.containers[name=calico-node].env[name=CALICO_IPV4POOL_CIDR]"},
				{"changed", "applied-over-upstream-change", "DaemonSet/kube-system/calico-node", ".spec.template.spec.containers[name=calico-node].env[name=FELIX_LOGSEVERITYSCREEN].value"},
			},
			wantNotes: []string{
				"commented-out copy updated to the new upstream text",
				"upstream commented out the block this patch sets a value in; the downstream's active block was kept",
			},
		},
		{
			dir: "commented-block-removed",
			wantPatches: []patchSummary{
				{"commented-out", "applied", "DaemonSet/calico-node", ".spec.template.spec.initContainers[name=flexvol-driver]"},
			},
			wantNotes: []string{"the new upstream removed the block this patch commented out; the commented copy and its comments were dropped"},
		},
		{
			dir: "renamed-item",
			wantPatches: []patchSummary{
				{"added", "applied", "(file header)", "before the first document"},
				{"changed", "applied-over-upstream-change", "DaemonSet/kube-system/calico-node", ".spec.template.spec.initContainers[name=ebpf-bootstrap].image"},
				{"changed", "applied-over-upstream-change", "DaemonSet/kube-system/calico-node", ".spec.template.spec.containers[name=calico-node].image"},
			},
			wantReportNotes: []string{"upstream renamed DaemonSet/kube-system/calico-node .spec.template.spec.initContainers[name=mount-bpffs] to .spec.template.spec.initContainers[name=ebpf-bootstrap]; patches to it follow the new name"},
		},
		{
			dir: "added-by-both",
			wantPatches: []patchSummary{
				{"added", "applied-over-upstream-change", "DaemonSet/calico-node", ".spec.template.spec.containers[name=calico-node].imagePullPolicy"},
				{"changed", "applied-over-upstream-change", "DaemonSet/calico-node", ".spec.template.spec.containers[name=calico-node].env[name=CALICO_IPV4POOL_CIDR]"},
			},
			wantNotes: []string{
				"the new upstream added DaemonSet/calico-node .spec.template.spec.containers[name=calico-node].imagePullPolicy too; the downstream's version was kept",
				"the new upstream added DaemonSet/calico-node .spec.template.spec.containers[name=calico-node].env[name=CALICO_IPV4POOL_CIDR] too; the downstream's version was kept",
			},
		},
		{
			dir: "jinja-conditional",
			wantPatches: []patchSummary{
				{"added", "applied", "(file header)", "before the first document"},
				{"added", "applied", "DaemonSet/calico-node", ".spec.template.spec.containers[name=calico-node].env[name=IP_AUTODETECTION_METHOD]"},
			},
		},
		{
			dir: "moved-item",
			wantPatches: []patchSummary{
				{"added", "applied", "DaemonSet/calico-node", "before .spec.template.spec.containers[name=calico-node].env[name=A_VAR]"},
				{"changed", "applied", "DaemonSet/calico-node", ".spec.template.spec.containers[name=calico-node].env[name=A_VAR].value"},
				{"changed", "applied", "DaemonSet/calico-node", ".spec.template.spec.containers[name=calico-node].volumeMounts[name=lib-modules].mountPath"},
				{"added", "applied", "DaemonSet/calico-node", ".spec.template.spec.tolerations[key=node-role.kubernetes.io/master].operator"},
			},
			wantNotes: []string{
				"upstream moved DaemonSet/calico-node .spec.template.spec.containers[name=calico-node].env[name=A_VAR].value; the change moved with it",
				"upstream moved DaemonSet/calico-node .spec.template.spec.containers[name=calico-node].volumeMounts[name=lib-modules].mountPath; the change moved with it",
				"upstream moved DaemonSet/calico-node .spec.template.spec.tolerations[key=node-role.kubernetes.io/master].effect; the lines added below it moved with it",
				"upstream moved DaemonSet/calico-node .spec.template.spec.containers[name=calico-node].env[name=A_VAR]; the comments above it moved with it",
			},
		},
		{
			dir:           "conflicts",
			wantConflicts: 3,
			wantPatches: []patchSummary{
				{"changed", "conflict", "DaemonSet/calico-node", ".spec.template.spec.containers[name=calico-node].env[name=FELIX_IPINIPMTU].value"},
				{"added", "conflict", "DaemonSet/calico-node", ".spec.template.spec.containers[name=calico-node].volumeMounts[name=policysync].readOnly"},
				{"changed", "conflict", "ConfigMap/calico-config", ".data.veth_mtu"},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.dir, func(t *testing.T) {
			ou, od, nu, wantPath := readCase(t, filepath.Join("testdata", tc.dir))
			res, err := Merge(context.Background(), ou, od, nu, Options{})
			if err != nil {
				t.Fatalf("Merge: %v", err)
			}
			if *update {
				if err := os.WriteFile(wantPath, res.Output, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(wantPath)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(res.Output), "\n")); diff != "" {
				t.Errorf("output mismatch (-want +got); if the change is intended run: go test ./internal/bump/ -run TestMergeCases -update\n%s", diff)
			}
			if res.Report.Conflicts != tc.wantConflicts {
				t.Errorf("conflicts = %d, want %d", res.Report.Conflicts, tc.wantConflicts)
			}
			var got []patchSummary
			var notes []string
			for _, p := range res.Report.Patches {
				got = append(got, patchSummary{p.Kind, p.Status, p.Document, p.Anchor})
				notes = append(notes, p.Notes...)
			}
			if diff := cmp.Diff(tc.wantReportNotes, res.Report.Notes); diff != "" {
				t.Errorf("report notes mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantPatches, got); diff != "" {
				t.Errorf("patches mismatch (-want +got):\n%s", diff)
			}
			for _, n := range tc.wantNotes {
				found := false
				for _, have := range notes {
					if strings.Contains(have, n) {
						found = true
					}
				}
				if !found {
					t.Errorf("no patch note contains %q; notes: %q", n, notes)
				}
			}
			again, err := Merge(context.Background(), ou, od, nu, Options{})
			if err != nil {
				t.Fatalf("second Merge: %v", err)
			}
			if string(again.Output) != string(res.Output) {
				t.Errorf("merging twice gave different bytes")
			}
		})
	}
}

// TestConflictBlocks pins the exact conflict block format: which patch, why, both sides.
func TestConflictBlocks(t *testing.T) {
	ou, od, nu, _ := readCase(t, filepath.Join("testdata", "conflicts"))
	res, err := Merge(context.Background(), ou, od, nu, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"<<<<<<< downstream (patch 1): the new upstream no longer has the line this patch changes (DaemonSet/calico-node .spec.template.spec.containers[name=calico-node].env[name=FELIX_IPINIPMTU].value)",
		`              value: "1480"`,
		"======= new upstream",
		">>>>>>> end of conflict (patch 1)",
		"<<<<<<< downstream (patch 2): the new upstream no longer has the lines around this addition (it followed DaemonSet/calico-node .spec.template.spec.containers[name=calico-node].volumeMounts[name=policysync].mountPath)",
		"              readOnly: true",
		"======= new upstream",
		">>>>>>> end of conflict (patch 2)",
		"<<<<<<< downstream (patch 3): the new upstream no longer has the line this patch changes (ConfigMap/calico-config .data.veth_mtu)",
		`  veth_mtu: "1450"`,
		"======= new upstream",
		">>>>>>> end of conflict (patch 3)",
	}
	var got []string
	in := false
	for _, l := range strings.Split(string(res.Output), "\n") {
		if strings.HasPrefix(l, "<<<<<<<") {
			in = true
		}
		if in {
			got = append(got, l)
		}
		if strings.HasPrefix(l, ">>>>>>>") {
			in = false
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("conflict blocks mismatch (-want +got):\n%s", diff)
	}
	if res.Report.Clean() {
		t.Errorf("report is clean despite conflicts")
	}
}

func TestChecks(t *testing.T) {
	ou, od, nu, _ := readCase(t, filepath.Join("testdata", "jinja-metalk8s"))
	cases := []struct {
		name string
		opts Options
		want []Check
	}{
		{
			name: "image rewrites only",
			want: []Check{{Name: "image rewrites", OK: true, Message: "old downstream rewrote 2 references (docker.io/calico/cni, docker.io/calico/node); output has 2 rewritten references and 0 un-rewritten references to those repositories"}},
		},
		{
			name: "user checks hold",
			opts: Options{
				ExpectAbsent: []*regexp.Regexp{regexp.MustCompile(`docker\.io/calico`)},
				ExpectCount:  []CountCheck{{Pattern: regexp.MustCompile(`build_image_name\(`), Count: 2}},
			},
			want: []Check{
				{Name: "image rewrites", OK: true, Message: "old downstream rewrote 2 references (docker.io/calico/cni, docker.io/calico/node); output has 2 rewritten references and 0 un-rewritten references to those repositories"},
				{Name: `expect-absent "docker\\.io/calico"`, OK: true, Message: "no line matches"},
				{Name: `expect-count "build_image_name\\("=2`, OK: true, Message: "2 lines match, expected 2 (lines 26, 31)"},
			},
		},
		{
			name: "user checks fail",
			opts: Options{
				ExpectAbsent: []*regexp.Regexp{regexp.MustCompile(`imagePullPolicy`)},
				ExpectCount:  []CountCheck{{Pattern: regexp.MustCompile(`build_image_name\(`), Count: 5}},
			},
			want: []Check{
				{Name: "image rewrites", OK: true, Message: "old downstream rewrote 2 references (docker.io/calico/cni, docker.io/calico/node); output has 2 rewritten references and 0 un-rewritten references to those repositories"},
				{Name: `expect-absent "imagePullPolicy"`, OK: false, Message: "2 lines match (lines 27, 32), expected none"},
				{Name: `expect-count "build_image_name\\("=5`, OK: false, Message: "2 lines match, expected 5 (lines 26, 31)"},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Merge(context.Background(), ou, od, nu, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, res.Report.Checks); diff != "" {
				t.Errorf("checks mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDocumentOrder(t *testing.T) {
	doc := func(kind, name, value string) string {
		return "---\nkind: " + kind + "\nmetadata:\n  name: " + name + "\ndata:\n  v: \"" + value + "\"\n"
	}
	oldUp := Input{Name: "ou", Data: []byte(doc("ConfigMap", "a", "1") + doc("ConfigMap", "b", "1"))}
	newUp := Input{Name: "nu", Data: []byte(doc("ConfigMap", "b", "2") + doc("ConfigMap", "a", "1"))}
	cases := []struct {
		name      string
		oldDown   string
		want      string
		wantNotes []string
	}{
		{
			name:    "upstream moves a patched document: the patch follows it",
			oldDown: doc("ConfigMap", "a", "9") + doc("ConfigMap", "b", "1"),
			want:    doc("ConfigMap", "b", "2") + doc("ConfigMap", "a", "9"),
		},
		{
			name:      "downstream reordered documents: upstream order wins, reported",
			oldDown:   doc("ConfigMap", "b", "1") + doc("ConfigMap", "a", "9"),
			want:      doc("ConfigMap", "b", "2") + doc("ConfigMap", "a", "9"),
			wantNotes: []string{"the old downstream has documents in another order than the old upstream; the output follows the new upstream's document order"},
		},
		{
			name:    "a document only the downstream has stays after the one it followed",
			oldDown: doc("ConfigMap", "a", "1") + doc("Secret", "mine", "x") + doc("ConfigMap", "b", "1"),
			want:    doc("ConfigMap", "b", "2") + doc("ConfigMap", "a", "1") + doc("Secret", "mine", "x"),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Merge(context.Background(), oldUp, Input{Name: "od", Data: []byte(tc.oldDown)}, newUp, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(res.Output)); diff != "" {
				t.Errorf("output mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantNotes, res.Report.Notes); diff != "" {
				t.Errorf("notes mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
