package swapcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/calico-pilot/calico-pilot/internal/cmd"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
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
		nsOld + ": blocker: Calico kubernetes-range: ", "facts of moving to v3.32 (v3.32.1) (docs/calico-downgrade.md):",
		"known issues of the target (docs/calico-lines.md):\n  calico-kube-controllers v3.32.1: kube-controllers does nothing while any calico-node pod is unavailable [kube-controllers-stalls-while-calico-node-unavailable]\n          do: "} {
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
	// The pin starts a line move: calico-node first (the controller's first step).
	if l := lines[nsPinned]; l != [2]string{"v3.31 (v3.31.6)", "calico-node v3.32.1, calico-typha v3.31.6, calico-kube-controllers v3.31.6, CRDs v3.32.1"} || len(restarts[nsPinned]) == 0 {
		t.Errorf("swap-check of a shoot pinned to v3.32: %q, restarts %v", l, restarts[nsPinned])
	}
	if len(restarts[nsMoves]) != 0 {
		t.Errorf("swap-check of a shoot that keeps its line restarts %v", restarts[nsMoves])
	}
}

// TestPlanSeedReleases: a seed plan to another release of the line a shoot runs is a patch move, every
// component in one step; a shoot that runs (and records) a release this calico-pilot no longer
// carries is shown as running it, moving to the newest release of its line at its next reconcile, by
// plan and by swap-check, before anything changes.
func TestPlanSeedReleases(t *testing.T) {
	config := "overlay:\n  enabled: true\n"
	nsPatch := create(t, "patch", seedShoot{config: config, deployed: pilotManifest(t, "patch", config), providerStatus: statusV331, kubernetes: "1.34.1"})
	// Deployed by a calico-pilot that carried v3.32.0: its images and its record.
	deployed := pilotManifestAt(t, "retired", config, "v3.32.1")
	deployed["config.yaml"] = bytes.ReplaceAll(deployed["config.yaml"], []byte(":v3.32.1\""), []byte(":v3.32.0\""))
	status := strings.Replace(statusV331, `"calicoVersion":"v3.31.6"`, `"calicoVersion":"v3.32.0","calicoCRDVersion":"v3.32.0"`, 1)
	nsRetired := create(t, "retired", seedShoot{config: config, deployed: deployed, providerStatus: status, kubernetes: "1.35.1"})
	kubeconfig := kubeconfigFile(t)
	const retiredNote = "Calico v3.32.0 is not carried by this calico-pilot (retired); the shoot moves to the newest release of its line, v3.32.1."

	type row struct {
		Namespace string
		Calico    struct {
			Current, Target, Direction string
			Retired                    []string
			Restarts                   []struct {
				Workload string
				Step     int
			}
		}
		Blockers []struct{ Object string }
		Errors   []string
	}
	planSeed := func(target string) map[string]row {
		t.Helper()
		return planSeedRows(t, kubeconfig, target, func(r row) string { return r.Namespace })
	}
	p := planSeed("v3.31.7")[nsPatch]
	if p.Calico.Current != "v3.31 (v3.31.6)" || p.Calico.Target != "v3.31 (v3.31.7)" || p.Calico.Direction != "patch" || len(p.Blockers) != 0 || len(p.Errors) != 0 || len(p.Calico.Restarts) < 2 {
		t.Errorf("patch move: %+v", p)
	}
	for _, r := range p.Calico.Restarts {
		if r.Step != 1 {
			t.Errorf("patch move: %s restarts in step %d, want every component in step 1", r.Workload, r.Step)
		}
	}
	r := planSeed("v3.32")[nsRetired]
	if r.Calico.Current != "v3.32 (v3.32.0, retired)" || r.Calico.Target != "v3.32 (v3.32.1)" || r.Calico.Direction != "patch" ||
		!cmp.Equal(r.Calico.Retired, []string{retiredNote}) || len(r.Errors) != 0 {
		t.Errorf("retired release: %+v", r)
	}
	var out, errOut bytes.Buffer
	cmd.Execute(context.Background(), []string{"plan", "--kubeconfig", kubeconfig, "--target-version", "v3.32"}, strings.NewReader(""), &out, &errOut)
	if !strings.Contains(out.String(), "\n"+nsRetired+": note: "+retiredNote) {
		t.Errorf("the table does not say the release is retired:\n%s", out.String())
	}

	// swap-check says it too, per shoot, in JSON and text.
	out.Reset()
	cmd.Execute(context.Background(), []string{"swap-check", "--kubeconfig", kubeconfig, "-o", "json"}, strings.NewReader(""), &out, &errOut)
	var reports []struct {
		Namespace, CalicoRuns, CalicoGets string
		CalicoRetired                     []string
	}
	if err := json.Unmarshal(out.Bytes(), &reports); err != nil {
		t.Fatalf("swap-check output not JSON: %v\n%s", err, out.String())
	}
	found := false
	for _, rep := range reports {
		switch rep.Namespace {
		case nsRetired:
			found = true
			if rep.CalicoRuns != "v3.32 (v3.32.0, retired)" || rep.CalicoGets != "v3.32 (v3.32.1)" || !cmp.Equal(rep.CalicoRetired, []string{retiredNote}) {
				t.Errorf("swap-check of a retired release: %+v", rep)
			}
		case nsPatch:
			if rep.CalicoRuns != "v3.31 (v3.31.6)" || rep.CalicoGets != "v3.31 (v3.31.6)" || len(rep.CalicoRetired) != 0 {
				t.Errorf("swap-check of a shoot that keeps its release (calico-pilot adds v3.31.7): %+v", rep)
			}
		}
	}
	if !found {
		t.Fatalf("no swap-check report for %s:\n%s", nsRetired, out.String())
	}
	out.Reset()
	cmd.Execute(context.Background(), []string{"swap-check", "--kubeconfig", kubeconfig}, strings.NewReader(""), &out, &errOut)
	if want := "  calico: runs v3.32 (v3.32.0, retired), calico-pilot would give it v3.32 (v3.32.1)\n  retired: " + retiredNote + "\n"; !strings.Contains(out.String(), want) {
		t.Errorf("swap-check text lacks %q:\n%s", want, out.String())
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

// TestPlanSeedLiveShoots: with --live-shoots the seed plan reaches each shoot through its access
// secret in the seed (gardener-internal, else gardener; here a real shoot API server) and runs the
// move's live checks there: an AdminNetworkPolicy in the shoot blocks the move up (v3.32 does not
// enforce it), and a shoot whose access secret is missing cannot be planned (the checks were asked
// for, so its move is not called clear).
func TestPlanSeedLiveShoots(t *testing.T) {
	shootCP, err := testenv.Start(testenv.Options{CRDDirectoryPaths: testenv.CRDDirectories(testenv.CalicoCRDs)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = shootCP.Stop() })
	shootCl, err := shootCP.NewClient()
	if err != nil {
		t.Fatal(err)
	}
	anp := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "policy.networking.k8s.io/v1alpha1", "kind": "AdminNetworkPolicy",
		"metadata": map[string]any{"name": "deny-from-tenants"},
		"spec": map[string]any{"priority": int64(10), "subject": map[string]any{"namespaces": map[string]any{}},
			"ingress": []any{map[string]any{"name": "deny", "action": "Deny", "from": []any{map[string]any{"namespaces": map[string]any{}}}}}},
	}}
	if err := shootCl.Create(context.Background(), anp); err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := shootCP.AdminKubeconfig("gardener")
	if err != nil {
		t.Fatal(err)
	}

	config := "overlay:\n  enabled: true\n"
	nsReached := create(t, "live", seedShoot{config: config, deployed: pilotManifest(t, "live", config), providerStatus: statusV331, kubernetes: "1.34.1"})
	nsNoAccess := create(t, "no-access", seedShoot{config: config, deployed: pilotManifest(t, "no-access", config), providerStatus: statusV331, kubernetes: "1.34.1"})
	access := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: nsReached, Name: "gardener"}, Data: map[string][]byte{"kubeconfig": kubeconfig}}
	if err := cl.Create(context.Background(), access); err != nil {
		t.Fatal(err)
	}

	var out, errOut bytes.Buffer
	code := cmd.Execute(context.Background(), []string{"plan", "--kubeconfig", kubeconfigFile(t), "--target-version", "v3.32", "--live-shoots", "-o", "json"}, strings.NewReader(""), &out, &errOut)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %s\n%s", code, errOut.String(), out.String())
	}
	var rows []struct {
		Namespace string
		Calico    struct{ Facts []struct{ ID, Status string } }
		Blockers  []struct{ Object, Message string }
		Errors    []string
	}
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	found := 0
	for _, r := range rows {
		switch r.Namespace {
		case nsReached:
			found++
			statuses := map[string]string{}
			for _, f := range r.Calico.Facts {
				statuses[f.ID] = f.Status
			}
			if statuses["up.anp-banp-not-enforced"] != "Found" || statuses["up.policy-name-migration"] != "Clear" || len(r.Errors) != 0 {
				t.Errorf("reached shoot: facts %v, errors %v; want the AdminNetworkPolicy found, no default. policy", statuses, r.Errors)
			}
			var blockers []string
			for _, b := range r.Blockers {
				blockers = append(blockers, b.Object+": "+b.Message)
			}
			if len(blockers) != 1 || !strings.HasPrefix(blockers[0], "Calico up.anp-banp-not-enforced: ") || !strings.Contains(blockers[0], "deny-from-tenants") {
				t.Errorf("reached shoot: blockers %v, want the AdminNetworkPolicy named", blockers)
			}
		case nsNoAccess:
			found++
			if len(r.Errors) != 1 || !strings.Contains(r.Errors[0], "live checks: reading shoot access secret "+nsNoAccess+"/gardener-internal (or gardener)") {
				t.Errorf("shoot without an access secret: errors %v, want one naming the secret", r.Errors)
			}
		}
	}
	if found != 2 {
		t.Fatalf("rows for %d of the 2 shoots:\n%s", found, out.String())
	}
}

// planSeedRows runs `plan --kubeconfig SEED --target-version target -o json` and returns its rows by
// the key of each (the shoot's namespace).
func planSeedRows[T any](t *testing.T, kubeconfig, target string, key func(T) string) map[string]T {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.Execute(context.Background(), []string{"plan", "--kubeconfig", kubeconfig, "--target-version", target, "-o", "json"}, strings.NewReader(""), &out, &errOut)
	var rows []T
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("not JSON: %v\n%s%s", err, out.String(), errOut.String())
	}
	byKey := map[string]T{}
	for _, r := range rows {
		byKey[key(r)] = r
	}
	return byKey
}
