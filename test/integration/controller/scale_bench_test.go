package controller

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/controller/network"
)

// BenchmarkScale reconciles N Networks (each with its own control-plane namespace and Cluster) in
// one seed control plane and reports: seconds until all are Succeeded, write requests per Network
// by resource for the first reconcile and for a no-op resync (every Network annotated again), and
// the peak heap of the process running the controller. The baseline sub-benchmark sends the
// minimal writes the store needs per Network (one Secret and one ManagedResource) with the same
// concurrency and no controller, to show what the API server alone costs.
func BenchmarkScale(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("baseline-writes/networks=%d", n), func(b *testing.B) { benchBaseline(b, n) })
		b.Run(fmt.Sprintf("controller/networks=%d", n), func(b *testing.B) { benchController(b, n) })
	}
}

// fastClient is an admin client without client-side throttling (setting up many objects).
func fastClient(b *testing.B) client.Client {
	cfg := *seedCP.Config
	cfg.QPS, cfg.Burst = 1000, 2000
	c, err := client.New(&cfg, client.Options{Scheme: newScheme(b)})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// parallel runs f for 0..n-1 on workers goroutines and returns the first error.
func parallel(n, workers int, f func(i int) error) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}

func benchBaseline(b *testing.B, n int) {
	c := fastClient(b)
	ctx := context.Background()
	payload := make([]byte, 236*1024) // about the size of one stored manifest
	for iter := 0; iter < b.N; iter++ {
		b.StopTimer()
		prefix := fmt.Sprintf("bench-base-%d-%d-", n, time.Now().UnixNano())
		if err := parallel(n, 20, func(i int) error {
			return c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s%d", prefix, i)}})
		}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		if err := parallel(n, 5, func(i int) error {
			ns := fmt.Sprintf("%s%d", prefix, i)
			if err := c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "managedresource-x"}, Data: map[string][]byte{"config.yaml": payload}}); err != nil {
				return err
			}
			return c.Create(ctx, &resourcesv1alpha1.ManagedResource{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "x"},
				Spec: resourcesv1alpha1.ManagedResourceSpec{SecretRefs: []corev1.LocalObjectReference{{Name: "managedresource-x"}}}})
		}); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s-until-written")
	}
}

func benchController(b *testing.B, n int) {
	c := fastClient(b)
	ctx := context.Background()
	for iter := 0; iter < b.N; iter++ {
		b.StopTimer()
		prefix := fmt.Sprintf("shoot--bench%d--%d-", n, time.Now().UnixNano()%1_000_000)
		keys := make([]client.ObjectKey, n)
		pc := &kruntime.RawExtension{Raw: yamlToJSON(b, providerConfig("overlay:\n  enabled: true\n").Raw)}
		if err := parallel(n, 20, func(i int) error {
			ns := fmt.Sprintf("%s%d", prefix, i)
			keys[i] = client.ObjectKey{Namespace: ns, Name: networkName}
			if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
				return err
			}
			if err := createCluster(ctx, c, ns, baseShoot()); err != nil {
				return err
			}
			nw := &extensionsv1alpha1.Network{
				ObjectMeta: metav1.ObjectMeta{Name: networkName, Namespace: ns, Annotations: map[string]string{"gardener.cloud/operation": "reconcile"}},
				Spec: extensionsv1alpha1.NetworkSpec{
					DefaultSpec: extensionsv1alpha1.DefaultSpec{Type: "calico"},
					PodCIDR:     "100.96.0.0/11", ServiceCIDR: "100.64.0.0/13", IPFamilies: []gardencorev1beta1.IPFamily{"IPv4"},
				},
			}
			nw.Spec.ProviderConfig = pc.DeepCopy()
			return c.Create(ctx, nw)
		}); err != nil {
			b.Fatal(err)
		}

		var peak uint64
		stopSampling := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			var ms runtime.MemStats
			for {
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak {
					peak = ms.HeapInuse
				}
				select {
				case <-stopSampling:
					return
				case <-time.After(50 * time.Millisecond):
				}
			}
		}()

		b.StartTimer()
		start := time.Now()
		// The production set-up: all namespaces, 5 workers and the client rate limit of the
		// reference chart's clientConnection (QPS 100, burst 130).
		log := startController(b, "", controllerSetup{qps: 100, burst: 130, tune: func(o *network.Options) { o.MaxConcurrentReconciles = 5 }})
		waitAll(b, c, keys, prefix, func(n *extensionsv1alpha1.Network) bool {
			lo := n.Status.LastOperation
			return lo != nil && lo.State == gardencorev1beta1.LastOperationStateSucceeded && lo.Type == gardencorev1beta1.LastOperationTypeCreate
		})
		b.ReportMetric(time.Since(start).Seconds(), "s-until-all-succeeded")
		b.StopTimer()
		reportWrites(b, "first", log.Since(map[string]int{}), n)

		// No-op resync: the gardenlet annotates every Network again.
		before := log.Snapshot()
		if err := parallel(n, 20, func(i int) error {
			nw := &extensionsv1alpha1.Network{}
			nw.Namespace, nw.Name = keys[i].Namespace, keys[i].Name
			patch := []byte(`{"metadata":{"annotations":{"gardener.cloud/operation":"reconcile"}}}`)
			return c.Patch(ctx, nw, client.RawPatch("application/merge-patch+json", patch))
		}); err != nil {
			b.Fatal(err)
		}
		resyncStart := time.Now()
		// Done when the annotation is gone and two more status writes per Network were sent.
		if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 10*time.Minute, true, func(context.Context) (bool, error) {
			return log.Since(before)["networks/status"] >= 2*n, nil
		}); err != nil {
			b.Fatalf("waiting for the resync: %v (writes %v)", err, log.Since(before))
		}
		waitAll(b, c, keys, prefix, func(n *extensionsv1alpha1.Network) bool {
			_, annotated := n.Annotations["gardener.cloud/operation"]
			return !annotated && n.Status.LastOperation != nil && n.Status.LastOperation.State == gardencorev1beta1.LastOperationStateSucceeded
		})
		b.ReportMetric(time.Since(resyncStart).Seconds(), "s-noop-resync")
		reportWrites(b, "resync", log.Since(before), n)
		close(stopSampling)
		<-sampled
		b.ReportMetric(float64(peak)/(1<<20), "MiB-peak-heap")
	}
}

func waitAll(b *testing.B, c client.Client, keys []client.ObjectKey, _ string, done func(*extensionsv1alpha1.Network) bool) {
	b.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 500*time.Millisecond, 20*time.Minute, true, func(ctx context.Context) (bool, error) {
		var list extensionsv1alpha1.NetworkList
		if err := c.List(ctx, &list); err != nil {
			return false, err
		}
		want := map[client.ObjectKey]bool{}
		for _, k := range keys {
			want[k] = true
		}
		ok := 0
		for i := range list.Items {
			n := &list.Items[i]
			if want[client.ObjectKeyFromObject(n)] && done(n) {
				ok++
			}
		}
		return ok == len(keys), nil
	})
	if err != nil {
		b.Fatalf("waiting for %d Networks: %v", len(keys), err)
	}
}

func reportWrites(b *testing.B, phase string, writes map[string]int, n int) {
	res := make([]string, 0, len(writes))
	for r := range writes {
		res = append(res, r)
	}
	sort.Strings(res)
	for _, r := range []string{"secrets", "managedresources", "networks", "networks/status", "configmaps", "scrapeconfigs", "events"} {
		b.ReportMetric(float64(writes[r])/float64(n), phase+"-writes-"+r+"/network")
	}
	b.Logf("%s reconcile, write requests for %d Networks: %v", phase, n, writes)
}
