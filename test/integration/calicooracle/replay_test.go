package calicooracle

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/calicooracle"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
)

// family is a scenario family of the issue, the render scenario that stands for it, and what the
// render must show for the scenario to be that family.
type family struct {
	scenario string
	// typha, kubeControllers: whether those components run; calicoIPAM: whether calico-ipam assigns
	// addresses (calico-node without USE_POD_CIDR).
	typha, kubeControllers, calicoIPAM bool
}

// families cover host-local and calico-ipam, typha on and off, overlay on and off, IPv6,
// dual-stack, eBPF, WireGuard, multus, NonPrivilegedCalicoNode and the policy-only backend; every
// one of them replays the LoadBalancer rows (the fixtures hold a LoadBalancer pool and Service).
var families = []family{
	{scenario: "default", typha: true, kubeControllers: true},
	{scenario: "calico-ipam", typha: true, kubeControllers: true, calicoIPAM: true},
	{scenario: "typha-disabled", kubeControllers: true},
	{scenario: "overlay-enabled", typha: true, kubeControllers: true},
	{scenario: "overlay-disabled", typha: true}, // no routing backend: no kube-controllers
	{scenario: "ipv6", typha: true},
	{scenario: "dual-stack", typha: true},
	{scenario: "ebpf-kube-proxy-off", typha: true},
	{scenario: "wireguard", typha: true, kubeControllers: true},
	{scenario: "multus", typha: true, kubeControllers: true},
	{scenario: "non-privileged-overlay", typha: true, kubeControllers: true},
	{scenario: "seed-004-example", kubeControllers: true},
	{scenario: "backend-none", typha: true},
}

func key(u *unstructured.Unstructured) string {
	return u.GetKind() + "/" + u.GetNamespace() + "/" + u.GetName()
}

// cluster is the shoot as the resource manager leaves it: the render applied, what the previous
// render had and this one lacks deleted.
type cluster struct {
	c       client.Client
	applied map[string]*unstructured.Unstructured
}

func (cl *cluster) apply(t *testing.T, objs []*unstructured.Unstructured) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	now := map[string]*unstructured.Unstructured{}
	for _, u := range objs {
		if err := cl.c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u.DeepCopy()), client.FieldOwner("gardener-resource-manager"), client.ForceOwnership); err != nil {
			t.Fatalf("applying %s: %v", key(u), err)
		}
		now[key(u)] = u
	}
	for k, u := range cl.applied {
		if _, ok := now[k]; !ok {
			if err := cl.c.Delete(ctx, u.DeepCopy()); client.IgnoreNotFound(err) != nil {
				t.Fatalf("deleting %s: %v", k, err)
			}
		}
	}
	cl.applied = now
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	c, err := controlPlane.NewClient(clientgoscheme.AddToScheme)
	if err != nil {
		t.Fatal(err)
	}
	return &cluster{c: c}
}

// replayerFor returns the oracle table of release r (calicooracle.LoadFor: the newest of its line
// not newer than r) and a replayer of it.
func replayerFor(t *testing.T, r calicoversion.Release) (*calicooracle.Table, *calicooracle.Replayer) {
	t.Helper()
	table, err := calicooracle.LoadFor(r)
	if err != nil {
		t.Fatal(err)
	}
	p, err := calicooracle.NewReplayer(controlPlane.Config, table)
	if err != nil {
		t.Fatal(err)
	}
	return table, p
}

// replay resets the cluster's Calico state, applies objs and replays the table.
func replay(t *testing.T, cl *cluster, r *calicooracle.Replayer, table *calicooracle.Table, objs []*unstructured.Unstructured) ([]calicooracle.Result, *calicooracle.Deployment) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	d, err := calicooracle.Inspect(table, objs)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	cl.apply(t, objs)
	results, err := r.Replay(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	return results, d
}

// TestCalicoAcceptsRender replays, for every release of the catalogue on the CRDs of its line (lines
// oldest first, each line's CRDs installed as a move up does), every row of the release's oracle
// table (calicooracle.LoadFor) for every scenario family rendered at that release: no request
// Calico needs answered is refused, every write is stored as Calico wrote it, and the start-up facts
// hold for the calico-node pod. The base release's CRDs are put back afterwards.
func TestCalicoAcceptsRender(t *testing.T) {
	t.Cleanup(func() {
		if err := controlPlane.InstallCalicoCRDs(context.Background(), rendertest.Base()); err != nil {
			t.Errorf("putting the base release's CRDs back: %v", err)
		}
	})
	cl := newCluster(t)
	for _, line := range calicoversion.Default().Lines() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := controlPlane.InstallCalicoCRDs(ctx, line.Newest())
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range line.Releases() {
			t.Run(r.Name(), func(t *testing.T) {
				table, p := replayerFor(t, r)
				replayFamilies(t, cl, p, table, " at "+r.Name(), func(t *testing.T, scenario string) []*unstructured.Unstructured {
					return renderAt(t, scenario, calicoversion.Steady(r))
				})
			})
		}
	}
}

// replayFamilies replays table for every scenario family, objs giving each family's objects (at the
// release named in the messages by at): the family's components run as it says, calico-node's start-up facts hold, no replayed request has a problem, and every row of the
// table is replayed by some family.
func replayFamilies(t *testing.T, cl *cluster, r *calicooracle.Replayer, table *calicooracle.Table, at string, objs func(*testing.T, string) []*unstructured.Unstructured) {
	t.Helper()
	replayed := map[string]int{}
	total := 0
	for _, f := range families {
		t.Run(f.scenario, func(t *testing.T) {
			results, d := replay(t, cl, r, table, objs(t, f.scenario))
			_, typha := d.Components["typha"]
			_, kc := d.Components["kube-controllers"]
			if typha != f.typha || kc != f.kubeControllers || d.Conditions[calicooracle.CalicoIPAM] != f.calicoIPAM {
				t.Fatalf("scenario %s%s runs typha=%t kube-controllers=%t calicoIPAM=%t, the family says %t %t %t",
					f.scenario, at, typha, kc, d.Conditions[calicooracle.CalicoIPAM], f.typha, f.kubeControllers, f.calicoIPAM)
			}
			findings, err := calicooracle.CheckStartup(table, d)
			if err != nil {
				t.Fatal(err)
			}
			for _, finding := range findings {
				t.Errorf("start-up: %s", finding)
			}
			for _, res := range results {
				replayed[res.Row]++
				if res.Problem != "" {
					t.Errorf("%s", res)
				}
			}
			total += len(results)
			t.Logf("%d requests replayed as %d components", len(results), len(d.Components))
		})
	}
	var never []string
	for _, row := range table.Requests {
		if replayed[row.ID] == 0 && !row.Optional() { // the optional components' rows: components_test.go
			never = append(never, row.ID)
		}
	}
	if len(never) > 0 {
		t.Errorf("rows no scenario family replayed%s: %v", at, never)
	}
	t.Logf("%d requests over %d scenario families%s", total, len(families), at)
}

// TestOracleCatchesMissingRules replays the calico-ipam scenario at the base release with the rules
// issue 19 found missing taken out again: the oracle must report exactly the failures Calico
// v3.31.6's binaries showed (calico-node's start-up stops on globalfelixconfigs, kube-controllers'
// loadbalancer controller on namespaces and ipamconfigs, no component creates tiers).
func TestOracleCatchesMissingRules(t *testing.T) {
	table, r := replayerFor(t, rendertest.Base())
	objs := renderAt(t, "calico-ipam", calicoversion.Steady(rendertest.Base()))
	// calico-node loses its globalfelixconfigs rule and tiers create (its tier reads stay);
	// kube-controllers loses namespaces, ipamconfigs and tiers from every rule.
	wholeRules := map[string][]string{"calico-node": {"globalfelixconfigs", "tiers"}}
	resources := map[string][]string{"calico-kube-controllers": {"namespaces", "ipamconfigs", "tiers"}}
	for _, u := range objs {
		if u.GetKind() != "ClusterRole" {
			continue
		}
		rules, _, _ := unstructured.NestedSlice(u.Object, "rules")
		var kept []any
		for _, rule := range rules {
			m := rule.(map[string]any)
			res, _, _ := unstructured.NestedStringSlice(m, "resources")
			if len(res) == 1 && slices.Contains(wholeRules[u.GetName()], res[0]) {
				continue
			}
			res = slices.DeleteFunc(res, func(s string) bool { return slices.Contains(resources[u.GetName()], s) })
			if len(res) == 0 {
				continue
			}
			_ = unstructured.SetNestedStringSlice(m, res, "resources")
			kept = append(kept, m)
		}
		if err := unstructured.SetNestedSlice(u.Object, kept, "rules"); err != nil {
			t.Fatal(err)
		}
	}
	results, _ := replay(t, newCluster(t), r, table, objs)
	failed := map[string]bool{}
	for _, res := range results {
		if res.Problem != "" {
			failed[res.Row+" "+res.Component] = true
		}
	}
	var got []string
	for k := range failed {
		got = append(got, k)
	}
	sort.Strings(got)
	want := []string{
		"kc-lb-informers kube-controllers",
		"kc-lb-ipam kube-controllers",
		"node-migration-check calico-node",
		"tier-adminnetworkpolicy calico-node",
		"tier-adminnetworkpolicy kube-controllers",
		"tier-adminnetworkpolicy typha",
		"tier-baselineadminnetworkpolicy calico-node",
		"tier-baselineadminnetworkpolicy kube-controllers",
		"tier-baselineadminnetworkpolicy typha",
		"tier-default calico-node",
		"tier-default kube-controllers",
		"tier-default typha",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("failing rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
