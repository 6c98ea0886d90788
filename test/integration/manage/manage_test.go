package manage

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	standalonev1alpha1 "github.com/calico-pilot/calico-pilot/api/standalone/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/manage"
	"github.com/calico-pilot/calico-pilot/internal/standalone"
)

// TestManageInstallsFreshCluster: on an empty kubeadm cluster the controller installs Calico from the
// Cluster object (today's file with metadata.name default) and reports Available with the release of
// each component and of the CRDs, the generation applied, nothing blocking and nothing moving.
func TestManageInstallsFreshCluster(t *testing.T) {
	cl := newCluster(t)
	cl.startController(t, nil)
	cl.createCluster(clusterFile)

	obj := cl.waitStatus("Available", available)
	st := cl.state()
	if obj.Status.Release != st.Release || obj.Status.Release == "" || obj.Status.CRDRelease != st.CRDRelease {
		t.Errorf("status release %q, CRDs %q; the state records %q, %q", obj.Status.Release, obj.Status.CRDRelease, st.Release, st.CRDRelease)
	}
	var comps []string
	for _, c := range obj.Status.Components {
		comps = append(comps, c.Name+" "+c.Release)
		if !c.Managed {
			t.Errorf("component %s reported unmanaged on a fresh install", c.Name)
		}
	}
	want := []string{"calico-node " + st.Release, "calico-typha-deploy " + st.Release, "calico-kube-controllers " + st.Release}
	if d := cmp.Diff(want, comps); d != "" {
		t.Errorf("status components (-want +got):\n%s", d)
	}
	for _, typ := range []string{standalonev1alpha1.ConditionProgressing, standalonev1alpha1.ConditionDegraded} {
		if c := meta.FindStatusCondition(obj.Status.Conditions, typ); c == nil || c.Status != "False" {
			t.Errorf("condition %s: %+v, want False", typ, c)
		}
	}
	if len(obj.Status.Blockers) > 0 || obj.Status.Move != nil || obj.Status.LastApplied == nil {
		t.Errorf("blockers %v, move %v, lastApplied %v", obj.Status.Blockers, obj.Status.Move, obj.Status.LastApplied)
	}
	if got := tagOf(nodeImage(t, cl.c)); got != st.Release {
		t.Errorf("calico-node runs %s, the state says %s", got, st.Release)
	}
}

// TestManageRestoresHandEditAndLeavesIgnoredAlone: a hand edit of calico-node is restored by the
// controller (woken by the edit itself) with an Event on the Cluster naming the object, the field
// and the manager; once calico-node is annotated calico-pilot.dev/ignore: "true", an edit stays.
func TestManageRestoresHandEditAndLeavesIgnoredAlone(t *testing.T) {
	cl := newCluster(t)
	cl.startController(t, nil)
	cl.createCluster(clusterFile)
	cl.waitStatus("Available", available)
	want := nodeImage(t, cl.c)

	ds := &appsv1.DaemonSet{}
	ds.Namespace, ds.Name = "kube-system", "calico-node"
	setImage := func(image string) func() {
		return func() {
			for i := range ds.Spec.Template.Spec.Containers {
				if ds.Spec.Template.Spec.Containers[i].Name == "calico-node" {
					ds.Spec.Template.Spec.Containers[i].Image = image
				}
			}
		}
	}
	cl.edit(ds, "kubectl-edit", setImage("example.org/calico/node:hand-edit"))
	waitFor(t, "calico-node restored", func() bool { return nodeImage(t, cl.c) == want })
	waitFor(t, "an Event naming the restored field", func() bool {
		for _, n := range cl.events(manage.EventDriftRestored) {
			if strings.HasPrefix(n, `DaemonSet kube-system/calico-node: restored to calico-pilot's value: .spec.template.spec.containers[name="calico-node"].image (changed by kubectl-edit)`) {
				return true
			}
		}
		return false
	})

	cl.edit(ds, "kubectl-annotate", func() { metaAnnotate(ds, standalone.IgnoreAnnotation, "true") })
	cl.edit(ds, "kubectl-edit", setImage("example.org/calico/node:debugging"))
	// A new generation of the Cluster (a fact it now states, as the cluster says it) is reconciled
	// after the edit: its status says when.
	cl.patchCluster(`{"cluster":{"serviceCIDR":"10.96.0.0/12"}}`)
	cl.waitStatus("Available at the new generation", available)
	if got := nodeImage(t, cl.c); got != "example.org/calico/node:debugging" {
		t.Errorf("the ignored calico-node runs %s, want the edit kept", got)
	}
}

// patchCluster merge-patches the Cluster object.
func (cl *cluster) patchCluster(patch string) {
	cl.t.Helper()
	obj := &standalonev1alpha1.Cluster{}
	obj.Name = standalonev1alpha1.ClusterName
	if err := cl.c.Patch(context.Background(), obj, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
		cl.t.Fatalf("patching the Cluster with %s: %v", patch, err)
	}
}

func metaAnnotate(o client.Object, k, v string) {
	a := o.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[k] = v
	o.SetAnnotations(a)
}

// waitFor polls cond for up to a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) { return cond(), nil })
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

func tagOf(image string) string { return image[strings.LastIndex(image, ":")+1:] }
