package calicooracle

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/calico-pilot/calico-pilot/internal/calicooracle"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
)

// moveFamilies are the scenario families a move step is replayed for: Typha on (calico-node reads
// through Typha, which shares calico-node's role) and off (every calico-node talks to the API server
// itself), and calico-ipam (the CNI plugin's IPAM requests). Each runs kube-controllers and the CNI
// plugin.
var moveFamilies = []family{
	{scenario: "default", typha: true, kubeControllers: true},
	{scenario: "typha-disabled", kubeControllers: true},
	{scenario: "calico-ipam", typha: true, kubeControllers: true, calicoIPAM: true},
}

// moveStep is one step of a move the catalogue allows.
type moveStep struct {
	name  string
	move  calicoversion.Move
	phase calicoversion.Phase
}

// allowedMoveSteps are the steps of every move the catalogue allows (calicoversion.Plan of every
// ordered pair of releases), ordered by the CRD set the step runs on, so the suite installs each set
// once.
func allowedMoveSteps(t *testing.T, cat *calicoversion.Catalogue) []moveStep {
	t.Helper()
	var out []moveStep
	for _, from := range cat.Releases() {
		for _, to := range cat.Releases() {
			m, err := cat.Plan(from, to)
			if err != nil || m.IsZero() {
				continue // the same release, or a move that skips a line (refused)
			}
			for _, phase := range []calicoversion.Phase{calicoversion.PhaseFirst, calicoversion.PhaseComplete} {
				if phase == calicoversion.PhaseFirst && m.FirstPhase() != calicoversion.PhaseFirst {
					continue // a one-step (patch) move
				}
				out = append(out, moveStep{name: fmt.Sprintf("%s-%s-%s", from, to, strings.ToLower(string(phase))), move: m, phase: phase})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b moveStep) int {
		return strings.Compare(a.move.Deployment(a.phase, calicoversion.Release{}).CRDs.CRDSet(), b.move.Deployment(b.phase, calicoversion.Release{}).CRDs.CRDSet())
	})
	return out
}

// checkMoveCoverage fails unless steps hold a move between every two adjacent lines in each
// direction and a patch move in each direction within every line of more than one release.
func checkMoveCoverage(t *testing.T, cat *calicoversion.Catalogue, steps []moveStep) {
	t.Helper()
	kinds := map[string]bool{}
	for _, s := range steps {
		kinds[fmt.Sprintf("%s %s>%s", s.move.Kind, s.move.From.Line(), s.move.To.Line())] = true
	}
	lines := cat.Lines()
	var want []string
	for i, l := range lines {
		if len(l.Releases()) > 1 {
			want = append(want, fmt.Sprintf("%s %s>%s", calicoversion.MovePatch, l, l))
		}
		if i > 0 {
			want = append(want, fmt.Sprintf("%s %s>%s", calicoversion.MoveUp, lines[i-1], l), fmt.Sprintf("%s %s>%s", calicoversion.MoveDown, l, lines[i-1]))
		}
	}
	for _, w := range want {
		if !kinds[w] {
			t.Errorf("no move %s among the catalogue's allowed moves %v", w, slices.Sorted(maps.Keys(kinds)))
		}
	}
}

// refusals replays table r's requests (release rel's table) as every component the render objs runs,
// under objs' RBAC (already applied), from a reset Calico state, and returns the refused ones ("row
// component", sorted, once each) and how many requests each component made.
func refusals(t *testing.T, replayers map[calicoversion.Release]*calicooracle.Replayer, tables map[calicoversion.Release]*calicooracle.Table, rel calicoversion.Release, objs []*unstructured.Unstructured) (refused []string, made map[string]int, dep *calicooracle.Deployment) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dep, err := calicooracle.Inspect(tables[rel], objs)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range replayers {
		// What the other release's replay wrote goes too: each replay starts from a new cluster's state.
		if err := p.Reset(ctx); err != nil {
			t.Fatal(err)
		}
	}
	results, err := replayers[rel].Replay(ctx, dep)
	if err != nil {
		t.Fatal(err)
	}
	made = map[string]int{}
	seen := map[string]bool{}
	for _, res := range results {
		made[res.Component]++
		// A 403 is never tolerated (docs/calico-oracle.md): every refusal is a request Calico needs.
		if res.Answer == "forbidden" {
			if k := res.Row + " " + res.Component; !seen[k] {
				seen[k] = true
				refused = append(refused, k)
			}
		}
	}
	slices.Sort(refused)
	return refused, made, dep
}

// TestEveryMoveStepGrantsBothReleases replays, for every step of every move the catalogue allows (a
// line up and down between every two adjacent lines, and the patch moves within a line), with Typha
// on and off, both releases' oracle tables (calicooracle.LoadFor of the move's from- and to-release)
// as every ServiceAccount the step's render runs (calico-node, the CNI plugin, Typha,
// kube-controllers), under the RBAC rendered for that step, on the step's CRDs: no request is refused
// (with calico-ipam too, for the CNI plugin's IPAM requests).
// During a move both releases run side by side (the workloads roll pod by pod; with Typha off every
// calico-node talks to the API server itself), so each role must grant what both ask
// (docs/calico-lines.md "What each step grants"). The control plane is the suite's: each step's render
// is applied over the previous one (its ClusterRoles swapped), Calico's state reset per replay.
//
// The check can fail: each line move's releases replayed under the other release's steady render
// (one release's rules only, what a move's step rendered before the roles served both) are refused
// exactly the rules that release adds, among them v3.31's list and watch of
// (Baseline)AdminNetworkPolicies under v3.32's roles.
func TestEveryMoveStepGrantsBothReleases(t *testing.T) {
	cat := calicoversion.Default()
	steps := allowedMoveSteps(t, cat)
	checkMoveCoverage(t, cat, steps)
	tables := map[calicoversion.Release]*calicooracle.Table{}
	replayers := map[calicoversion.Release]*calicooracle.Replayer{}
	for _, r := range cat.Releases() {
		tables[r], replayers[r] = replayerFor(t, r)
	}
	t.Cleanup(func() {
		if err := controlPlane.InstallCalicoCRDs(context.Background(), rendertest.Base()); err != nil {
			t.Errorf("putting the base release's CRDs back: %v", err)
		}
	})
	installed := ""
	install := func(t *testing.T, r calicoversion.Release) {
		t.Helper()
		if r.CRDSet() == installed {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := controlPlane.InstallCalicoCRDs(ctx, r); err != nil {
			t.Fatal(err)
		}
		installed = r.CRDSet()
	}
	cl := newCluster(t)

	for _, s := range steps {
		m := s.move
		d := m.Deployment(s.phase, calicoversion.Release{})
		for _, f := range moveFamilies {
			t.Run(s.name+"/"+f.scenario, func(t *testing.T) {
				install(t, d.CRDs)
				objs := renderAt(t, f.scenario, d)
				cl.apply(t, objs)
				total := 0
				for _, rel := range []calicoversion.Release{m.From, m.To} {
					refused, made, dep := refusals(t, replayers, tables, rel, objs)
					for _, r := range refused {
						t.Errorf("%s (%s): Calico %s's request %s refused", s.name, d, rel, r)
					}
					// Every ServiceAccount the step runs made requests of this release's table.
					want := []string{"calico-node", "cni-plugin", "kube-controllers"}
					if f.typha {
						want = append(want, "typha")
					}
					if got := slices.Sorted(maps.Keys(dep.Components)); !slices.Equal(got, want) || dep.Conditions[calicooracle.CalicoIPAM] != f.calicoIPAM {
						t.Fatalf("the render runs %v (calico-ipam %t), the family says %v (%t)", got, dep.Conditions[calicooracle.CalicoIPAM], want, f.calicoIPAM)
					}
					for _, c := range want {
						if made[c] == 0 {
							t.Errorf("Calico %s's table made no request as %s", rel, c)
						}
						total += made[c]
					}
				}
				t.Logf("%d requests of Calico %s and %s replayed (%s)", total, m.From, m.To, d)
			})
		}
	}

	t.Run("one release's rules are refused", func(t *testing.T) {
		// The pre-fix render of a line move's step: the roles of one release alone, as a steady shoot
		// of that release has them, with the other release's pods still running.
		// By the lines of the requests' release and of the roles' release.
		want := map[string][]string{
			// v3.32 reads ClusterNetworkPolicy instead of (Baseline)AdminNetworkPolicy: a v3.31 Felix (and
			// CNI plugin, and kube-controllers) under v3.32's roles lose only that watch.
			"v3.31 under v3.32": {"syncer-felix-admin-policy calico-node"},
			// v3.31's roles lack all v3.32 adds (docs/calico-oracle.md, TestOracleV3_32CatchesV3_31Roles),
			// here with Typha off and host-local IPAM (the CNI plugin's KubeVirt lookup is calico-ipam's).
			"v3.32 under v3.31": {
				"kc-config-status kube-controllers",
				"kc-config-status-get kube-controllers",
				"kc-datastore-migration-crd-watch kube-controllers",
				"kc-kubevirt-ipam-gc kube-controllers",
				"kc-migrator-calico-node-rollout kube-controllers",
				"kc-migrator-create kube-controllers",
				"kc-migrator-delete kube-controllers",
				"kc-migrator-policies kube-controllers",
				"syncer-felix-cluster-network-policy calico-node",
				"syncer-live-migration calico-node",
			},
		}
		checked := 0
		for _, s := range steps {
			m := s.move
			if m.Kind != calicoversion.MoveUp || s.phase != calicoversion.PhaseFirst {
				continue // each pair of adjacent lines once, on the newer line's CRDs (its first step's)
			}
			install(t, m.To)
			for _, pair := range [][2]calicoversion.Release{{m.From, m.To}, {m.To, m.From}} {
				requests, roles := pair[0], pair[1]
				objs := renderAt(t, "typha-disabled", calicoversion.Steady(roles))
				cl.apply(t, objs)
				got, _, _ := refusals(t, replayers, tables, requests, objs)
				if w, ok := want[requests.Line().Name()+" under "+roles.Line().Name()]; ok && !slices.Equal(got, w) {
					t.Errorf("%s's requests under %s's roles alone: refused\n%s\nwant\n%s", requests, roles, strings.Join(got, "\n"), strings.Join(w, "\n"))
				}
				if len(got) == 0 {
					t.Errorf("%s's requests under %s's roles alone: nothing refused; the check cannot tell one release's rules from both", requests, roles)
				}
				checked++
			}
		}
		if checked == 0 {
			t.Fatal("the catalogue allows no line move")
		}
	})
}
