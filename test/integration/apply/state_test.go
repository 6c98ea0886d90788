package apply

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/standalone"
	"github.com/calico-pilot/calico-pilot/internal/testcheck"
)

func crdResourceVersions(t *testing.T, cl *cluster) map[string]string {
	t.Helper()
	var list apiextensionsv1.CustomResourceDefinitionList
	if err := cl.c.List(context.Background(), &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range list.Items {
		out[c.Name] = c.ResourceVersion
	}
	return out
}

// TestApplyLostStateKeepsNewerCRDs: after a move up to v3.32 and back down to v3.31.7 the cluster
// holds v3.32's CRDs. Deleting the state ConfigMap, or restoring a backup that records v3.31.7's
// CRDs, does not lower them: apply reads the release from the images and the CRDs from their
// schema, says so, and rewrites no CRD.
func TestApplyLostStateKeepsNewerCRDs(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	ctx := context.Background()
	for _, v := range []string{"v3.32.1", "v3.31.7"} {
		if code, out, errOut := cl.apply(ctx, minimalFile, "--calico-version", v); code != 0 {
			t.Fatalf("apply --calico-version %s: exit %d\nstdout:\n%s\nstderr:\n%s", v, code, out, errOut)
		}
	}
	if st := cl.state(); st.Release != "v3.31.7" || st.CRDRelease != "v3.32.1" {
		t.Fatalf("state after the way down: %+v", st)
	}
	crds := crdResourceVersions(t, cl)

	if err := cl.c.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "calico-pilot-state"}}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := cl.apply(ctx, minimalFile)
	if !testcheck.Contains(t, "apply without a state", out,
		"state: kube-system/calico-pilot-state is missing, although calico-pilot applied calico-node: rebuilt from the cluster (Calico v3.31.7 from the images: calico-node quay.io/calico/node:v3.31.7, ",
		"CRDs: the cluster's CRDs are those of Calico v3.32 (read from their schema): kept at v3.32 or newer, CRDs never go down",
		"applied: Calico v3.31.7 runs on every component (CRDs of v3.32.1)",
	) || code != 0 {
		t.Fatalf("apply without a state: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if d := cmp.Diff(crds, crdResourceVersions(t, cl)); d != "" {
		t.Errorf("apply without a state rewrote CRDs (-before +after resourceVersion):\n%s", d)
	}

	// A restored backup from before the move up.
	st := cl.state()
	st.CRDRelease = "v3.31.7"
	if err := standalone.WriteState(ctx, cl.c, st, time.Now()); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = cl.apply(ctx, minimalFile)
	if want := "CRDs: the cluster's CRDs are those of Calico v3.32 (read from their schema), newer than the state's record (v3.31.7): kept at v3.32, CRDs never go down"; code != 0 || !strings.Contains(out, want) {
		t.Fatalf("apply with an old state: exit %d, want %q\nstdout:\n%s\nstderr:\n%s", code, want, out, errOut)
	}
	if d := cmp.Diff(crds, crdResourceVersions(t, cl)); d != "" {
		t.Errorf("apply with an old state rewrote CRDs (-before +after resourceVersion):\n%s", d)
	}
	if st := cl.state(); st.CRDRelease != "v3.32.1" {
		t.Errorf("the state records CRDs of %s, want v3.32.1", st.CRDRelease)
	}
}

// TestApplyShowsAndRemovesDrift: an env var added to calico-node by hand and a calico-config key
// added and one changed are listed by --dry-run per object with the manager that set them; apply
// restores the changed key, keeps the added fields, and removes them from the objects
// --remove-foreign names only.
func TestApplyShowsAndRemovesDrift(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	ctx := context.Background()
	if code, out, errOut := cl.apply(ctx, minimalFile); code != 0 {
		t.Fatalf("install: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "calico-node"}}
	cl.edit(ds, "kubectl-set", func() {
		for i := range ds.Spec.Template.Spec.Containers {
			if c := &ds.Spec.Template.Spec.Containers[i]; c.Name == "calico-node" {
				c.Env = append(c.Env, corev1.EnvVar{Name: "FELIX_LOGSEVERITYSCREEN", Value: "debug"})
			}
		}
	})
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "calico-config"}}
	cl.edit(cm, "kubectl-edit", func() { cm.Data["veth_mtu"], cm.Data["extra"] = "1400", "by hand" })

	code, out, errOut := cl.apply(ctx, minimalFile, "--dry-run")
	if !testcheck.Contains(t, "dry-run", out,
		"fields other managers set in calico-pilot's objects:\n",
		"  ConfigMap kube-system/calico-config: .data.veth_mtu: changed by another manager, restored to calico-pilot's value\n",
		`  ConfigMap kube-system/calico-config: .data.extra: kept (set by kubectl-edit; --remove-foreign "ConfigMap kube-system/calico-config" removes them)`+"\n",
		`  DaemonSet kube-system/calico-node: .spec.template.spec.containers[name="calico-node"].env[name="FELIX_LOGSEVERITYSCREEN"]: kept (set by kubectl-set; --remove-foreign "DaemonSet kube-system/calico-node" removes them)`+"\n",
	) || code != 0 {
		t.Fatalf("dry-run: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	if code, out, errOut = cl.apply(ctx, minimalFile); code != 0 {
		t.Fatalf("apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if err := cl.c.Get(ctx, client.ObjectKeyFromObject(cm), cm); err != nil {
		t.Fatal(err)
	}
	if cm.Data["veth_mtu"] != "0" || cm.Data["extra"] != "by hand" {
		t.Errorf("after apply calico-config has veth_mtu %q, extra %q; want 0 (restored) and by hand (kept)", cm.Data["veth_mtu"], cm.Data["extra"])
	}
	if !hasEnv(nodeEnv(t, cl), "FELIX_LOGSEVERITYSCREEN") {
		t.Error("apply without --remove-foreign removed the hand-added env var")
	}

	obj := "DaemonSet kube-system/calico-node"
	code, out, errOut = cl.apply(ctx, minimalFile, "--dry-run", "--remove-foreign", obj)
	if want := `  DaemonSet kube-system/calico-node: .spec.template.spec.containers[name="calico-node"].env[name="FELIX_LOGSEVERITYSCREEN"]: removed (set by kubectl-set; --remove-foreign)`; code != 0 ||
		!strings.Contains(out, want) || !strings.Contains(out, "- spec.template.spec.containers[name=calico-node].env[name=FELIX_LOGSEVERITYSCREEN]") {
		t.Fatalf("dry-run --remove-foreign: exit %d, want %q and the removal in the plan\nstdout:\n%s\nstderr:\n%s", code, want, out, errOut)
	}
	if code, out, errOut = cl.apply(ctx, minimalFile, "--remove-foreign", obj); code != 0 {
		t.Fatalf("apply --remove-foreign: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if hasEnv(nodeEnv(t, cl), "FELIX_LOGSEVERITYSCREEN") {
		t.Error("apply --remove-foreign kept the hand-added env var")
	}
	if err := cl.c.Get(ctx, client.ObjectKeyFromObject(cm), cm); err != nil || cm.Data["extra"] != "by hand" {
		t.Errorf("--remove-foreign %s touched calico-config: extra %q, %v", obj, cm.Data["extra"], err)
	}
	if code, out, errOut = cl.apply(ctx, minimalFile, "--dry-run"); code != 0 || strings.Contains(out, "calico-node: .spec") {
		t.Fatalf("dry-run after the removal: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

func hasEnv(env []corev1.EnvVar, name string) bool {
	for _, e := range env {
		if e.Name == name {
			return true
		}
	}
	return false
}
