package rollout

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/cmd"
	"github.com/calico-pilot/calico-pilot/internal/rollout"
)

func wave(name string, percent int32) configv1alpha1.Wave {
	return configv1alpha1.Wave{Name: name, Percent: ptr.To(percent), MinSoak: &metav1.Duration{Duration: time.Second},
		RolloutDeadline: &metav1.Duration{Duration: 20 * time.Second}, MaxFailures: ptr.To[int32](0)}
}

// TestRolloutHaltsAndResumes: 20 shoots deployed on v3.31.6 move to v3.32 in waves of 10 %, 50 % and
// 100 %. One shoot of the second wave never gets its new calico-node ready: the rollout halts in
// that wave on its own, names the shoot and why, moves no shoot of the third wave and rolls nothing
// back (the broken shoot stays at calico-node v3.32.1 with Typha and kube-controllers on v3.31.6:
// calico-node moves first on the way up). Resumed after the shoot recovered, the rollout completes.
func TestRolloutHaltsAndResumes(t *testing.T) {
	began := time.Now()
	f := newFleet(t, fleetSize, "1.34.2", "")
	// Deployed at v3.31.6, as by the previous calico-pilot (the operator's default for new shoots).
	f.operatorDefault = "v3.31.6"
	_, stop := f.startController(nil)
	f.deployedOn("v3.31.6", all(fleetSize)...)
	stop()
	t.Logf("20 shoots deployed on v3.31.6 after %s", time.Since(began).Round(time.Millisecond))

	seen := map[string]rollout.Shoot{}
	for _, ns := range f.ns {
		seen[ns] = rollout.Shoot{Namespace: ns}
	}
	order := rollout.Order(seen)
	canary, half, rest := order[:2], order[2:10], order[10:]
	broken := f.index[half[3]]
	f.setBroken(broken, true)

	moving := time.Now()
	_, stopRollout := f.startController(&configv1alpha1.Rollout{Name: "to-v3.32", TargetVersion: "v3.32",
		Waves: []configv1alpha1.Wave{wave("canary", 10), wave("half", 50), wave("all", 100)}})
	f.waitFor("the rollout to halt", func() bool { return f.state().Halted != nil })
	t.Logf("halted after %s", time.Since(moving).Round(time.Millisecond))
	st := f.state()
	if st.Halted.Wave != "half" {
		t.Errorf("halted in wave %q, want half", st.Halted.Wave)
	}
	want := f.ns[broken] + ": calico-node 2/3 updated, 2/3 available, 1 unavailable; still moving from v3.31.6 to v3.32.1 (phase First) after "
	if !strings.Contains(st.Halted.Reason, want) {
		t.Errorf("halt reason %q does not say %q", st.Halted.Reason, want)
	}
	if st.Waves[2].Opened != nil {
		t.Error("the third wave opened although the second halted")
	}
	f.deployedOn("v3.32.1", indexes(f, canary)...)

	// Halted: give the controller time to do what it must not, then look.
	time.Sleep(2 * time.Second)
	for _, ns := range rest {
		i := f.index[ns]
		ps, img := f.status(i), f.images(i)
		if ps.CalicoVersion != "v3.31.6" || ps.CalicoMove != nil || tag(img["calico-node"]) != "v3.31.6" || tag(img["calico-typha-deploy"]) != "v3.31.6" {
			t.Errorf("%s is in no open wave but changed: providerStatus %s move %+v, images %v", ns, ps.CalicoVersion, ps.CalicoMove, img)
		}
	}
	ps, img := f.status(broken), f.images(broken)
	if ps.CalicoMove == nil || ps.CalicoMove.Phase != "First" || ps.CalicoMove.Rollout != "to-v3.32" {
		t.Errorf("the broken shoot's move: %+v; want phase First of rollout to-v3.32, nothing rolled back", ps.CalicoMove)
	}
	if tag(img["calico-node"]) != "v3.32.1" || tag(img["calico-typha-deploy"]) != "v3.31.6" || tag(img["calico-kube-controllers"]) != "v3.31.6" {
		t.Errorf("the broken shoot deploys %v; want calico-node v3.32.1 first, Typha and kube-controllers v3.31.6", img)
	}
	if ps.CalicoCRDVersion != "v3.32.1" {
		t.Errorf("calicoCRDVersion %q during the move, want v3.32.1 (the CRDs go first)", ps.CalicoCRDVersion)
	}
	if cond := condition(f.network(broken), "CalicoVersion"); cond == nil || cond.Status != "Progressing" || !strings.Contains(cond.Message, "Waiting for calico-node 2/3 updated") {
		t.Errorf("CalicoVersion condition %+v, want Progressing and waiting for calico-node", cond)
	}

	// The operator reads the state as a table.
	kubeconfig := seedKubeconfig(t)
	code, out, errOut := calicoPilot("rollout", "status", "--kubeconfig", kubeconfig, "--namespace", f.ctrlNS)
	for _, want := range []string{
		"Rollout to-v3.32 to Calico v3.32 (v3.32.1): HALTED in wave half at ",
		"\ncanary  Done     2      2          0       0        0        ",
		"\nall     Waiting  0      0          0       0        0        -\n",
		"  half  " + f.ns[broken] + "  Failed: calico-node 2/3 updated, 2/3 available, 1 unavailable; still moving",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("rollout status: exit %d, stderr %q, output lacks %q:\n%s", code, errOut, want, out)
		}
	}

	// The operator edits the waves (one more): the controller restarts with them and the halt stays.
	stopRollout()
	halt := st.Halted
	f.startController(&configv1alpha1.Rollout{Name: "to-v3.32", TargetVersion: "v3.32",
		Waves: []configv1alpha1.Wave{wave("canary", 10), wave("half", 50), wave("all", 100), wave("stragglers", 100)}})
	f.waitFor("the edited waves in the state", func() bool { return len(f.state().Waves) == 4 })
	time.Sleep(time.Second)
	if st := f.state(); st.Halted == nil || st.Halted.Reason != halt.Reason || st.Waves[2].Opened != nil {
		t.Fatalf("after adding a wave: halt %+v, third wave opened %v; want the halt kept and nothing opened", st.Halted, st.Waves[2].Opened)
	}

	// The shoot recovers; the operator resumes.
	f.setBroken(broken, false)
	if code, out, errOut := calicoPilot("rollout", "resume", "--kubeconfig", kubeconfig, "--namespace", f.ctrlNS); code != 0 || !strings.Contains(out, "Resumed rollout to-v3.32") {
		t.Fatalf("rollout resume: exit %d, output %q, stderr %q", code, out, errOut)
	}
	f.waitFor("the rollout to complete", func() bool { return f.state().Completed != nil })
	if code, _, errOut := calicoPilot("rollout", "resume", "--kubeconfig", kubeconfig, "--namespace", f.ctrlNS); code != 1 || !strings.Contains(errOut, `rollout "to-v3.32" is not halted: nothing to resume`) {
		t.Errorf("resume of a completed rollout: exit %d, stderr %q; want 1 and nothing to resume", code, errOut)
	}
	f.deployedOn("v3.32.1", all(fleetSize)...)
	for i := range fleetSize {
		if img := f.images(i); tag(img["calico-node"]) != "v3.32.1" || tag(img["calico-typha-deploy"]) != "v3.32.1" || tag(img["calico-kube-controllers"]) != "v3.32.1" {
			t.Errorf("shoot %d deploys %v after the rollout, want v3.32.1 everywhere", i, img)
		}
	}
	t.Logf("rollout completed after %s (suite part: %s)", time.Since(moving).Round(time.Millisecond), time.Since(began).Round(time.Millisecond))
}

// TestPinnedDowngradeMovesTyphaFirstAndKeepsNewerCRDs: a shoot on v3.32.1 pinned back to v3.31 moves
// Typha and kube-controllers first while calico-node stays on v3.32.1, then calico-node; the CRDs
// stay those of v3.32.1 (calicoCRDVersion is never lowered).
func TestPinnedDowngradeMovesTyphaFirstAndKeepsNewerCRDs(t *testing.T) {
	f := newFleet(t, 1, "1.34.2", `{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkConfig","calicoVersion":"v3.32"}`)
	log, _ := f.startController(nil)
	f.deployedOn("v3.32.1", 0)
	f.setHeld(0, true)
	before := log.Requests()
	n := f.network(0)
	patch := client.MergeFrom(n.DeepCopy())
	n.Spec.ProviderConfig = &runtime.RawExtension{Raw: []byte(`{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkConfig","calicoVersion":"v3.31"}`)}
	n.Annotations = map[string]string{"gardener.cloud/operation": "reconcile"}
	if err := f.seed.Patch(context.Background(), n, patch); err != nil {
		t.Fatal(err)
	}
	f.waitFor("the first step down", func() bool {
		m := f.status(0).CalicoMove
		return m != nil && m.Phase == "First" && m.To == "v3.31.7"
	})
	img, ps := f.images(0), f.status(0)
	if tag(img["calico-node"]) != "v3.32.1" || tag(img["calico-typha-deploy"]) != "v3.31.7" || tag(img["calico-kube-controllers"]) != "v3.31.7" {
		t.Errorf("first step down deploys %v; want Typha and kube-controllers v3.31.7 (the newest of the pinned line) first, calico-node still v3.32.1", img)
	}
	if ps.CalicoMove.Rollout != "" || ps.CalicoCRDVersion != "v3.32.1" {
		t.Errorf("move %+v, CRDs %q; want the owner's move (no rollout) and the v3.32.1 CRDs", ps.CalicoMove, ps.CalicoCRDVersion)
	}
	// The resource manager applies it; Typha rolls out; calico-node follows.
	f.setHeld(0, false)
	f.deployedOn("v3.31.7", 0)
	// Measured, not asserted (the number of rechecks depends on the stand-in's pace): the seed requests
	// of the whole move, about one shoot access secret read per recheck plus the two stored steps.
	t.Logf("seed requests of the whole move down: %v", log.RequestsSince(before))
	img, ps = f.images(0), f.status(0)
	if tag(img["calico-node"]) != "v3.31.7" || tag(img["calico-typha-deploy"]) != "v3.31.7" {
		t.Errorf("after the move down: %v, want v3.31.7", img)
	}
	if ps.CalicoCRDVersion != "v3.32.1" {
		t.Errorf("calicoCRDVersion %q after the downgrade, want v3.32.1 (never lowered)", ps.CalicoCRDVersion)
	}
	// What the resource manager applies after the downgrade: v3.32.1's CRD set (ClusterNetworkPolicy
	// kept, no CRD left out, so none deleted) and v3.32.1's schemas (IPPool cidr immutable), so no
	// field a v3.32 component stored is pruned by an older schema.
	crds := f.crds(0)
	for _, name := range []string{"clusternetworkpolicies.policy.networking.k8s.io", "adminnetworkpolicies.policy.networking.k8s.io", "kubecontrollersconfigurations.crd.projectcalico.org"} {
		if _, ok := crds[name]; !ok {
			t.Errorf("after the downgrade the ManagedResource lacks CRD %s (the resource manager would delete it)", name)
		}
	}
	if kcc := crds["kubecontrollersconfigurations.crd.projectcalico.org"]; len(kcc.Spec.Versions) != 1 || kcc.Spec.Versions[0].Subresources == nil || kcc.Spec.Versions[0].Subresources.Status == nil {
		t.Errorf("after the downgrade KubeControllersConfiguration has no status subresource: v3.31.6's schema was applied")
	}
	if cidr := crds["ippools.crd.projectcalico.org"].Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["cidr"]; len(cidr.XValidations) == 0 {
		t.Errorf("after the downgrade the IPPool schema lacks v3.32's cidr rule: an older schema was applied")
	}
	if n := len(crds); n != 25 {
		t.Errorf("after the downgrade the ManagedResource carries %d CRDs, want v3.32.1's 25", n)
	}
}

func indexes(f *fleet, namespaces []string) []int {
	out := make([]int, len(namespaces))
	for i, ns := range namespaces {
		out[i] = f.index[ns]
	}
	return out
}

// condition returns the Network's condition of type, nil when absent.
func condition(n *extensionsv1alpha1.Network, condType string) *struct{ Status, Reason, Message string } {
	for _, c := range n.Status.Conditions {
		if string(c.Type) == condType {
			return &struct{ Status, Reason, Message string }{string(c.Status), c.Reason, c.Message}
		}
	}
	return nil
}

// seedKubeconfig writes an admin kubeconfig of the seed for the CLI.
func seedKubeconfig(t *testing.T) string {
	t.Helper()
	kc, err := seedCP.AdminKubeconfig("operator")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "seed.kubeconfig")
	if err := os.WriteFile(path, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// calicoPilot runs the calico-pilot command line.
func calicoPilot(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := cmd.Execute(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestKubeControllersThatCannotStartHaltTheRollout: two shoots move to v3.32; on one of them the new
// kube-controllers pod never becomes available (calico-node and Typha roll out fine). That member does
// not succeed: at its deadline it fails naming kube-controllers, and the rollout halts. What the
// rollout reads of a shoot (rollout.ReadComponents) comes from the shoot's API server: the three
// workloads, and kube-controllers reported as not found, not as an error, once it is gone.
func TestKubeControllersThatCannotStartHaltTheRollout(t *testing.T) {
	f := newFleet(t, 2, "1.34.2", "")
	f.operatorDefault = "v3.31.6"
	_, stop := f.startController(nil)
	f.deployedOn("v3.31.6", 0, 1)
	stop()
	f.setKubeControllersBroken(1, true)

	w := wave("all", 100)
	f.startController(&configv1alpha1.Rollout{Name: "to-v3.32-kcm", TargetVersion: "v3.32", Waves: []configv1alpha1.Wave{w}})
	f.waitFor("the rollout to halt", func() bool { return f.state().Halted != nil })
	st := f.state()
	// The shoot's own move holds on kube-controllers too (the move's last step waits for every
	// workload it changed), so the member is still moving when its deadline passes.
	want := f.ns[1] + ": calico-kube-controllers 1/1 updated, 0/1 available, 1 unavailable; still moving from v3.31.6 to v3.32.1 (phase Complete) after "
	if !strings.Contains(st.Halted.Reason, want) {
		t.Errorf("halt reason %q does not say %q", st.Halted.Reason, want)
	}
	if cond := condition(f.network(1), "CalicoVersion"); cond == nil || cond.Status != "Progressing" ||
		!strings.Contains(cond.Message, "Waiting for calico-kube-controllers 1/1 updated, 0/1 available, 1 unavailable.") {
		t.Errorf("CalicoVersion condition %+v, want the move waiting for kube-controllers", cond)
	}
	states := map[string]rollout.MemberState{}
	for _, m := range st.Waves[0].Members {
		states[m.Shoot] = m.State
	}
	if states[f.ns[0]] != rollout.MemberSucceeded || states[f.ns[1]] != rollout.MemberFailed {
		t.Errorf("members %v; want %s succeeded and %s failed", states, f.ns[0], f.ns[1])
	}

	ctx := context.Background()
	comps, err := rollout.ReadComponents(ctx, f.shoot[1])
	if err != nil {
		t.Fatal(err)
	}
	// calico-node and Typha complete, the shoot not: kube-controllers alone holds it up.
	if !comps.Node.Complete() || !comps.Typha.Complete() || !comps.KubeControllers.Found || comps.Complete() {
		t.Errorf("the broken shoot's components: %+v, holding: %s; want calico-node and Typha complete, kube-controllers found and holding", comps, comps)
	}
	if err := f.shoot[0].Delete(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "calico-kube-controllers"}}); err != nil {
		t.Fatal(err)
	}
	comps, err = rollout.ReadComponents(ctx, f.shoot[0])
	if err != nil || comps.KubeControllers.Found || comps.KubeControllers.Name != "calico-kube-controllers" || !comps.Complete() {
		t.Errorf("without kube-controllers: %+v, %v; want it not found, no error, the rest complete", comps, err)
	}
}
