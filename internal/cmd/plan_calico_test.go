package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// renderAt renders examples/shoot.yaml on a Kubernetes version at a Calico release or line into a file.
func renderAt(t *testing.T, dir, k8s, version string) (shootPath, manifestPath string) {
	t.Helper()
	data, err := os.ReadFile("../../examples/shoot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	shoot := strings.Replace(string(data), "version: 1.32.0", "version: "+k8s, 1)
	if !strings.Contains(shoot, "version: "+k8s) {
		t.Fatal("test input was not changed as intended")
	}
	shootPath = filepath.Join(dir, "shoot-"+k8s+".yaml")
	writeFile(t, shootPath, shoot)
	code, out, errOut := runCLI(t, "render", "--shoot", shootPath, "--kube-apiserver-address", "192.0.2.10", "--calico-version", version)
	if code != 0 {
		t.Fatalf("render: %d %s", code, errOut)
	}
	manifestPath = filepath.Join(dir, "current-"+k8s+"-"+version+".yaml")
	writeFile(t, manifestPath, out)
	return shootPath, manifestPath
}

// planJSON is the part of plan's JSON report these tests read.
type planJSON struct {
	Blockers []struct{ Object, Message string }
	Calico   struct {
		Current, Target, Direction, Refused string
		Retired                             []string
		Restarts                            []struct {
			Workload string
			Step     int
		}
		Facts       []struct{ ID, Status string }
		KnownIssues []struct{ ID, Release, Component, Title, Detail, Action string }
	}
}

func decodePlan(t *testing.T, out string) planJSON {
	t.Helper()
	var p planJSON
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	return p
}

// TestPlanTargetVersion: plan across lines shows both releases, the restarts in Calico's order, the
// facts of the move and the known issues of the target; the shoot's Kubernetes version blocks a line
// that does not support it. What render changes between the lines beyond images is render's: only the
// image tags and the restarts are asserted here.
func TestPlanTargetVersion(t *testing.T) {
	dir := t.TempDir()
	shoot, current31 := renderAt(t, dir, "1.34.2", "v3.31")
	_, current32 := renderAt(t, dir, "1.34.2", "v3.32")
	base := []string{"plan", "--shoot", shoot, "--kube-apiserver-address", "192.0.2.10"}

	code, out, errOut := runCLI(t, append(base, "--current", current31, "--target-version", "v3.32")...)
	if code != 0 {
		t.Fatalf("up: exit %d, %s\n%s", code, errOut, out)
	}
	for _, want := range []string{
		`"quay.io/calico/node:v3.31.7" -> "quay.io/calico/node:v3.32.1"`,
		"Calico: v3.31 (v3.31.7) -> v3.32 (v3.32.1) (upgrade)\nrestarts, in Calico's order:\n  1. DaemonSet kube-system/calico-node (first): ",
		"\n  2. Deployment kube-system/calico-kube-controllers (after step 1 has rolled out): ",
		"[up.anp-banp-not-enforced] (not checked: needs --kubeconfig SHOOT)",
		"known issues of the target (docs/calico-lines.md):\n" +
			"  calico-kube-controllers v3.32.1: kube-controllers does nothing while any calico-node pod is unavailable [kube-controllers-stalls-while-calico-node-unavailable]\n" +
			"          do: Move kube-controllers only after calico-node completed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("up: the plan lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "[down.") {
		t.Error("up: the plan lists downgrade facts")
	}
	// The same in JSON: the known issue with what to do.
	code, out, _ = runCLI(t, append(base, "--current", current31, "--target-version", "v3.32.1", "-o", "json")...)
	if p := decodePlan(t, out); code != 0 || len(p.Calico.KnownIssues) != 1 || p.Calico.KnownIssues[0].ID != "kube-controllers-stalls-while-calico-node-unavailable" ||
		p.Calico.KnownIssues[0].Release != "v3.32.1" || p.Calico.KnownIssues[0].Component != "calico-kube-controllers" ||
		!strings.HasPrefix(p.Calico.KnownIssues[0].Action, "Move kube-controllers only after calico-node completed") {
		t.Errorf("up, JSON: exit %d, known issues %+v", code, p.Calico.KnownIssues)
	}

	code, out, errOut = runCLI(t, append(base, "--current", current32, "--target-version", "v3.31", "-o", "json")...)
	if code != 0 {
		t.Fatalf("down: exit %d, %s\n%s", code, errOut, out)
	}
	p := decodePlan(t, out)
	c := p.Calico
	if c.Current != "v3.32 (v3.32.1)" || c.Target != "v3.31 (v3.31.7), CRDs v3.32" || c.Direction != "down" || len(c.KnownIssues) != 0 {
		t.Errorf("down: %s -> %s (%s), known issues %v", c.Current, c.Target, c.Direction, c.KnownIssues)
	}
	var order []string
	for _, r := range c.Restarts {
		order = append(order, r.Workload)
	}
	if diff := cmp.Diff([]string{"Deployment kube-system/calico-kube-controllers", "DaemonSet kube-system/calico-node"}, order); diff != "" {
		t.Errorf("down: restart order (-want +got):\n%s", diff)
	}
	statuses := map[string]string{}
	for _, f := range c.Facts {
		statuses[f.ID] = f.Status
	}
	if statuses["down.policy-tiers"] != "NotChecked" || statuses["kubernetes-range"] != "Clear" || statuses["down.nftables"] != "Always" {
		t.Errorf("down: fact statuses %v", statuses)
	}
	// Going down keeps the v3.32 CRDs (no CRD deleted, no field pruned): no blocker of the diff.
	if strings.Contains(out, "would be deleted") || !strings.Contains(out, `"blockers": [],`) {
		t.Errorf("down: the plan renders an older CRD schema:\n%s", out)
	}

	// Kubernetes 1.36: v3.31 does not support it, so going back is refused; render's warning is the
	// calicoVersion.kubernetes rule's, as admission and validate say it.
	shoot136, current136 := renderAt(t, dir, "1.36.0", "v3.32")
	code, out, errOut = runCLI(t, "plan", "--current", current136, "--shoot", shoot136, "--kube-apiserver-address", "192.0.2.10", "--target-version", "v3.31")
	want := "  Calico kubernetes-range: the target line must support the shoot's Kubernetes version (docs/calico-lines.md lists each line's range): " +
		"Calico v3.31.7 supports Kubernetes 1.32-1.35, the shoot runs 1.36.0"
	if code != 1 || !strings.Contains(out, want) || errOut != "warning: --target-version v3.31: Calico v3.31.7 supports Kubernetes 1.32-1.35, the shoot runs 1.36.0 (spec.kubernetes.version); pin v3.32, or remove the pin\n"+
		"error: 1 blocker(s): the change is refused\n" {
		t.Errorf("Kubernetes 1.36 down: exit %d, %q\n%s", code, errOut, out)
	}

	// The same release: no move, the release is shown.
	code, out, _ = runCLI(t, append(base, "--current", current31, "--target-version", "v3.31")...)
	if code != 0 || out != "no changes (47 objects compared)\nCalico: v3.31 (v3.31.7), unchanged\n" {
		t.Errorf("no move: exit %d\n%s", code, out)
	}
	code, _, errOut = runCLI(t, append(base, "--current", current31, "--target-version", "v3.30")...)
	if code != 2 || !strings.Contains(errOut, "--target-version: Calico \"v3.30\" is not supported; accepted: a line (") {
		t.Errorf("bad line: exit %d %q", code, errOut)
	}
}

// TestPlanPatchRelease: a move to another release of the same line is one step (every component
// restarts in step 1: calico-node and kube-controllers; this shoot runs no Typha), has no facts of a line move, and is safe; in both directions, for every line
// with two releases.
func TestPlanPatchRelease(t *testing.T) {
	dir := t.TempDir()
	tested := 0
	for _, l := range calicoversion.Default().Lines() {
		rs := l.Releases()
		for i := 0; i+1 < len(rs); i++ {
			for _, m := range [][2]calicoversion.Release{{rs[i], rs[i+1]}, {rs[i+1], rs[i]}} {
				tested++
				k8s := l.KubernetesMax() + ".0"
				shoot, current := renderAt(t, dir, k8s, m[0].Name())
				code, out, errOut := runCLI(t, "plan", "--current", current, "--shoot", shoot, "--kube-apiserver-address", "192.0.2.10", "--target-version", m[1].Name())
				head := "Calico: " + l.Name() + " (" + m[0].Name() + ") -> " + l.Name() + " (" + m[1].Name() + ") (patch release: every component in one step)\n" +
					"restarts, in Calico's order:\n  1. DaemonSet kube-system/calico-node (all at once): "
				if code != 0 || !strings.Contains(out, head) || strings.Contains(out, "  2. ") || strings.Contains(out, "facts of the move") {
					t.Errorf("%s -> %s: exit %d %s\n%s", m[0], m[1], code, errOut, out)
				}
				code, out, _ = runCLI(t, "plan", "--current", current, "--shoot", shoot, "--kube-apiserver-address", "192.0.2.10", "--target-version", m[1].Name(), "-o", "json")
				p := decodePlan(t, out)
				steps := map[int]int{}
				for _, r := range p.Calico.Restarts {
					steps[r.Step]++
				}
				if code != 0 || p.Calico.Direction != "patch" || len(p.Calico.Facts) != 0 || steps[1] < 2 || len(steps) != 1 {
					t.Errorf("%s -> %s JSON: exit %d, direction %s, %d facts, restarts per step %v", m[0], m[1], code, p.Calico.Direction, len(p.Calico.Facts), steps)
				}
			}
		}
	}
	if tested == 0 {
		t.Fatal("no line of the catalogue has two releases: nothing tested")
	}
}

// TestPlanRetiredRelease: a shoot whose images are of a release this calico-pilot no longer carries
// runs as the newest release of its line: plan says so before anything changes, and the move to it is
// a patch move.
func TestPlanRetiredRelease(t *testing.T) {
	dir := t.TempDir()
	for _, l := range calicoversion.Default().Lines() {
		first := l.Releases()[0]
		old := first.Version()
		if old.Patch == 0 {
			continue
		}
		old.Patch--
		shoot, current := renderAt(t, dir, l.KubernetesMax()+".0", first.Name())
		data, err := os.ReadFile(current)
		if err != nil {
			t.Fatal(err)
		}
		// The shoot as an older calico-pilot deployed it: the images of the retired release.
		retired := strings.ReplaceAll(string(data), ":"+first.Name()+"\n", ":"+old.String()+"\n")
		if retired == string(data) {
			t.Fatal("test input was not changed as intended")
		}
		writeFile(t, current, retired)
		note := "note: Calico " + old.String() + " is not carried by this calico-pilot (retired); the shoot moves to the newest release of its line, " + l.Newest().Name() + ".\n"
		code, out, errOut := runCLI(t, "plan", "--current", current, "--shoot", shoot, "--kube-apiserver-address", "192.0.2.10", "--target-version", l.Name())
		head := "Calico: " + l.Name() + " (" + old.String() + ", retired) -> " + l.Name() + " (" + l.Newest().Name() + ") (patch release: every component in one step)\n" + note
		if code != 0 || !strings.Contains(out, head) {
			t.Errorf("%s: exit %d %s\n%s", old, code, errOut, out)
		}
		code, out, _ = runCLI(t, "plan", "--current", current, "--shoot", shoot, "--kube-apiserver-address", "192.0.2.10", "--target-version", l.Name(), "-o", "json")
		if p := decodePlan(t, out); code != 0 || len(p.Calico.Retired) != 1 || p.Calico.Retired[0]+"\n" != strings.TrimPrefix(note, "note: ") || p.Calico.Direction != "patch" {
			t.Errorf("%s JSON: exit %d, %+v", old, code, p.Calico)
		}
	}
}
