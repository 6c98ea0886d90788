package standalone

import (
	"errors"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/install"
)

// TestChooseSource: each install source is chosen once from what runs and the state, and --adopt
// where nothing runs is refused instead of installing afresh.
func TestChooseSource(t *testing.T) {
	node := install.Workload{Component: calicoversion.Node, Kind: "DaemonSet", Namespace: "kube-system", Name: "calico-node"}
	ours := node
	ours.ByCalicoPilot = true
	operator := &install.Install{Workloads: []install.Workload{node}, Operator: &install.Operator{Signs: []string{"Installation default"}}}
	for _, tc := range []struct {
		name  string
		req   Request
		in    *install.Install
		st    State
		found bool
		want  SourceKind
		taken bool
		err   error
	}{
		{name: "nothing runs", in: &install.Install{}, want: SourceNone},
		{name: "nothing runs, --adopt", req: Request{Adopt: true}, in: &install.Install{}, err: ErrNothingToAdopt},
		{name: "upstream's manifest", in: &install.Install{Workloads: []install.Workload{node}}, want: SourceManifest},
		{name: "calico-pilot's", in: &install.Install{Workloads: []install.Workload{ours}}, st: State{Release: "v3.31.7"}, found: true, want: SourceCalicoPilot},
		{name: "calico-pilot's, state lost", in: &install.Install{Workloads: []install.Workload{ours}}, want: SourceCalicoPilot},
		{name: "the operator's", in: operator, want: SourceOperator},
		{name: "the operator's, taken over", in: operator, st: State{Operator: &OperatorState{Replicas: 1}}, found: true, want: SourceOperator, taken: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := chooseSource(tc.req, tc.in, tc.st, tc.found)
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if err == nil && (s.Kind != tc.want || s.TakenOver != tc.taken) {
				t.Errorf("source %s (taken over %v), want %s (%v)", s.Kind, s.TakenOver, tc.want, tc.taken)
			}
			if err == nil && s.NeedsAdopt != (tc.want == SourceManifest || tc.want == SourceOperator) {
				t.Errorf("%s: NeedsAdopt %v", s.Kind, s.NeedsAdopt)
			}
		})
	}
}

// TestLostFields names what a workload's update removes that another manager had put there: the
// flow-log env, the hostAliases entry and a volume, as a takeover that renders no Goldmane would.
func TestLostFields(t *testing.T) {
	pod := func(env []any, aliases []any, volumes []any) *unstructured.Unstructured {
		spec := map[string]any{
			"containers": []any{map[string]any{"name": "calico-node", "env": env, "volumeMounts": []any{map[string]any{"name": "x", "mountPath": "/x"}}}},
			"volumes":    volumes,
		}
		if aliases != nil {
			spec["hostAliases"] = aliases
		}
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "DaemonSet",
			"metadata": map[string]any{"namespace": "calico-system", "name": "calico-node"},
			"spec":     map[string]any{"template": map[string]any{"spec": spec}}}}
	}
	env := func(names ...string) []any {
		var out []any
		for _, n := range names {
			out = append(out, map[string]any{"name": n, "value": "v"})
		}
		return out
	}
	live := pod(env("DATASTORE_TYPE", "FELIX_FLOWLOGSGOLDMANESERVER", "FELIX_FLOWLOGSFLUSHINTERVAL"),
		[]any{map[string]any{"ip": "10.0.0.85", "hostnames": []any{"goldmane.calico-system.svc"}}},
		[]any{map[string]any{"name": "x"}, map[string]any{"name": "goldmane-ca-bundle"}})
	after := pod(env("DATASTORE_TYPE"), nil, []any{map[string]any{"name": "x"}})
	want := []string{"container calico-node env FELIX_FLOWLOGSGOLDMANESERVER, FELIX_FLOWLOGSFLUSHINTERVAL", "volumes goldmane-ca-bundle", "hostAliases goldmane.calico-system.svc"}
	if got := lostFields(live, after); !reflect.DeepEqual(got, want) {
		t.Errorf("lostFields = %q, want %q", got, want)
	}
	if got := lostFields(live, live); len(got) != 0 {
		t.Errorf("an unchanged workload loses %q", got)
	}
}
