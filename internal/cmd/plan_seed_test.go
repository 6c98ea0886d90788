package cmd

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calico-pilot/calico-pilot/internal/calicofacts"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/plan"
)

// TestWriteSeedPlan holds the seed plan's text: the table, each shoot's notes, errors, blockers and
// live findings, the facts the moving shoots share (once) and the known issues (once).
func TestWriteSeedPlan(t *testing.T) {
	target, err := calicoversion.Default().Resolve("v3.32.1")
	if err != nil {
		t.Fatal(err)
	}
	fact := func(id string, sev calicofacts.Severity, st calicofacts.Status) calicofacts.Finding {
		return calicofacts.Finding{Fact: calicofacts.Fact{ID: id, Severity: sev, Title: "title " + id}, Status: st}
	}
	kubernetes := fact("k8s", calicofacts.Blocker, calicofacts.StatusFound)
	kubernetes.Kubernetes = true
	issue := plan.KnownIssue{ID: "issue-1", Release: "v3.32.1", Component: "calico-node", Title: "a known issue", Action: "wait"}
	rows := []seedPlanRow{
		{
			Namespace: "shoot--a--one", Shoot: "garden-a/one", Kubernetes: "1.33.2",
			Move: plan.Move{
				Current: "v3.31.6", Target: "v3.32.1",
				Retired:  []string{"v3.31.1 is retired"},
				Restarts: []plan.Restart{{Workload: "DaemonSet kube-system/calico-node", Step: 1}, {Workload: "Deployment kube-system/calico-typha-deploy", Step: 2}},
				Facts: []calicofacts.Finding{
					fact("warn-found", calicofacts.Warning, calicofacts.StatusFound),
					fact("blocker-found", calicofacts.Blocker, calicofacts.StatusFound),
					fact("not-checked", calicofacts.Warning, calicofacts.StatusNotChecked),
					fact("always", calicofacts.Warning, calicofacts.StatusAlways),
					fact("info", calicofacts.Info, calicofacts.StatusAlways),
					fact("clear", calicofacts.Warning, calicofacts.StatusClear),
					kubernetes,
				},
				KnownIssues: []plan.KnownIssue{issue},
			},
			Blockers: []plan.Blocker{{Object: "IPPool default-ipv4-ippool", Message: "immutable"}},
		},
		{
			Namespace: "shoot--b--two", Shoot: "garden-b/two", Kubernetes: "1.32.0",
			Move: plan.Move{
				Current: "v3.31.6", Target: "v3.32.1",
				Facts:       []calicofacts.Finding{fact("always", calicofacts.Warning, calicofacts.StatusAlways)},
				KnownIssues: []plan.KnownIssue{issue},
			},
			Blockers: []plan.Blocker{},
		},
		{
			Namespace: "shoot--c--three",
			Move:      plan.Move{Current: "unknown", Target: "v3.32.1"},
			Errors:    []string{"the Cluster's shoot is not available"},
		},
	}
	// The table with shoot a's lines before its live findings, and the known issues, are the same
	// with and without live checks.
	const table = `SHOOT                         KUBERNETES  CURRENT  TARGET   RESTARTS                                BLOCKERS
shoot--a--one (garden-a/one)  1.33.2      v3.31.6  v3.32.1  1: calico-node; 2: calico-typha-deploy  1
shoot--b--two (garden-b/two)  1.32.0      v3.31.6  v3.32.1  -                                       -
shoot--c--three               -           unknown  v3.32.1  -                                       cannot plan

shoot--a--one: note: v3.31.1 is retired
shoot--a--one: blocker: IPPool default-ipv4-ippool: immutable
`
	const issues = `
known issues of the target (docs/calico-lines.md):
  calico-node v3.32.1: a known issue [issue-1]
          do: wait
`
	tests := []struct {
		name string
		rows []seedPlanRow
		live bool
		want string
	}{
		{name: "no shoots", want: "no calico shoots found\n"},
		{
			name: "offline",
			rows: rows,
			want: table + `shoot--c--three: error: the Cluster's shoot is not available

facts of moving to v3.32 (v3.32.1) (docs/calico-downgrade.md):
  Warning title warn-found [warn-found]
  Blocker title blocker-found [blocker-found]
  Warning title not-checked [not-checked] (live check: add --live-shoots, or run plan --current ... --kubeconfig SHOOT per shoot)
  Warning title always [always]
` + issues,
		},
		{
			name: "live",
			rows: rows,
			live: true,
			want: table + `shoot--a--one: warning: title warn-found [warn-found]
shoot--c--three: error: the Cluster's shoot is not available

facts of moving to v3.32 (v3.32.1) (docs/calico-downgrade.md):
  Warning title not-checked [not-checked] (live check: add --live-shoots, or run plan --current ... --kubeconfig SHOOT per shoot)
  Warning title always [always]
` + issues,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeSeedPlan(&b, tt.rows, target, tt.live); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("seed plan (-want +got):\n%s", diff)
			}
		})
	}
}
