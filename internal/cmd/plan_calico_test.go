package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// renderAt renders examples/shoot.yaml on a Kubernetes version at a Calico line into a file.
func renderAt(t *testing.T, dir, k8s, line string) (shootPath, manifestPath string) {
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
	code, out, errOut := runCLI(t, "render", "--shoot", shootPath, "--kube-apiserver-address", "192.0.2.10", "--calico-version", line)
	if code != 0 {
		t.Fatalf("render: %d %s", code, errOut)
	}
	manifestPath = filepath.Join(dir, "current-"+k8s+"-"+line+".yaml")
	writeFile(t, manifestPath, out)
	return shootPath, manifestPath
}

// TestPlanTargetVersion: plan across lines shows both lines, the restarts in Calico's order and the
// facts of the move; the shoot's Kubernetes version blocks a line that does not support it. What
// render changes between the lines beyond images is render's: only the image tags and the restarts
// are asserted here.
func TestPlanTargetVersion(t *testing.T) {
	dir := t.TempDir()
	shoot, current31 := renderAt(t, dir, "1.34.2", "v3.31")
	_, current32 := renderAt(t, dir, "1.34.2", "v3.32")

	code, out, errOut := runCLI(t, "plan", "--current", current31, "--shoot", shoot, "--kube-apiserver-address", "192.0.2.10", "--target-version", "v3.32")
	if code != 0 {
		t.Fatalf("up: exit %d, %s\n%s", code, errOut, out)
	}
	for _, want := range []string{
		`"quay.io/calico/node:v3.31.6" -> "quay.io/calico/node:v3.32.1"`,
		"Calico: v3.31 (v3.31.6) -> v3.32 (v3.32.1) (upgrade)\nrestarts, in Calico's order:\n  1. DaemonSet kube-system/calico-node (first): ",
		"\n  2. Deployment kube-system/calico-kube-controllers (after step 1 has rolled out): ",
		"[up.anp-banp-not-enforced] (not checked: needs --kubeconfig SHOOT)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("up: the plan lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "[down.") {
		t.Error("up: the plan lists downgrade facts")
	}

	code, out, errOut = runCLI(t, "plan", "--current", current32, "--shoot", shoot, "--kube-apiserver-address", "192.0.2.10", "--target-version", "v3.31", "-o", "json")
	if code != 0 {
		t.Fatalf("down: exit %d, %s\n%s", code, errOut, out)
	}
	var report struct {
		Calico struct {
			Current, Target, Direction string
			Restarts                   []struct {
				Workload string
				Step     int
			}
			Facts []struct{ ID, Status string }
		}
	}
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatal(err)
	}
	c := report.Calico
	if c.Current != "v3.32 (v3.32.1)" || c.Target != "v3.31 (v3.31.6), CRDs v3.32" || c.Direction != "down" {
		t.Errorf("down: %s -> %s (%s)", c.Current, c.Target, c.Direction)
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

	// Kubernetes 1.36: v3.31 does not support it, so going back is refused.
	shoot136, current136 := renderAt(t, dir, "1.36.0", "v3.32")
	code, out, errOut = runCLI(t, "plan", "--current", current136, "--shoot", shoot136, "--kube-apiserver-address", "192.0.2.10", "--target-version", "v3.31")
	want := "  Calico kubernetes-range: the target line must support the shoot's Kubernetes version (v3.31: 1.32-1.35, v3.32: 1.34-1.36): " +
		"Calico v3.31 supports Kubernetes 1.32 to 1.35, the shoot runs 1.36.0; move on Kubernetes 1.34 or 1.35"
	if code != 1 || !strings.Contains(out, want) || errOut != "warning: Calico v3.31 supports Kubernetes 1.32 to 1.35, the shoot runs 1.36.0\nerror: 1 blocker(s): the change is refused\n" {
		t.Errorf("Kubernetes 1.36 down: exit %d, %q\n%s", code, errOut, out)
	}

	// The same line: no move, the line is shown.
	code, out, _ = runCLI(t, "plan", "--current", current31, "--shoot", shoot, "--kube-apiserver-address", "192.0.2.10")
	if code != 0 || out != "no changes (47 objects compared)\nCalico: v3.31 (v3.31.6), unchanged\n" {
		t.Errorf("no move: exit %d\n%s", code, out)
	}
	code, _, errOut = runCLI(t, "plan", "--current", current31, "--shoot", shoot, "--target-version", "v3.30")
	if code != 2 || !strings.Contains(errOut, "--target-version: Calico \"v3.30\" is not supported") {
		t.Errorf("bad line: exit %d %q", code, errOut)
	}
}
