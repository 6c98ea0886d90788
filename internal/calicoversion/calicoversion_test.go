package calicoversion_test

import (
	"strings"
	"testing"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]calicoversion.Version{
		"v3.31": calicoversion.V3_31, "3.31": calicoversion.V3_31, "v3.31.6": calicoversion.V3_31,
		" v3.32 ": calicoversion.V3_32, "v3.32.1": calicoversion.V3_32,
	} {
		got, err := calicoversion.Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{
		"v3.31.7": `calico-pilot deploys v3.31.6 of the v3.31 line (name the line, "v3.31")`,
		"v3.30":   `Calico "v3.30" is not supported, supported: v3.31, v3.32`,
		"":        `supported: v3.31, v3.32`,
		"latest":  `supported: v3.31, v3.32`,
	} {
		if _, err := calicoversion.Parse(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("Parse(%q): error %v, want it to say %q", in, err, msg)
		}
	}
}

func TestOrderAndKubernetes(t *testing.T) {
	if calicoversion.V3_31.Compare(calicoversion.V3_32) != -1 || calicoversion.V3_32.Compare(calicoversion.V3_31) != 1 || calicoversion.V3_32.Compare(calicoversion.V3_32) != 0 {
		t.Error("v3.31 < v3.32 expected")
	}
	if calicoversion.Newer(calicoversion.V3_31, calicoversion.V3_32) != calicoversion.V3_32 {
		t.Error("Newer")
	}
	// calico-v3.32-delta.md §0 row 10.
	for _, tt := range []struct {
		v    calicoversion.Version
		k8s  string
		want bool
	}{
		{calicoversion.V3_31, "1.31.9", false}, {calicoversion.V3_31, "1.32.0", true}, {calicoversion.V3_31, "v1.35.1", true},
		{calicoversion.V3_31, "1.36.0", false}, {calicoversion.V3_32, "1.33.5", false}, {calicoversion.V3_32, "1.34.0", true},
		{calicoversion.V3_32, "1.36.2", true}, {calicoversion.V3_32, "1.37.0", false}, {calicoversion.V3_32, "", true},
	} {
		if got := tt.v.SupportsKubernetes(tt.k8s); got != tt.want {
			t.Errorf("%s on Kubernetes %q: %v, want %v", tt.v, tt.k8s, got, tt.want)
		}
	}
}

// TestMove: Calico's order. Up: calico-node first, then Typha and kube-controllers; down: Typha and
// kube-controllers first. The CRDs are the newest schema the shoot had in every step.
func TestMove(t *testing.T) {
	v31, v32 := calicoversion.V3_31, calicoversion.V3_32
	for _, tt := range []struct {
		name            string
		from, to, crds  calicoversion.Version
		phase           calicoversion.Phase
		node, typha, kc calicoversion.Version
		wantCRDs        calicoversion.Version
	}{
		{"up first", v31, v32, calicoversion.Version{}, calicoversion.PhaseFirst, v32, v31, v31, v32},
		{"up complete", v31, v32, v31, calicoversion.PhaseComplete, v32, v32, v32, v32},
		{"down first", v32, v31, v32, calicoversion.PhaseFirst, v32, v31, v31, v32},
		{"down complete keeps the newer CRDs", v32, v31, v32, calicoversion.PhaseComplete, v31, v31, v31, v32},
		{"down complete without a record", v32, v31, calicoversion.Version{}, calicoversion.PhaseComplete, v31, v31, v31, v32},
		{"steady", v31, v31, v32, calicoversion.PhaseComplete, v31, v31, v31, v32},
	} {
		d := calicoversion.Move(tt.from, tt.to, tt.crds, tt.phase)
		if d.Node != tt.node || d.Typha != tt.typha || d.KubeControllers != tt.kc || d.CRDs != tt.wantCRDs {
			t.Errorf("%s: %v; want calico-node %s, typha %s, kube-controllers %s, CRDs %s", tt.name, d, tt.node, tt.typha, tt.kc, tt.wantCRDs)
		}
	}
	d := calicoversion.Move(v31, v32, calicoversion.Version{}, calicoversion.PhaseFirst)
	if got := d.Components(); len(got) != 2 || got[0] != v31 || got[1] != v32 {
		t.Errorf("components %v, want [v3.31 v3.32]", got)
	}
	if d.IsSteady() || !calicoversion.Steady(v32).IsSteady() {
		t.Error("IsSteady")
	}
	if got := calicoversion.Steady(v32).String(); got != "v3.32" {
		t.Errorf("String %q", got)
	}
	if (calicoversion.Deployment{}).OrDefault() != calicoversion.Steady(calicoversion.Default()) {
		t.Error("OrDefault")
	}
}
