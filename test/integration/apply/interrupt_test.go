package apply

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/calico-pilot/calico-pilot/internal/standalone"
)

// TestApplyInterruptedMoveContinues: Ctrl-C while the first step of an upgrade rolls out stops apply
// (exit 130) with the move recorded in the state and the Lease given back; the next apply, without
// --calico-version, continues the recorded move (its first step waited for again, then the second)
// instead of going back.
func TestApplyInterruptedMoveContinues(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	if code, out, errOut := cl.apply(context.Background(), minimalFile); code != 0 {
		t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
	}
	cl.hold(true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		code   int
		errOut string
	}
	done := make(chan result, 1)
	go func() {
		code, _, errOut := cl.apply(ctx, minimalFile, "--calico-version", "v3.32")
		done <- result{code, errOut}
	}()
	// Interrupted once the first step's calico-node is applied: apply is waiting for its rollout.
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		st, _, err := standalone.ReadState(ctx, cl.c)
		return err == nil && st.Move != nil && st.Move.Phase == "First" && tag(cl.image("DaemonSet", "calico-node", "calico-node")) == "v3.32.1", nil
	})
	if err != nil {
		t.Fatalf("the move never started: %v", err)
	}
	time.Sleep(200 * time.Millisecond)
	cancel()
	r := <-done
	if r.code != 130 || !strings.Contains(r.errOut, "interrupted while waiting for calico-node") || !strings.Contains(r.errOut, "run apply again to continue") {
		t.Fatalf("interrupted apply: exit %d\n%s", r.code, r.errOut)
	}
	if st := cl.state(); st.Move == nil || st.Move.To != "v3.32.1" || st.Release != "v3.31.7" {
		t.Fatalf("state after the interrupt: %+v", st)
	}
	if tag(cl.image("DaemonSet", "calico-node", "calico-node")) != "v3.32.1" || tag(cl.image("Deployment", "calico-typha-deploy", "calico-typha")) != "v3.31.7" {
		t.Fatal("the interrupted first step did not leave calico-node moved and Typha where it was")
	}

	cl.hold(false)
	code, out, errOut := cl.apply(context.Background(), minimalFile)
	// The recorded first step is checked to have rolled out before the second starts.
	i, j := strings.Index(out, "step First of the move v3.31.7 -> v3.32.1"), strings.Index(out, "step Complete of the move v3.31.7 -> v3.32.1")
	if code != 0 || i < 0 || j < i || !strings.Contains(out[i:j], "rolled out: calico-node") ||
		!strings.Contains(out, "Moving from Calico v3.31.7 to v3.32.1 (phase First") ||
		!strings.Contains(out, "applied: Calico v3.32.1 runs on every component") {
		t.Fatalf("continuing apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestApplyGoesBackFromAStuckMove: the first step of an upgrade does not roll out (calico-node's
// new pods never become ready); apply stops at its timeout, and the way back is the same command
// with the old release: calico-node returns to it, the other components never moved, the CRDs
// stay at the newer line and the move is over.
func TestApplyGoesBackFromAStuckMove(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	ctx := context.Background()
	if code, out, errOut := cl.apply(ctx, minimalFile); code != 0 {
		t.Fatalf("install: exit %d\n%s\n%s", code, out, errOut)
	}
	cl.hold(true)
	code, out, errOut := cl.apply(ctx, minimalFile, "--calico-version", "v3.32", "--timeout", "3s")
	if code != 1 || !strings.Contains(errOut, "timed out after 3s waiting for the rollout of calico-node") || !strings.Contains(errOut, "or go back with --calico-version v3.31.7") {
		t.Fatalf("stuck upgrade: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	cl.hold(false)
	code, out, errOut = cl.apply(ctx, minimalFile, "--calico-version", "v3.31.7")
	if code != 0 || !strings.Contains(out, "giving up the move v3.31.7 -> v3.32.1 (phase First): --calico-version asks for v3.31.7") {
		t.Fatalf("going back: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if got := tag(cl.image("DaemonSet", "calico-node", "calico-node")); got != "v3.31.7" {
		t.Errorf("calico-node runs %s after going back", got)
	}
	if st := cl.state(); st.Release != "v3.31.7" || st.CRDRelease != "v3.32.1" || st.Move != nil {
		t.Errorf("state after going back: release %s, CRDs %s, move %+v", st.Release, st.CRDRelease, st.Move)
	}
}
