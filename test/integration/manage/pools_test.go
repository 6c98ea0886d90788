package manage

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
)

// TestManageKeepsADeletedPoolDeleted: the pools are the owner's, as with apply: after the controller
// installed Calico, the owner deletes the default pool; reconciles (here three, called directly, as the
// 5-minute resync does) never create it again.
func TestManageKeepsADeletedPoolDeleted(t *testing.T) {
	cl := newCluster(t)
	r, counter := countedReconciler(t, cl)
	cl.createCluster(clusterFile)
	ctx := context.Background()
	if _, err := r.Reconcile(ctx, defaultRequest); err != nil {
		t.Fatal(err)
	}
	cl.waitStatus("Available", available)
	var pools calicov1.IPPoolList
	if err := cl.c.List(ctx, &pools); err != nil || len(pools.Items) == 0 {
		t.Fatalf("pools after the install: %v, %v", pools.Items, err)
	}
	pool := pools.Items[0].DeepCopy()
	if err := cl.c.Delete(ctx, pool); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		before := counter.Requests()
		if _, err := r.Reconcile(ctx, defaultRequest); err != nil {
			t.Fatal(err)
		}
		if err := cl.c.Get(ctx, client.ObjectKeyFromObject(pool), &calicov1.IPPool{}); !apierrors.IsNotFound(err) {
			t.Fatalf("reconcile %d: the deleted pool %s is back (%v)", i, pool.Name, err)
		}
		if got := counter.RequestsSince(before); i > 0 && got["create ippools"] > 0 {
			t.Errorf("reconcile %d created a pool: %v", i, got)
		}
	}
	if st := cl.state(); len(st.Pools) == 0 {
		t.Errorf("the state records no pool: %+v", st)
	}
}
