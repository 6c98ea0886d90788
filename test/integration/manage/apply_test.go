package manage

import (
	"context"
	"strings"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	standalonev1alpha1 "github.com/calico-pilot/calico-pilot/api/standalone/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/manage"
	"github.com/calico-pilot/calico-pilot/internal/standalone"
)

// todaysFile is a cluster file as `apply -f` reads it today: no metadata.
const todaysFile = `apiVersion: standalone.calico-pilot.dev/v1alpha1
kind: Cluster
cluster:
  kubernetesVersion: 1.34.3
networkConfig:
  apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1
  kind: NetworkConfig
  backend: bird
  overlay:
    enabled: true
  typha:
    enabled: true
`

// TestApplyWithControllerWritesOnlyTheCluster: with the controller running, `apply -f` of today's
// file writes the Cluster object default and waits for the controller's status; it applies nothing
// of Calico itself (no plan, no apply Lease of its own, no state written by it). --dry-run still
// prints the plan.
func TestApplyWithControllerWritesOnlyTheCluster(t *testing.T) {
	cl := newCluster(t)
	cl.startController(t, nil)
	ctx := context.Background()
	waitFor(t, "the controller to hold its Lease", func() bool {
		var l coordinationv1.Lease
		err := cl.c.Get(ctx, client.ObjectKey{Namespace: standalone.Namespace, Name: manage.LeaderElectionID}, &l)
		return err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != ""
	})

	code, out, errOut := cl.apply(ctx, todaysFile, "--dry-run")
	if code != 0 || !strings.Contains(out, "plan:") {
		t.Fatalf("apply --dry-run with the controller running: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, found, err := standalone.ReadState(ctx, cl.c); err != nil || found {
		t.Fatalf("the dry run wrote the state (found %v, %v)", found, err)
	}

	code, out, errOut = cl.apply(ctx, todaysFile)
	if code != 0 {
		t.Fatalf("apply -f with the controller running: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"wrote Cluster default", "applied by the manage controller: Calico v3.31.7 runs on every component"} {
		if !strings.Contains(out, want) {
			t.Errorf("apply's output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "plan:") || strings.Contains(out, "rolled out:") {
		t.Errorf("apply wrote Calico's objects itself:\n%s", out)
	}
	obj := &standalonev1alpha1.Cluster{}
	if err := cl.c.Get(ctx, client.ObjectKey{Name: standalonev1alpha1.ClusterName}, obj); err != nil {
		t.Fatal(err)
	}
	if obj.Facts.KubernetesVersion != "1.34.3" || obj.NetworkConfig == nil || !available(obj) {
		t.Errorf("the Cluster apply wrote: facts %+v, networkConfig %v, conditions %+v", obj.Facts, obj.NetworkConfig, obj.Status.Conditions)
	}
	// calico-node was written by the controller's apply only: one Apply manager, no Update.
	code, out, errOut = cl.apply(ctx, todaysFile, "--calico-version", "v3.32")
	if code != 2 || !strings.Contains(errOut, "set networkConfig.calicoVersion in the file") {
		t.Errorf("--calico-version with the controller running: exit %d\n%s\n%s", code, out, errOut)
	}
}
