package controller

import (
	"context"
	"fmt"
	"io"
	stdlog "log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// BenchmarkScale reconciles N Networks (each with its own control-plane namespace, Cluster and
// gardener-internal shoot access secret) in a fresh seed control plane per run, with the real
// controller binary run as its own process (so that its RSS is its own), at the client rate limit
// given in its config file (clientConnection.qps, burst 1.3 × qps as in the reference chart), all
// namespaces, with 5 workers at QPS 100 and 500 and with 20 at QPS 500. The shoots all point at the
// suite's shoot control plane (pools: created once, adopted by the others). The controller's seed
// requests go through a counting proxy on loopback (the framework's counter: by verb and resource,
// informers' list and watch excluded). It reports the seconds until all are Succeeded against the
// budget (N × the first reconcile's requests per Network / QPS + 10 s), the requests per Network
// for the first reconcile and for an unchanged annotated reconcile, the time of that resync, and
// the process's peak RSS (VmHWM). The baseline sub-benchmark sends the minimal writes the store
// needs per Network (one ~236 KB Secret and one ManagedResource) with 5 writers, no controller and
// no rate limit, in the same run.
func BenchmarkScale(b *testing.B) {
	bin := controllerBinary(b)
	sizes := []int{100, 1000}
	if only := os.Getenv("CALICO_PILOT_BENCH_NETWORKS"); only != "" {
		// e.g. 100: a quick run on a busy machine.
		n, err := strconv.Atoi(only)
		if err != nil {
			b.Fatalf("CALICO_PILOT_BENCH_NETWORKS=%q: %v", only, err)
		}
		sizes = []int{n}
	}
	// Workers: Gardener's default of 5 at QPS 100; at QPS 500 the operator raises both (5 workers
	// waiting for sequential round trips cannot send 500 requests a second), so that size also
	// runs with 20.
	runs := []struct {
		qps     float32
		workers int
	}{{100, 5}, {500, 5}, {500, 20}}
	if only := os.Getenv("CALICO_PILOT_BENCH_RUN"); only != "" {
		// e.g. 500/20: one QPS and worker count.
		var qps float32
		var workers int
		if _, err := fmt.Sscanf(only, "%g/%d", &qps, &workers); err != nil {
			b.Fatalf("CALICO_PILOT_BENCH_RUN=%q, want QPS/WORKERS: %v", only, err)
		}
		runs = runs[:0]
		runs = append(runs, struct {
			qps     float32
			workers int
		}{qps, workers})
	}
	access := shootAccessKubeconfig(b)
	for _, n := range sizes {
		b.Run(fmt.Sprintf("baseline-writes/networks=%d", n), func(b *testing.B) { benchBaseline(b, n) })
		for _, r := range runs {
			b.Run(fmt.Sprintf("controller/qps=%d/workers=%d/networks=%d", int(r.qps), r.workers, n), func(b *testing.B) {
				benchController(b, bin, access, n, r.qps, r.workers)
			})
		}
	}
}

// freshSeed starts a seed control plane for one run (stopped when it ends): every run measures the
// same empty seed, not one holding the Networks of the runs before (the controller watches all
// namespaces, and envtest has no namespace controller to delete them).
func freshSeed(b *testing.B) *testenv.ControlPlane {
	b.StopTimer()
	defer b.StartTimer()
	cp, err := testenv.Start(testenv.Options{
		CRDDirectoryPaths: testenv.CRDDirectories(testenv.GardenerCRDs, testenv.MonitoringCRDs),
	})
	if err != nil {
		b.Fatalf("starting a seed control plane: %v", err)
	}
	b.Cleanup(func() { stop("bench seed", cp) })
	return cp
}

// shootAccessKubeconfig is the kubeconfig every benchmark shoot's gardener-internal secret holds:
// all point at the shared shoot control plane (the IP pool sync creates the pool once, the other
// Networks adopt it).
func shootAccessKubeconfig(b *testing.B) []byte {
	kubeconfig, err := shootCP.AdminKubeconfig("gardener-bench")
	if err != nil {
		b.Fatal(err)
	}
	resetShootPools(b)
	b.Cleanup(func() { resetShootPools(b) })
	return kubeconfig
}

// controllerBinary is $CALICO_PILOT_BIN, else the binary built from this tree into a temporary
// directory.
func controllerBinary(b *testing.B) string {
	if bin := os.Getenv("CALICO_PILOT_BIN"); bin != "" {
		return bin
	}
	dir, err := os.MkdirTemp("", "calico-pilot-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = os.RemoveAll(dir) })
	bin := filepath.Join(dir, "calico-pilot")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/calico-pilot/calico-pilot/cmd/calico-pilot")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("building the controller: %v\n%s", err, out)
	}
	return bin
}

// countingProxy serves the seed's API on plain HTTP on loopback, as the seed's admin, counting
// every request; it stops with the benchmark.
func countingProxy(b *testing.B, seed *testenv.ControlPlane) (string, *testenv.WriteCounter) {
	rt, err := rest.TransportFor(seed.Config)
	if err != nil {
		b.Fatal(err)
	}
	target, err := url.Parse(seed.Config.Host)
	if err != nil {
		b.Fatal(err)
	}
	counter := testenv.NewWriteCounter()
	proxy := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target); r.Out.Host = target.Host },
		Transport:     counter.Wrap(rt),
		FlushInterval: -1, // watches stream
		ErrorLog:      stdlog.New(io.Discard, "", 0),
	}
	srv := httptest.NewServer(proxy)
	b.Cleanup(srv.Close)
	return srv.URL, counter
}

// runController starts the binary against server with qps and returns its pid; it is stopped
// (SIGTERM, then waited for) when the benchmark ends.
func runController(b *testing.B, bin, server string, qps float32, workers int, extraArgs ...string) int {
	dir := b.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: seed\n  cluster:\n    server: "+server+
		"\ncontexts:\n- name: seed\n  context:\n    cluster: seed\n    user: admin\ncurrent-context: seed\nusers:\n- name: admin\n  user: {}\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	config := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(config, []byte(fmt.Sprintf("apiVersion: calico.networking.extensions.config.gardener.cloud/v1alpha1\nkind: ControllerConfiguration\nclientConnection:\n  qps: %g\n  burst: %d\n", qps, int(qps*1.3))), 0o600); err != nil {
		b.Fatal(err)
	}
	args := []string{"controller", "--kubeconfig", kubeconfig, "--config-file", config,
		"--leader-elect=false", "--metrics-bind-address", "0", "--health-bind-address", "0", "--max-concurrent-reconciles", strconv.Itoa(workers),
		"--disable-controllers=heartbeat"} // the Network controller alone
	cmd := exec.Command(bin, append(args, extraArgs...)...)
	cmd.Env = append(os.Environ(), "KUBECONFIG=")
	stderr := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	stopping := make(chan struct{})
	go func() {
		err := cmd.Wait()
		select {
		case <-stopping:
		default:
			// A controller that stops early is reported at once, not at the wait's timeout.
			fmt.Fprintf(os.Stderr, "controller exited early: %v\n%s\n", err, tail(stderr.String(), 3000))
		}
		close(done)
	}()
	b.Cleanup(func() {
		close(stopping)
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if b.Failed() {
			b.Logf("controller stderr (tail): %s", tail(stderr.String(), 3000))
		}
	})
	return cmd.Process.Pid
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// peakRSS reads the process's VmHWM (peak resident set) in MiB.
func peakRSS(b *testing.B, pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" {
			kb, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb / 1024
		}
	}
	b.Fatal("no VmHWM in /proc/<pid>/status")
	return 0
}

// fastClient is an admin client without client-side throttling (setting up many objects).
func fastClient(b *testing.B, seed *testenv.ControlPlane) client.Client {
	cfg := *seed.Config
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
	c := fastClient(b, freshSeed(b))
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

func benchController(b *testing.B, bin string, access []byte, n int, qps float32, workers int) {
	seed := freshSeed(b)
	c := fastClient(b, seed)
	ctx := context.Background()
	for iter := 0; iter < b.N; iter++ {
		b.StopTimer()
		prefix := fmt.Sprintf("shoot--bench%d-%d--%d-", n, int(qps), time.Now().UnixNano()%1_000_000)
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
			if err := c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gardener-internal"}, Data: map[string][]byte{"kubeconfig": access}}); err != nil {
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

		server, counter := countingProxy(b, seed)
		b.StartTimer()
		start := time.Now()
		var extra []string
		profile := os.Getenv("CALICO_PILOT_BENCH_PROFILE") // a file: a 20 s CPU profile of the controller from its start
		if profile != "" {
			extra = append(extra, "--pprof-bind-address", "127.0.0.1:6065")
		}
		pid := runController(b, bin, server, qps, workers, extra...)
		if profile != "" {
			go captureProfile(b, "http://127.0.0.1:6065/debug/pprof/profile?seconds=20", profile)
		}
		waitAll(b, c, keys, func() int { return counter.Requests()["patch networks/status"] }, func(nw *extensionsv1alpha1.Network) bool {
			lo := nw.Status.LastOperation
			return lo != nil && lo.State == gardencorev1beta1.LastOperationStateSucceeded && lo.Type == gardencorev1beta1.LastOperationTypeCreate
		})
		converged := time.Since(start).Seconds()
		b.StopTimer()
		if profile != "" {
			captureProfile(b, "http://127.0.0.1:6065/debug/pprof/heap", profile+".heap")
		}
		b.ReportMetric(converged, "s-until-all-succeeded")
		time.Sleep(2 * time.Second) // the last events
		first := counter.Requests()
		perNetwork := float64(testenv.Total(first)) / float64(n)
		b.ReportMetric(perNetwork, "first-requests/network")
		budget := float64(n)*perNetwork/float64(qps) + 10
		b.ReportMetric(budget, "s-budget")
		if converged > budget {
			b.Logf("converged in %.1f s, above the budget of %.1f s", converged, budget)
		}
		b.Logf("first reconcile, requests for %d Networks: %v", n, first)

		// Unchanged resync: the gardenlet annotates every Network again.
		before := counter.Requests()
		if err := parallel(n, 20, func(i int) error {
			nw := &extensionsv1alpha1.Network{}
			nw.Namespace, nw.Name = keys[i].Namespace, keys[i].Name
			patch := []byte(`{"metadata":{"annotations":{"gardener.cloud/operation":"reconcile"}}}`)
			return c.Patch(ctx, nw, client.RawPatch("application/merge-patch+json", patch))
		}); err != nil {
			b.Fatal(err)
		}
		resyncStart := time.Now()
		waitAll(b, c, keys, func() int { return counter.RequestsSince(before)["patch networks/status"] }, func(nw *extensionsv1alpha1.Network) bool {
			_, annotated := nw.Annotations["gardener.cloud/operation"]
			return !annotated && nw.Status.LastOperation != nil && nw.Status.LastOperation.State == gardencorev1beta1.LastOperationStateSucceeded
		})
		b.ReportMetric(time.Since(resyncStart).Seconds(), "s-unchanged-resync")
		time.Sleep(2 * time.Second)
		resync := counter.RequestsSince(before)
		b.ReportMetric(float64(testenv.Total(resync))/float64(n), "resync-requests/network")
		b.Logf("unchanged annotated reconcile, requests for %d Networks: %v", n, resync)
		b.ReportMetric(peakRSS(b, pid), "MiB-peak-RSS")
	}
}

// captureProfile saves the profile at url (retried until the endpoint is up) to file.
func captureProfile(b *testing.B, url, file string) {
	for range 50 {
		resp, err := http.Get(url)
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err == nil {
			err = os.WriteFile(file, data, 0o600)
		}
		if err != nil {
			b.Logf("profile: %v", err)
		}
		return
	}
	b.Logf("profile: %s did not answer", url)
}

// waitAll waits until done holds for every Network of keys. It first waits, without a request,
// until statusWrites (the controller's status writes, from the counting proxy) reach the number of
// Networks, and only then lists them (every second until done): listing a thousand Networks twice
// a second would load the API server the benchmark measures.
func waitAll(b *testing.B, c client.Client, keys []client.ObjectKey, statusWrites func() int, done func(*extensionsv1alpha1.Network) bool) {
	b.Helper()
	if err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 20*time.Minute, true, func(context.Context) (bool, error) {
		return statusWrites() >= len(keys), nil
	}); err != nil {
		b.Fatalf("waiting for %d status writes: %v (got %d)", len(keys), err, statusWrites())
	}
	namespaces := map[string]bool{}
	for _, k := range keys {
		namespaces[k.Namespace] = true
	}
	err := wait.PollUntilContextTimeout(context.Background(), time.Second, 20*time.Minute, true, func(ctx context.Context) (bool, error) {
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
