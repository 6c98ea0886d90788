package manage

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	standalonev1alpha1 "github.com/calico-pilot/calico-pilot/api/standalone/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/cmd"
	"github.com/calico-pilot/calico-pilot/internal/manage"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// countedReconciler is the controller's reconciler (not started: the test calls Reconcile) on a
// client whose requests counter counts.
func countedReconciler(t testing.TB, cl *cluster) (*manage.Reconciler, *testenv.WriteCounter) {
	t.Helper()
	counter := testenv.NewWriteCounter()
	cfg := rest.CopyConfig(cl.cp.Config)
	cfg.Wrap(counter.Wrap)
	cfg.QPS, cfg.Burst = 1000, 1000
	if err := manage.EnsureCRD(context.Background(), cl.c, time.Minute); err != nil {
		t.Fatal(err)
	}
	scheme, err := manage.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	_, r, err := manage.NewManager(manage.Setup{RestConfig: cfg, Manager: ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, Controller: config.Controller{SkipNameValidation: ptr.To(true)}},
		Identity: "counted", Timeout: 30 * time.Second, Interval: time.Hour, Poll: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	r.Check = cmd.PlanCheck(r.Client)
	return r, counter
}

var defaultRequest = reconcile.Request{NamespacedName: types.NamespacedName{Name: standalonev1alpha1.ClusterName}}

// TestReconcileUnchangedClusterRequestsToday counts the requests of one reconcile of a cluster the
// controller installed and nobody changed since. Today every reconcile applies every object twice
// (a server-side dry run for the plan, then the apply): these counts pin that. Once the apply
// detects that nothing changes, the writes go to 0 and this test is tightened to say so.
func TestReconcileUnchangedClusterRequestsToday(t *testing.T) {
	cl := newCluster(t)
	r, counter := countedReconciler(t, cl)
	cl.createCluster(clusterFile)
	ctx := context.Background()
	if _, err := r.Reconcile(ctx, defaultRequest); err != nil {
		t.Fatal(err)
	}
	cl.waitStatus("Available", available)

	before := counter.Requests()
	if _, err := r.Reconcile(ctx, defaultRequest); err != nil {
		t.Fatal(err)
	}
	got := counter.RequestsSince(before)
	t.Logf("requests of an unchanged reconcile: %v", got)
	patches := 0
	for k, v := range got {
		if len(k) > 6 && k[:6] == "patch " {
			patches += v
		}
	}
	// Each rendered object: one dry-run apply (plan) and one apply, both PATCH; the Cluster's status
	// is unchanged and not written.
	if want := 2 * unchangedApplies; patches != want {
		t.Errorf("an unchanged reconcile sent %d server-side applies (dry runs included), want %d: %v", patches, want, got)
	}
	// Besides: the apply Lease, taken (create) and given back (delete).
	if w := testenv.Writes(got); w != patches+2 {
		t.Errorf("an unchanged reconcile wrote %d times besides its applies, want 2 (the apply Lease): %v", w-patches, got)
	}
}

// unchangedApplies is how many objects an unchanged reconcile applies today (the rendered objects
// of a kube-system install with Typha, IP pools left out).
const unchangedApplies = 63

// BenchmarkReconcileUnchanged is the time and allocations of one reconcile of an unchanged cluster.
func BenchmarkReconcileUnchanged(b *testing.B) {
	cl := newCluster(b)
	r, _ := countedReconciler(b, cl)
	cl.createCluster(clusterFile)
	ctx := context.Background()
	if _, err := r.Reconcile(ctx, defaultRequest); err != nil {
		b.Fatal(err)
	}
	cl.waitStatus("Available", available)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := r.Reconcile(ctx, defaultRequest); err != nil {
			b.Fatal(err)
		}
	}
}
