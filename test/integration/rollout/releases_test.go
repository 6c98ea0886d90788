package rollout

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/rollout"
)

// withoutRelease is the default catalogue without one release and the differences it introduced: the
// catalogue of a calico-pilot version before that release was added.
func withoutRelease(t *testing.T, name string) *calicoversion.Catalogue {
	t.Helper()
	d := calicoversion.Default().Data()
	var releases []calicoversion.ReleaseData
	for _, r := range d.Releases {
		if r.Name != name {
			releases = append(releases, r)
		}
	}
	var diffs []calicoversion.DifferenceData
	for _, x := range d.Differences {
		if x.Since != name {
			diffs = append(diffs, x)
		}
	}
	d.Releases, d.Differences = releases, diffs
	c, err := calicoversion.New(d)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// setPin sets shoot i's providerConfig calicoVersion ("" none) and asks for a reconcile.
func (f *fleet) setPin(i int, pin string) {
	f.t.Helper()
	n := f.network(i)
	patch := client.MergeFrom(n.DeepCopy())
	n.Spec.ProviderConfig = nil
	if pin != "" {
		n.Spec.ProviderConfig = &runtime.RawExtension{Raw: []byte(`{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkConfig","calicoVersion":"` + pin + `"}`)}
	}
	n.Annotations = map[string]string{"gardener.cloud/operation": "reconcile"}
	if err := f.seed.Patch(context.Background(), n, patch); err != nil {
		f.t.Fatal(err)
	}
}

// reconcileAll asks every shoot's Network for a reconcile and waits until each has been reconciled
// (the operation annotation removed, the last operation succeeded after the request).
func (f *fleet) reconcileAll() {
	f.t.Helper()
	asked := time.Now().Add(-time.Second)
	for i := range f.ns {
		n := f.network(i)
		patch := client.MergeFrom(n.DeepCopy())
		n.Annotations = map[string]string{"gardener.cloud/operation": "reconcile"}
		if err := f.seed.Patch(context.Background(), n, patch); err != nil {
			f.t.Fatal(err)
		}
	}
	f.waitFor("every Network reconciled again", func() bool {
		for i := range f.ns {
			n := f.network(i)
			lo := n.Status.LastOperation
			if n.Annotations["gardener.cloud/operation"] != "" || lo == nil || lo.State != "Succeeded" || lo.LastUpdateTime.Time.Before(asked) {
				return false
			}
		}
		return true
	})
}

// secretName is the name of shoot i's ManagedResource content secret (a hash of the content: a
// changed name is a changed manifest).
func (f *fleet) secretName(i int) string {
	f.t.Helper()
	mr := &resourcesv1alpha1.ManagedResource{}
	if err := f.seed.Get(context.Background(), client.ObjectKey{Namespace: f.ns[i], Name: mrName}, mr); err != nil {
		f.t.Fatal(err)
	}
	return mr.Spec.SecretRefs[0].Name
}

// generations are the generations of calico-node, Typha and kube-controllers in shoot i: each roll
// of a workload (a changed pod template applied) raises its generation by one.
func (f *fleet) generations(i int) [3]int64 {
	f.t.Helper()
	ctx := context.Background()
	var out [3]int64
	ds := &appsv1.DaemonSet{}
	if err := f.shoot[i].Get(ctx, client.ObjectKey{Namespace: calicoversion.Namespace, Name: calicoversion.NodeDaemonSet}, ds); err != nil {
		f.t.Fatal(err)
	}
	out[0] = ds.Generation
	for j, name := range []string{calicoversion.TyphaDeployment, calicoversion.KubeControllersDeployment} {
		d := &appsv1.Deployment{}
		if err := f.shoot[i].Get(ctx, client.ObjectKey{Namespace: calicoversion.Namespace, Name: name}, d); err != nil {
			f.t.Fatal(err)
		}
		out[j+1] = d.Generation
	}
	return out
}

// TestUpgradeThatAddsAReleaseRollsNothing: shoots deployed by a calico-pilot whose catalogue ends at
// v3.31.6 (unpinned, pinned to the line v3.31, pinned to the release v3.31.6) are reconciled by this
// calico-pilot, which adds v3.31.7: every shoot keeps v3.31.6, its stored manifest is byte-identical
// (the content secret, named by its hash, is the same) and no workload rolls.
func TestUpgradeThatAddsAReleaseRollsNothing(t *testing.T) {
	f := newFleet(t, 3, "1.34.2", "")
	f.setPin(1, "v3.31")
	f.setPin(2, "v3.31.6")
	f.catalogue = withoutRelease(t, "v3.31.7")
	_, stop := f.startController(nil)
	f.deployedOn("v3.31.6", 0, 1, 2)
	f.waitFor("the stand-in applied every workload", func() bool {
		for i := range 3 {
			if g := f.generationsOrZero(i); g[0] == 0 || g[1] == 0 || g[2] == 0 {
				return false
			}
		}
		return true
	})
	stop()
	var secrets [3]string
	var gens [3][3]int64
	for i := range 3 {
		secrets[i], gens[i] = f.secretName(i), f.generations(i)
	}

	f.catalogue = nil // this calico-pilot: v3.31.7 is in its catalogue
	f.startController(nil)
	f.reconcileAll()
	time.Sleep(time.Second) // what the stand-in would apply, if anything changed
	for i := range 3 {
		if st := f.status(i); st.CalicoVersion != "v3.31.6" || st.CalicoMove != nil || st.CalicoCRDVersion != "v3.31.6" {
			t.Errorf("shoot %d after the upgrade: calicoVersion %q, move %+v, CRDs %q; want v3.31.6 kept", i, st.CalicoVersion, st.CalicoMove, st.CalicoCRDVersion)
		}
		if got := f.secretName(i); got != secrets[i] {
			t.Errorf("shoot %d: the stored manifest changed (secret %s -> %s): a calico-pilot upgrade rolled it", i, secrets[i], got)
		}
		if got := f.generations(i); got != gens[i] {
			t.Errorf("shoot %d: workload generations %v -> %v: a calico-pilot upgrade rolled it", i, gens[i], got)
		}
	}
}

// generationsOrZero is generations, zero for workloads not applied yet.
func (f *fleet) generationsOrZero(i int) [3]int64 {
	ctx := context.Background()
	var out [3]int64
	ds := &appsv1.DaemonSet{}
	if f.shoot[i].Get(ctx, client.ObjectKey{Namespace: calicoversion.Namespace, Name: calicoversion.NodeDaemonSet}, ds) == nil {
		out[0] = ds.Generation
	}
	for j, name := range []string{calicoversion.TyphaDeployment, calicoversion.KubeControllersDeployment} {
		d := &appsv1.Deployment{}
		if f.shoot[i].Get(ctx, client.ObjectKey{Namespace: calicoversion.Namespace, Name: name}, d) == nil {
			out[j+1] = d.Generation
		}
	}
	return out
}

// TestPinToAPatchReleaseRollsOnce: a shoot on v3.31.6 pinned to v3.31.7 moves in one step (every
// component at once, as Calico allows within a line): its stored manifest gets v3.31.7's images, the
// read-only securityfs mount and cniVersion 1.0.0, each workload rolls exactly once, and the move
// completes; later reconciles change nothing.
func TestPinToAPatchReleaseRollsOnce(t *testing.T) {
	f := newFleet(t, 1, "1.34.2", "")
	f.operatorDefault = "v3.31.6"
	_, _ = f.startController(nil)
	f.deployedOn("v3.31.6", 0)
	f.waitFor("the stand-in applied every workload", func() bool { g := f.generationsOrZero(0); return g[0] > 0 && g[1] > 0 && g[2] > 0 })
	before := f.generations(0)

	f.setPin(0, "v3.31.7")
	f.waitFor("the patch move to start", func() bool { st := f.status(0); return st.CalicoMove != nil || st.CalicoVersion == "v3.31.7" })
	if m := f.status(0).CalicoMove; m != nil && (m.Phase != "Complete" || m.To != "v3.31.7") {
		t.Errorf("the patch move %+v; want one step (phase Complete) to v3.31.7", m)
	}
	f.deployedOn("v3.31.7", 0)
	secret := f.secretName(0)
	img := f.images(0)
	for _, w := range []string{"calico-node", "calico-typha-deploy", "calico-kube-controllers"} {
		if tag(img[w]) != "v3.31.7" {
			t.Errorf("%s runs %s, want v3.31.7", w, img[w])
		}
	}
	manifest := f.stored(0)["config.yaml"]
	for _, want := range []string{`\"cniVersion\": \"1.0.0\"`, `{"name":"sys-kernel-security","readOnly":true,"mountPath":"/sys/kernel/security"}`,
		`{"name":"sys-kernel-security","hostPath":{"path":"/sys/kernel/security"}}`} {
		if !bytes.Contains(manifest, []byte(want)) {
			t.Errorf("the v3.31.7 manifest lacks %s", want)
		}
	}
	if got := f.generations(0); got != [3]int64{before[0] + 1, before[1] + 1, before[2] + 1} {
		t.Errorf("workload generations %v -> %v; want each rolled exactly once", before, got)
	}
	f.reconcileAll()
	if got := f.secretName(0); got != secret {
		t.Errorf("a reconcile after the move changed the manifest (%s -> %s)", secret, got)
	}
	if cond := condition(f.network(0), "CalicoVersion"); cond == nil || cond.Status != "True" || cond.Message != "Calico v3.31.7 runs on every component." {
		t.Errorf("CalicoVersion condition %+v", cond)
	}
}

// TestPatchRolloutMovesItsWavesAndHalts: a rollout whose target is the patch release v3.31.7 moves
// the shoots of its open waves in one step each and halts on a shoot whose new calico-node never gets
// ready; no shoot of a later wave changes, nothing is rolled back.
func TestPatchRolloutMovesItsWavesAndHalts(t *testing.T) {
	f := newFleet(t, 4, "1.34.2", "")
	f.operatorDefault = "v3.31.6"
	_, stop := f.startController(nil)
	f.deployedOn("v3.31.6", all(4)...)
	stop()
	seen := map[string]rollout.Shoot{}
	for _, ns := range f.ns {
		seen[ns] = rollout.Shoot{Namespace: ns}
	}
	order := rollout.Order(seen)
	broken := f.index[order[1]]
	f.setBroken(broken, true)

	f.startController(&configv1alpha1.Rollout{Name: "patch-v3.31.7", TargetVersion: "v3.31.7",
		Waves: []configv1alpha1.Wave{wave("canary", 25), wave("half", 50), wave("all", 100)}})
	f.waitFor("the rollout to halt", func() bool { return f.state().Halted != nil })
	st := f.state()
	if st.Halted.Wave != "half" || st.TargetRelease != "v3.31.7" || !strings.Contains(st.Halted.Reason, f.ns[broken]+": calico-node 2/3 updated") {
		t.Errorf("halt %+v target %q; want wave half, naming %s's calico-node", st.Halted, st.TargetRelease, f.ns[broken])
	}
	f.deployedOn("v3.31.7", f.index[order[0]])
	time.Sleep(2 * time.Second)
	for _, ns := range order[2:] {
		i := f.index[ns]
		if ps, img := f.status(i), f.images(i); ps.CalicoVersion != "v3.31.6" || ps.CalicoMove != nil || tag(img["calico-node"]) != "v3.31.6" {
			t.Errorf("%s is in no open wave but changed: %s, move %+v, images %v", ns, ps.CalicoVersion, ps.CalicoMove, img)
		}
	}
	// The broken shoot stays where the one step put it: every component at v3.31.7, nothing rolled back.
	if ps, img := f.status(broken), f.images(broken); ps.CalicoMove == nil || ps.CalicoMove.Phase != "Complete" || tag(img["calico-node"]) != "v3.31.7" || tag(img["calico-typha-deploy"]) != "v3.31.7" {
		t.Errorf("the broken shoot: move %+v, images %v; want its one step applied and kept", ps.CalicoMove, img)
	}
}
