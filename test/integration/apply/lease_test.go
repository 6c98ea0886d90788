package apply

import (
	"context"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestApplyLeaseAndRolloutTimeout: while one apply waits for a rollout that does not finish, a
// second apply is refused naming the holder of the Lease; the first stops at its timeout saying
// which workloads hold it and what to do, leaving the Lease free and the state at the step; the
// next apply, with the workloads rolling out again, finishes it.
func TestApplyLeaseAndRolloutTimeout(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	ctx := context.Background()
	cl.hold(true)

	type result struct {
		code        int
		out, errOut string
	}
	first := make(chan result, 1)
	go func() {
		code, out, errOut := cl.apply(ctx, minimalFile, "--timeout", "15s")
		first <- result{code, out, errOut}
	}()
	var holder string
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 20*time.Second, true, func(ctx context.Context) (bool, error) {
		var l coordinationv1.Lease
		if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "calico-pilot-apply"}, &l); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		holder = *l.Spec.HolderIdentity
		return true, nil
	})
	if err != nil {
		t.Fatalf("the first apply never took the Lease: %v", err)
	}
	code, out, errOut := cl.apply(ctx, minimalFile)
	if code != 1 || !strings.Contains(errOut, `another apply holds the Lease kube-system/calico-pilot-apply: "`+holder+`"`) {
		t.Fatalf("second apply: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	r := <-first
	if r.code != 1 || !strings.Contains(r.errOut, "timed out after 15s waiting for the rollout of calico-node") ||
		!strings.Contains(r.errOut, "run apply again to continue") {
		t.Fatalf("first apply: exit %d\nstderr:\n%s", r.code, r.errOut)
	}

	cl.hold(false)
	code, out, errOut = cl.apply(ctx, minimalFile)
	if code != 0 || !strings.Contains(out, "applied: Calico v3.31.7") {
		t.Fatalf("apply after the timeout: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
