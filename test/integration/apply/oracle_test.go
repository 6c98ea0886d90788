package apply

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/calicooracle"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// deployed reads what runs in kube-system as the oracle reads a render: workloads, ServiceAccounts
// and calico-config, as the API server holds them after apply.
func (cl *cluster) deployed() []*unstructured.Unstructured {
	cl.t.Helper()
	var out []*unstructured.Unstructured
	for _, l := range []struct{ apiVersion, kind string }{{"apps/v1", "DaemonSetList"}, {"apps/v1", "DeploymentList"}, {"v1", "ServiceAccountList"}, {"v1", "ConfigMapList"}} {
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion(l.apiVersion)
		list.SetKind(l.kind)
		if err := cl.c.List(context.Background(), list, client.InNamespace("kube-system")); err != nil {
			cl.t.Fatal(err)
		}
		for i := range list.Items {
			out = append(out, &list.Items[i])
		}
	}
	return out
}

// replayOracle replays the oracle table of release r as the components that apply deployed, under
// the RBAC it applied: no request Calico needs is refused and calico-node's start-up facts hold.
func (cl *cluster) replayOracle(r calicoversion.Release) {
	cl.t.Helper()
	table, err := calicooracle.LoadFor(r)
	if err != nil {
		cl.t.Fatal(err)
	}
	d, err := calicooracle.Inspect(table, cl.deployed())
	if err != nil {
		cl.t.Fatal(err)
	}
	if len(d.Components) < 3 {
		cl.t.Fatalf("the oracle sees %d components running: %v", len(d.Components), d.Components)
	}
	findings, err := calicooracle.CheckStartup(table, d)
	if err != nil {
		cl.t.Fatal(err)
	}
	for _, f := range findings {
		cl.t.Errorf("start-up at %s: %s", r, f)
	}
	p, err := calicooracle.NewReplayer(cl.cp.Config, table)
	if err != nil {
		cl.t.Fatal(err)
	}
	results, err := p.Replay(context.Background(), d)
	if err != nil {
		cl.t.Fatal(err)
	}
	for _, res := range results {
		if res.Problem != "" {
			cl.t.Errorf("at %s: %s", r, res)
		}
	}
	cl.t.Logf("%d requests replayed at %s as %d components", len(results), r, len(d.Components))
}

// TestCalicoOracleAcceptsWhatApplyDeployed: Calico's own components, replayed per component under
// what apply deployed, get every answer they need, after the install and after a move up a line.
func TestCalicoOracleAcceptsWhatApplyDeployed(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	ctx := context.Background()
	if code, out, errOut := cl.apply(ctx, minimalFile); code != 0 {
		t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
	}
	cat := calicoversion.Default()
	r, _ := cat.Release(cl.state().Release)
	cl.replayOracle(r)

	if code, out, errOut := cl.apply(ctx, minimalFile, "--calico-version", "v3.32"); code != 0 {
		t.Fatalf("upgrade: exit %d\n%s\n%s", code, out, errOut)
	}
	r, _ = cat.Release(cl.state().Release)
	cl.replayOracle(r)
}
