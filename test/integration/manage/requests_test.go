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
	r.Applier.PrintPlan = cmd.PrintPlan
	return r, counter
}

var defaultRequest = reconcile.Request{NamespacedName: types.NamespacedName{Name: standalonev1alpha1.ClusterName}}

// TestReconcileUnchangedClusterWritesNothing counts the requests of reconciles of a cluster the
// controller installed and nobody changed since, over several resyncs: the decision is empty, so no
// write at all (no server-side apply, no dry run, no Lease, no state, no status), and a stated number
// of reads (the install, the state, each rendered object once, the pools and the live checks).
func TestReconcileUnchangedClusterWritesNothing(t *testing.T) {
	cl := newCluster(t)
	r, counter := countedReconciler(t, cl)
	cl.createCluster(clusterFile)
	ctx := context.Background()
	if _, err := r.Reconcile(ctx, defaultRequest); err != nil {
		t.Fatal(err)
	}
	cl.waitStatus("Available", available)
	for i := range 3 {
		before := counter.Requests()
		if _, err := r.Reconcile(ctx, defaultRequest); err != nil {
			t.Fatal(err)
		}
		got := counter.RequestsSince(before)
		t.Logf("requests of unchanged reconcile %d: %v", i, got)
		if w := testenv.Writes(got); w != 0 {
			t.Errorf("unchanged reconcile %d wrote %d times: %v", i, w, got)
		}
		if reads := testenv.Reads(got); reads > unchangedReads {
			t.Errorf("unchanged reconcile %d read %d times, more than %d: %v", i, reads, unchangedReads, got)
		}
	}
}

// unchangedReads bounds the reads one reconcile of an unchanged cluster sends (a kube-system install
// with Typha), measured at 88 alone and 89 to 90 in the whole suite (a second IPAM block list now and
// then), with room for one more: the Cluster, the server's version, the facts (nodes, kubeadm-config,
// kube-proxy), apply's decision (the install, the state, each of the 63 rendered objects once, the
// pools, IPAM blocks, pods and CRDs, the operator's API group) and the workloads for the status.
const unchangedReads = 91

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
