package plan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calico-pilot/calico-pilot/internal/calicofacts"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/manifestdiff"
)

// workloads is a manifest with calico-node, Typha and kube-controllers at the given releases ("" =
// not deployed).
func workloads(node, typha, kc string) string {
	w := func(kind, name, image string) string {
		return fmt.Sprintf(`apiVersion: apps/v1
kind: %s
metadata: {name: %s, namespace: kube-system}
spec:
  selector: {matchLabels: {k8s-app: %s}}
  template:
    metadata: {labels: {k8s-app: %s}}
    spec:
      containers:
      - {name: %s, image: "%s"}
---
`, kind, name, name, name, name, image)
	}
	out := w("DaemonSet", "calico-node", "quay.io/calico/node:"+node)
	if typha != "" {
		out += w("Deployment", "calico-typha-deploy", "quay.io/calico/typha:"+typha)
	}
	if kc != "" {
		out += w("Deployment", "calico-kube-controllers", "quay.io/calico/kube-controllers:"+kc)
	}
	return out
}

func set(t *testing.T, manifest string) *manifestdiff.Set {
	t.Helper()
	p, err := manifestdiff.NewParser()
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.Stream("test", []byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLines(t *testing.T) {
	v31, v32 := calicoversion.V3_31, calicoversion.V3_32
	for _, tt := range []struct {
		name     string
		manifest string
		want     calicoversion.Deployment
	}{
		{"steady v3.31", workloads("v3.31.6", "v3.31.6", "v3.31.6"), calicoversion.Steady(v31)},
		{"no typha", workloads("v3.32.1", "", "v3.32.1"), calicoversion.Steady(v32)},
		{"first step up", workloads("v3.32.1", "v3.31.6", "v3.31.6"), calicoversion.Deployment{Node: v32, Typha: v31, KubeControllers: v31, CRDs: v32}},
		{"an older patch release counts as its line", workloads("v3.31.5", "", ""), calicoversion.Steady(v31)},
		{"a release of no supported line", workloads("v3.29.0", "", ""), calicoversion.Deployment{}},
		{"no calico-node", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: ns}\n", calicoversion.Deployment{}},
	} {
		if got := Lines(set(t, tt.manifest)); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestRestartsInCalicosOrder: going up calico-node rolls first, going down Typha and kube-controllers.
func TestRestartsInCalicosOrder(t *testing.T) {
	v31, v32 := calicoversion.V3_31, calicoversion.V3_32
	s31, s32 := set(t, workloads("v3.31.6", "v3.31.6", "v3.31.6")), set(t, workloads("v3.32.1", "v3.32.1", "v3.32.1"))
	steps := func(rs []Restart) []string {
		var out []string
		for _, r := range rs {
			if len(r.Reasons) == 0 {
				t.Errorf("%s restarts without a reason", r.Workload)
			}
			out = append(out, fmt.Sprintf("%d %s", r.Step, r.Workload))
		}
		return out
	}
	up := manifestdiff.Compare(s31, s32)
	manifestdiff.DefaultClassifier().Classify(up)
	if diff := cmp.Diff([]string{"1 DaemonSet kube-system/calico-node", "2 Deployment kube-system/calico-kube-controllers", "2 Deployment kube-system/calico-typha-deploy"}, steps(Restarts(up, v31, v32))); diff != "" {
		t.Errorf("up (-want +got):\n%s", diff)
	}
	down := manifestdiff.Compare(s32, s31)
	manifestdiff.DefaultClassifier().Classify(down)
	if diff := cmp.Diff([]string{"1 Deployment kube-system/calico-kube-controllers", "1 Deployment kube-system/calico-typha-deploy", "2 DaemonSet kube-system/calico-node"}, steps(Restarts(down, v32, v31))); diff != "" {
		t.Errorf("down (-want +got):\n%s", diff)
	}
	// Without a move (a config change), every restart is the first step.
	if diff := cmp.Diff([]string{"1 DaemonSet kube-system/calico-node", "1 Deployment kube-system/calico-kube-controllers", "1 Deployment kube-system/calico-typha-deploy"}, steps(Restarts(up, v32, v32))); diff != "" {
		t.Errorf("same line (-want +got):\n%s", diff)
	}
}

func TestMoveBlockers(t *testing.T) {
	v31, v32 := calicoversion.V3_31, calicoversion.V3_32
	d := manifestdiff.Compare(set(t, workloads("v3.32.1", "", "")), set(t, workloads("v3.31.6", "", "")))
	manifestdiff.DefaultClassifier().Classify(d)
	cnp := calicofacts.Kind{APIVersion: "policy.networking.k8s.io/v1alpha2", Kind: "ClusterNetworkPolicy"}
	objects := calicofacts.Objects{cnp: {{"metadata": map[string]any{"name": "deny-egress"}}}}
	m := NewMove(calicoversion.Steady(v32), calicoversion.Move(v32, v31, v32, calicoversion.PhaseComplete), d, "1.36.0", objects)
	if m.Direction != "down" || m.Current != "v3.32 (v3.32.1)" || m.Target != "v3.31 (v3.31.6), CRDs v3.32" {
		t.Errorf("move %s: %s -> %s", m.Direction, m.Current, m.Target)
	}
	var got []string
	for _, b := range m.Blockers() {
		got = append(got, b.Object)
	}
	if diff := cmp.Diff([]string{"Calico kubernetes-range", "Calico down.cluster-network-policy"}, got); diff != "" {
		t.Errorf("blockers (-want +got):\n%s", diff)
	}
	if msg := m.Blockers()[1].Message; !strings.Contains(msg, "1 object(s): ClusterNetworkPolicy.policy.networking.k8s.io deny-egress: not enforced by v3.31; rewrite each") {
		t.Errorf("message %q", msg)
	}
	// Without the shoot's objects or a move, nothing blocks.
	if b := NewMove(calicoversion.Steady(v32), calicoversion.Steady(v31), d, "1.35.0", nil).Blockers(); len(b) != 0 {
		t.Errorf("blockers without live checks: %v", b)
	}
	if m := NewMove(calicoversion.Steady(v31), calicoversion.Steady(v31), d, "1.36.0", nil); len(m.Facts) != 0 || m.Direction != "none" {
		t.Errorf("no move: %s, %d facts", m.Direction, len(m.Facts))
	}
}
