package apply

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// The package shares one control plane between its tests. They cannot use it at once (each needs
// a cluster without Calico: CRDs, kube-system's objects, cluster-scoped RBAC, the state and the
// Lease), so newCluster hands it to one test at a time, reset to what the API server held when it
// had started. A test that breaks the control plane itself (deletes objects the API server made,
// stops it, swaps its certificates) takes newOwnCluster instead.

// shared is the package's control plane, started by the first newCluster and stopped by TestMain.
var shared struct {
	once sync.Once
	err  error // starting failed (testenv.ErrNoBinaries: the tests skip)

	cp         *testenv.ControlPlane
	cl         *cluster // its client and kubeconfig; t is set per test
	cs         kubernetes.Interface
	md         metadata.Interface
	quiet      *rest.Config // the control plane's, without the API server's warnings
	dir        string       // holds the kubeconfig
	baseline   listing
	lock       chan struct{} // held by the test that has the control plane
	mu         sync.Mutex    // guards holderName
	holderName string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.cp != nil {
		if err := shared.cp.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stopping the shared control plane: %v\n", err)
		}
		_ = os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// newCluster hands the test the package's control plane, reset to a clean state (no object the
// API server did not make itself), with the workload controllers' stand-in running until the test
// ends. Tests that call it run one after another, even under t.Parallel.
func newCluster(t *testing.T) *cluster {
	t.Helper()
	shared.once.Do(startShared)
	if errors.Is(shared.err, testenv.ErrNoBinaries) {
		t.Skip(shared.err)
	}
	if shared.err != nil {
		t.Fatalf("starting the shared control plane: %v", shared.err)
	}
	shared.mu.Lock()
	h := shared.holderName
	shared.mu.Unlock()
	if h != "" && (h == t.Name() || strings.HasPrefix(t.Name(), h+"/")) {
		t.Fatalf("newCluster: %s holds the shared control plane already (one newCluster per test; newOwnCluster for a second cluster)", h)
	}
	shared.lock <- struct{}{}
	setHolder := func(name string) { shared.mu.Lock(); shared.holderName = name; shared.mu.Unlock() }
	setHolder(t.Name())
	t.Cleanup(func() { setHolder(""); <-shared.lock })

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	if err := resetShared(ctx); err != nil {
		t.Fatalf("resetting the shared control plane: %v", err)
	}
	t.Logf("shared control plane reset in %s", time.Since(start).Round(time.Millisecond))
	cl := &cluster{t: t, cp: shared.cp, c: shared.cl.c, kubeconfig: shared.cl.kubeconfig}
	cl.startControllers()
	return cl
}

// newOwnCluster starts a control plane for the test alone, stopped when it ends: for a test that
// changes what a reset cannot restore (the API server's own objects, its certificates, its process).
func newOwnCluster(t *testing.T) *cluster {
	t.Helper()
	cp, err := testenv.Start(testenv.Options{})
	if errors.Is(err, testenv.ErrNoBinaries) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cp.Stop() })
	cl, err := clusterOf(cp, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cl.t = t
	cl.startControllers()
	return cl
}

// clusterOf builds the client and the kubeconfig file (in dir) of cp.
func clusterOf(cp *testenv.ControlPlane, dir string) (*cluster, error) {
	c, err := cp.NewClient(clientgoscheme.AddToScheme, calicov1.AddToScheme, apiextensionsv1.AddToScheme)
	if err != nil {
		return nil, err
	}
	kc, err := cp.AdminKubeconfig("admin")
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, kc, 0o600); err != nil {
		return nil, err
	}
	return &cluster{cp: cp, c: c, kubeconfig: path}, nil
}

func startShared() {
	shared.lock = make(chan struct{}, 1)
	cp, err := testenv.Start(testenv.Options{})
	if err != nil {
		shared.err = err
		return
	}
	shared.cp = cp
	shared.err = func() error {
		dir, err := os.MkdirTemp("", "apply-suite-")
		if err != nil {
			return err
		}
		shared.dir = dir
		if shared.cl, err = clusterOf(cp, dir); err != nil {
			return err
		}
		// The reset lists every resource, deprecated ones too (v1 Endpoints): no warnings for those.
		quiet := rest.CopyConfig(cp.Config)
		quiet.WarningHandler = rest.NoWarnings{}
		// A reset lists every resource and deletes dozens of objects: client-go's default of 5
		// requests a second would make it wait most of its time.
		quiet.QPS, quiet.Burst = 500, 1000
		shared.quiet = quiet
		if shared.cs, err = kubernetes.NewForConfig(quiet); err != nil {
			return err
		}
		if shared.md, err = metadata.NewForConfig(quiet); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		shared.baseline, err = settledListing(ctx)
		return err
	}()
}

// objectRef names one object of one resource.
type objectRef struct {
	resource  schema.GroupResource
	namespace string
	name      string
}

func (r objectRef) String() string {
	if r.namespace == "" {
		return r.resource.String() + " " + r.name
	}
	return r.resource.String() + " " + r.namespace + "/" + r.name
}

// listedObject is what a listing keeps of an object.
type listedObject struct {
	version    string // the resource's version it was listed at
	uid        types.UID
	finalizers []string
	deleting   bool
	// automanaged: an APIService the API server keeps for a served group (a CRD's): it goes with
	// the group.
	automanaged bool
}

// listing is every object of every resource the API server lists, by objectRef.
type listing map[objectRef]listedObject

// listAll lists every object of every resource discovery shows that can be listed and deleted
// (at the resource's preferred version). A group whose discovery fails (an APIService whose
// backend does not run) is left out: its objects are not stored by this API server.
func listAll(ctx context.Context) (listing, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(shared.quiet)
	if err != nil {
		return nil, err
	}
	lists, err := dc.ServerPreferredResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	var gvrs []schema.GroupVersionResource
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			return nil, err
		}
		for _, r := range l.APIResources {
			if !strings.Contains(r.Name, "/") && slices.Contains(r.Verbs, "list") && slices.Contains(r.Verbs, "delete") {
				gvrs = append(gvrs, gv.WithResource(r.Name))
			}
		}
	}
	// The lists run at once: the first list of a custom resource after its CRD was created takes
	// the API server about a second here.
	var mu sync.Mutex
	out := listing{}
	g, gctx := errgroup.WithContext(ctx)
	for _, gvr := range gvrs {
		g.Go(func() error {
			// From the API server's watch cache (resourceVersion 0): resetShared confirms a clean
			// listing with a second one.
			objs, err := shared.md.Resource(gvr).List(gctx, metav1.ListOptions{ResourceVersion: "0"})
			if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
				return nil // a CRD deleted since discovery
			}
			if err != nil {
				return fmt.Errorf("listing %s: %w", gvr, err)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, o := range objs.Items {
				ref := objectRef{resource: gvr.GroupResource(), namespace: o.Namespace, name: o.Name}
				out[ref] = listedObject{version: gvr.Version, uid: o.UID, finalizers: o.Finalizers, deleting: o.DeletionTimestamp != nil,
					automanaged: o.Labels["kube-aggregator.kubernetes.io/automanaged"] != ""}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// settledListing is the listing once the API server's start-up controllers stopped adding objects
// (bootstrap RBAC, priority classes, flow control, its identity Lease): two listings a second
// apart agree.
func settledListing(ctx context.Context) (listing, error) {
	var last listing
	var out listing
	err := wait.PollUntilContextTimeout(ctx, time.Second, time.Minute, true, func(ctx context.Context) (bool, error) {
		cur, err := listAll(ctx)
		if err != nil {
			return false, err
		}
		if last != nil && len(diffListings(last, cur)) == 0 {
			out = cur
			return true, nil
		}
		last = cur
		return false, nil
	})
	return out, err
}

// diffListings says what differs between two listings by identity (name and UID), sorted:
// "+ ref" for an object only after, "- ref" for one only before, "~ ref" for another UID.
func diffListings(before, after listing) []string {
	var out []string
	for ref, a := range after {
		b, ok := before[ref]
		switch {
		case !ok:
			out = append(out, "+ "+ref.String())
		case b.uid != a.uid:
			out = append(out, "~ "+ref.String()+" (created again)")
		}
	}
	for ref := range before {
		if _, ok := after[ref]; !ok {
			out = append(out, "- "+ref.String())
		}
	}
	slices.Sort(out)
	return out
}

// The finalizers the API server itself handles: a reset leaves them so the objects go the way
// they always go (a CRD's instances are deleted with it, a namespace is finalized by the reset).
var serverFinalizers = []string{apiextensionsv1.CustomResourceCleanupFinalizer}

// resetShared deletes every object that is not in the baseline (the listing taken once the API
// server had started), namespaced ones in every namespace first, then the namespaces (there is no
// namespace controller: their spec's finalizer is removed by finalizing them), removing the
// finalizers tests set; it waits until a listing is the baseline again. An object of the
// baseline that is gone or created again cannot be restored: that is an error naming it.
func resetShared(ctx context.Context) error {
	var diff []string
	clean := 0
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		cur, err := listAll(ctx)
		if err != nil {
			return false, err
		}
		if diff = diffListings(shared.baseline, cur); len(diff) == 0 {
			clean++
			return clean == 2, nil
		}
		clean = 0
		var missing []string
		for ref, b := range shared.baseline {
			if c, ok := cur[ref]; !ok || c.uid != b.uid {
				missing = append(missing, ref.String())
			}
		}
		if len(missing) > 0 {
			slices.Sort(missing)
			return false, fmt.Errorf("the previous test deleted objects the API server made, which a reset cannot restore (%s): such a test takes newOwnCluster", strings.Join(missing, ", "))
		}
		var namespaces []string
		occupied := map[string]bool{}
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(16)
		for ref, o := range cur {
			if _, ok := shared.baseline[ref]; ok {
				continue
			}
			if ref.resource == (schema.GroupResource{Resource: "namespaces"}) {
				namespaces = append(namespaces, ref.name)
			}
			if ref.namespace != "" {
				occupied[ref.namespace] = true
			}
			g.Go(func() error { return deleteObject(gctx, ref, o) })
		}
		if err := g.Wait(); err != nil {
			return false, err
		}
		// A namespace is finalized once a listing finds nothing left in it (the next round, after
		// its objects' deletion).
		for _, ns := range namespaces {
			if occupied[ns] {
				continue
			}
			if err := finalizeNamespace(ctx, ns); err != nil {
				return false, err
			}
		}
		return false, nil
	})
	if wait.Interrupted(err) {
		return fmt.Errorf("still not the baseline after a minute: %s", strings.Join(first(diff, 20), "; "))
	}
	return err
}

func first(s []string, n int) []string {
	if len(s) > n {
		return append(slices.Clone(s[:n]), fmt.Sprintf("and %d more", len(s)-n))
	}
	return s
}

// deleteObject removes the finalizers of o that the API server does not handle itself, then
// deletes it.
func deleteObject(ctx context.Context, ref objectRef, o listedObject) error {
	res := shared.md.Resource(ref.resource.WithVersion(o.version))
	var r metadata.ResourceInterface = res
	if ref.namespace != "" {
		r = res.Namespace(ref.namespace)
	}
	keep := slices.DeleteFunc(slices.Clone(o.finalizers), func(f string) bool { return !slices.Contains(serverFinalizers, f) })
	if len(keep) != len(o.finalizers) {
		patch := []byte(`{"metadata":{"finalizers":null}}`)
		if len(keep) > 0 {
			patch = []byte(fmt.Sprintf(`{"metadata":{"finalizers":[%q]}}`, strings.Join(keep, `","`)))
		}
		if _, err := r.Patch(ctx, ref.name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("removing the finalizers of %s: %w", ref, err)
		}
	}
	if o.automanaged || o.deleting && ref.resource != (schema.GroupResource{Resource: "pods"}) {
		return nil
	}
	// At once: no kubelet confirms a pod's end (a pod being deleted gracefully is deleted again so).
	if err := r.Delete(ctx, ref.name, metav1.DeleteOptions{GracePeriodSeconds: new(int64(0))}); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("deleting %s: %w", ref, err)
	}
	return nil
}

// finalizeNamespace does what the namespace controller does once a namespace being deleted is
// empty: it removes the namespace's spec finalizer, and the API server deletes it.
func finalizeNamespace(ctx context.Context, name string) error {
	ns, err := shared.cs.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if ns.DeletionTimestamp == nil || len(ns.Spec.Finalizers) == 0 {
		return nil
	}
	ns.Spec.Finalizers = nil
	if _, err := shared.cs.CoreV1().Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("finalizing namespace %s: %w", name, err)
	}
	return nil
}
