package render_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/referencekeep"
	"github.com/calico-pilot/calico-pilot/internal/render"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
)

// The roll count of a swap-in: for the reference's scenarios (docs/reference-extension.md
// §2.10, as in scenarios), the pod templates of calico-node and typha that calico-pilot renders in
// Reference compatibility mode, after taking the shoot over from the reference's deployed manifest, are
// compared with the reference's. A scenario whose template differs rolls calico-node or typha on every
// shoot of that kind at swap-in. Only the named fixes (render.ReferenceTemplateDifferences) may differ.

// allowDifferences applies to calico-pilot's template what the named fixes change, back to the
// reference's (ref): what remains different is a roll nobody asked for. It returns the IDs it applied.
func allowDifferences(node, ref *corev1.PodTemplateSpec) []string {
	var applied []string
	cs := node.Spec.Containers
	for i := range cs {
		switch cs[i].Name {
		case "network-unavailable-condition-ensurer":
			// The fix is the command and the environment -complete-startup runs with.
			cs[i].Command = []string{"/bin/sh", "-c", rendertest.RefEnsurer}
			for _, rc := range ref.Spec.Containers {
				if rc.Name == cs[i].Name {
					cs[i].Env = rc.Env
				}
			}
			applied = append(applied, "ensurer-command")
		case "calico-node":
			var e []corev1.EnvVar
			for _, v := range cs[i].Env {
				if v.Name == "FELIX_BPFDATAIFACEPATTERN" {
					applied = append(applied, "bpf-data-iface-pattern")
					continue
				}
				e = append(e, v)
			}
			cs[i].Env = e
		}
	}
	return applied
}

// renderReference renders a scenario in a compatibility mode with what was taken over (nil: nothing).
func renderReference(t *testing.T, sc scenario, taken *calicov1alpha1.TakenOverTemplate, mode calicov1alpha1.CompatibilityMode) rendertest.Rendered {
	t.Helper()
	r, err := rendertest.RenderCompat(sc, taken, mode)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReferenceModeRollCount is the roll count: per scenario, does calico-node or typha roll when
// calico-pilot takes the shoot over from the reference? It fails for any difference outside
// render.ReferenceTemplateDifferences, and logs how many scenarios would roll before this change
// (calico-pilot's own templates, as every mode rendered them) and after.
func TestReferenceModeRollCount(t *testing.T) {
	named := map[string]bool{}
	for _, d := range render.ReferenceTemplateDifferences {
		named[d.ID] = true
	}
	before, after, afterNamed := 0, 0, 0
	var lines []string
	for _, name := range rendertest.RollScenarios {
		sc, err := rendertest.ScenarioNamed(name)
		if err != nil {
			t.Fatal(err)
		}
		// What the reference deployed for this shoot, and what calico-pilot takes over from it.
		ref := renderReference(t, sc, nil, calicov1alpha1.CompatibilityReference)
		o := ref.Options
		deployed, err := rendertest.ReferenceManifest(&o, ref.Config, nil)
		if err != nil {
			t.Fatal(err)
		}
		taken, err := referencekeep.FromDeployed(deployed)
		if err != nil {
			t.Fatal(err)
		}
		pilot := renderReference(t, sc, taken, calicov1alpha1.CompatibilityReference)
		ds, typha := pilot.Node, pilot.Typha
		refNode, refTypha := rendertest.ReferenceNodeTemplate(&o), rendertest.ReferenceTyphaTemplate(&o)

		// Before: calico-pilot's own templates (what every mode rendered before Reference mode kept the reference's templates).
		native := renderReference(t, sc, nil, calicov1alpha1.CompatibilityNative)
		nativeDS, nativeTypha := native.Node, native.Typha
		rolledBefore := !cmp.Equal(refNode, nativeDS.Spec.Template) || (nativeTypha != nil && !cmp.Equal(refTypha, nativeTypha.Spec.Template))
		if rolledBefore {
			before++
		}

		got := ds.Spec.Template.DeepCopy()
		applied := allowDifferences(got, &refNode)
		for _, id := range applied {
			if !named[id] {
				t.Errorf("%s: difference %s is not in render.ReferenceTemplateDifferences", name, id)
			}
		}
		diff := cmp.Diff(refNode, *got)
		if typha != nil {
			diff += cmp.Diff(refTypha, typha.Spec.Template)
		}
		if diff != "" {
			after++
			t.Errorf("%s: calico-pilot's Reference-mode template differs from the reference's beyond the named fixes (-reference +calico-pilot):\n%s", name, diff)
		}
		if len(applied) > 0 {
			afterNamed++
		}
		lines = append(lines, fmt.Sprintf("%-36s before: %-5t after: %-5t named fixes: %s", name, rolledBefore, diff != "" || len(applied) > 0, strings.Join(uniq(applied), ",")))
	}
	t.Logf("scenarios: %d; calico-node/typha roll at swap-in before: %d, after: %d (%d of them only for named fixes, %d for anything else)\n%s",
		len(rendertest.RollScenarios), before, after+afterNamed, afterNamed, after, strings.Join(lines, "\n"))
}

func uniq(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
