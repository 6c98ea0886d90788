package manage

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	standalonev1alpha1 "github.com/calico-pilot/calico-pilot/api/standalone/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/standalone"
)

// TestManageMoveSurvivesRestart: the Cluster asks for the next line (networkConfig.calicoVersion);
// the controller records the move's first step in the state and waits for calico-node's rollout,
// which the workload controllers hold back; the controller is stopped there and a new one started:
// it continues the move from the state and completes it, every component on the new release, the
// CRDs with it.
func TestManageMoveSurvivesRestart(t *testing.T) {
	cl := newCluster(t)
	first := cl.startController(t, nil)
	cl.createCluster(clusterFile)
	from := cl.waitStatus("Available", available).Status.Release

	cl.hold(true)
	cl.patchCluster(`{"networkConfig":{"calicoVersion":"v3.32"}}`)
	var st standalone.State
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		s, found, err := standalone.ReadState(ctx, cl.c)
		st = s
		return err == nil && found && s.Move != nil && s.Move.Phase == "First", nil
	})
	if err != nil {
		t.Fatalf("the move's first step was not recorded: state %+v: %v", st, err)
	}
	if st.Move.From != from || !strings.HasPrefix(st.Move.To, "v3.32.") {
		t.Fatalf("move %+v, want from %s to v3.32", st.Move, from)
	}
	first.stop()

	cl.startController(t, nil)
	cl.hold(false)
	obj := cl.waitStatus("Available on v3.32", func(o *standalonev1alpha1.Cluster) bool {
		return available(o) && strings.HasPrefix(o.Status.Release, "v3.32.")
	})
	after := cl.state()
	if after.Move != nil || after.Release != obj.Status.Release || after.CRDRelease != obj.Status.Release || obj.Status.Move != nil {
		t.Errorf("after the move: state release %s, CRDs %s, move %v; status release %s, move %v", after.Release, after.CRDRelease, after.Move, obj.Status.Release, obj.Status.Move)
	}
	for _, c := range obj.Status.Components {
		if c.Release != obj.Status.Release {
			t.Errorf("component %s runs %s after the move, want %s", c.Name, c.Release, obj.Status.Release)
		}
	}
}
