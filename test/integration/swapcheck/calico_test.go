package swapcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calico-pilot/calico-pilot/internal/cmd"
)

const statusV331 = `{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkStatus","overlayEnabled":true,"backend":"bird","ipFamilies":["IPv4"],"compatibility":"Native","calicoVersion":"v3.31.6"}`

// TestPlanSeedTargetVersion: plan --kubeconfig SEED --target-version plans every calico shoot of a
// real seed (Networks, Clusters, ManagedResources on an API server): the line each runs (from its
// deployed manifest), the target, the restarts in Calico's order, and the blockers that need no
// shoot access (its Kubernetes version). swap-check on the same seed shows the line each shoot runs
// and the line calico-pilot would give it.
func TestPlanSeedTargetVersion(t *testing.T) {
	config := "overlay:\n  enabled: true\n"
	nsMoves := create(t, "moves", seedShoot{config: config, deployed: pilotManifest(t, "moves", config), providerStatus: statusV331, kubernetes: "1.34.1"})
	nsOld := create(t, "old-k8s", seedShoot{config: config, deployed: pilotManifest(t, "old-k8s", config), providerStatus: statusV331})
	pinned := config + "calicoVersion: v3.32\n"
	nsPinned := create(t, "pinned", seedShoot{config: pinned, deployed: pilotManifest(t, "pinned", config), providerStatus: statusV331, kubernetes: "1.35.0"})
	kubeconfig := kubeconfigFile(t)

	var out, errOut bytes.Buffer
	code := cmd.Execute(context.Background(), []string{"plan", "--kubeconfig", kubeconfig, "--target-version", "v3.32", "-o", "json"}, strings.NewReader(""), &out, &errOut)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a shoot on Kubernetes 1.33 cannot move); stderr %s\n%s", code, errOut.String(), out.String())
	}
	var rows []struct {
		Namespace string
		Calico    struct {
			Current, Target, Direction string
			Restarts                   []struct {
				Workload string
				Step     int
			}
		}
		Blockers []struct{ Object string }
		Errors   []string
	}
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	got := map[string]int{}
	for i, r := range rows {
		got[r.Namespace] = i
	}
	for _, ns := range []string{nsMoves, nsOld, nsPinned} {
		if _, ok := got[ns]; !ok {
			t.Fatalf("no row for %s:\n%s", ns, out.String())
		}
	}
	moves := rows[got[nsMoves]]
	if moves.Calico.Current != "v3.31 (v3.31.6)" || moves.Calico.Target != "v3.32 (v3.32.1)" || moves.Calico.Direction != "up" || len(moves.Blockers) != 0 || len(moves.Errors) != 0 {
		t.Errorf("moving shoot: %+v", moves)
	}
	var order []string
	for _, r := range moves.Calico.Restarts {
		order = append(order, r.Workload)
	}
	if len(order) == 0 || order[0] != "DaemonSet kube-system/calico-node" || moves.Calico.Restarts[0].Step != 1 || moves.Calico.Restarts[len(order)-1].Step != 2 {
		t.Errorf("moving shoot restarts %+v: calico-node must roll first, the others after it", moves.Calico.Restarts)
	}
	var blockers []string
	for _, b := range rows[got[nsOld]].Blockers {
		blockers = append(blockers, b.Object)
	}
	if diff := cmp.Diff([]string{"Calico kubernetes-range"}, blockers); diff != "" {
		t.Errorf("shoot on Kubernetes 1.33 (-want +got):\n%s", diff)
	}

	// The table for people.
	out.Reset()
	cmd.Execute(context.Background(), []string{"plan", "--kubeconfig", kubeconfig, "--target-version", "v3.32"}, strings.NewReader(""), &out, &errOut)
	text := out.String()
	t.Logf("plan table:\n%s", text)
	for _, want := range []string{"SHOOT", "KUBERNETES", "CURRENT", "TARGET", "RESTARTS", "BLOCKERS", nsMoves + " (garden-dev/moves)", "1: calico-node; 2: calico-kube-controllers",
		nsOld + ": blocker: Calico kubernetes-range: ", "facts of moving to v3.32 (docs/calico-downgrade.md):"} {
		if !strings.Contains(text, want) {
			t.Errorf("table lacks %q", want)
		}
	}

	// swap-check shows the line each shoot runs and the one calico-pilot would give it.
	out.Reset()
	cmd.Execute(context.Background(), []string{"swap-check", "--kubeconfig", kubeconfig, "-o", "json"}, strings.NewReader(""), &out, &errOut)
	var reports []struct {
		Namespace, CalicoRuns, CalicoGets string
		Restarts                          []string
	}
	if err := json.Unmarshal(out.Bytes(), &reports); err != nil {
		t.Fatalf("swap-check output not JSON: %v\n%s", err, out.String())
	}
	lines := map[string][2]string{}
	restarts := map[string][]string{}
	for _, r := range reports {
		lines[r.Namespace] = [2]string{r.CalicoRuns, r.CalicoGets}
		restarts[r.Namespace] = r.Restarts
	}
	if l := lines[nsMoves]; l != [2]string{"v3.31 (v3.31.6)", "v3.31 (v3.31.6)"} {
		t.Errorf("swap-check of a shoot that keeps its line: %q", l)
	}
	if l := lines[nsPinned]; l != [2]string{"v3.31 (v3.31.6)", "v3.32 (v3.32.1)"} || len(restarts[nsPinned]) == 0 {
		t.Errorf("swap-check of a shoot pinned to v3.32: %q, restarts %v", l, restarts[nsPinned])
	}
	if len(restarts[nsMoves]) != 0 {
		t.Errorf("swap-check of a shoot that keeps its line restarts %v", restarts[nsMoves])
	}
}

// BenchmarkPlanSeed: plan --kubeconfig SEED --target-version over a seed of 20 shoots on a real API
// server (read the seed, render and diff each shoot, the table). ns/op is one whole seed plan.
func BenchmarkPlanSeed(b *testing.B) {
	config := "overlay:\n  enabled: true\n"
	deployed := pilotManifest(b, "bench", config)
	for i := range 20 {
		create(b, fmt.Sprintf("bench-%02d", i), seedShoot{config: config, deployed: deployed, providerStatus: statusV331, kubernetes: "1.34.1"})
	}
	kubeconfig := kubeconfigFile(b)
	b.ResetTimer()
	for b.Loop() {
		var out, errOut bytes.Buffer
		if code := cmd.Execute(context.Background(), []string{"plan", "--kubeconfig", kubeconfig, "--target-version", "v3.32"}, strings.NewReader(""), &out, &errOut); code > 1 {
			b.Fatalf("exit %d: %s", code, errOut.String())
		}
	}
}
