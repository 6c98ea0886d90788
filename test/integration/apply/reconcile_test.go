package apply

import (
	"bytes"
	"context"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/calicotls"
	"github.com/calico-pilot/calico-pilot/internal/calicotls/calicotlstest"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/standalone"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// requestCounter counts the requests a client sends, by verb (GET, LIST, PATCH, ...; a dry run
// counts as the write it is).
type requestCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

func (rc *requestCounter) RoundTrip(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		verb := r.Method
		if r.Method == http.MethodGet && r.URL.Query().Get("watch") != "true" && !strings.Contains(lastSegment(r.URL.Path), ".") && isList(r.URL.Path) {
			verb = "LIST"
		}
		rc.mu.Lock()
		rc.counts[verb]++
		rc.mu.Unlock()
		return next.RoundTrip(r)
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func lastSegment(p string) string { return p[strings.LastIndex(p, "/")+1:] }

// isList: a collection path (/api/v1/namespaces/ns/pods, /apis/g/v/kind) rather than one object.
func isList(p string) bool {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	n := len(parts)
	switch parts[0] {
	case "api":
		n -= 2
	case "apis":
		n -= 3
	}
	// what is left: [namespaces ns] kind [name [subresource]]
	if n >= 2 && parts[len(parts)-n] == "namespaces" {
		n -= 2
	}
	return n == 1
}

func (rc *requestCounter) reset() map[string]int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	out := rc.counts
	rc.counts = map[string]int{}
	return out
}

func writes(counts map[string]int) int {
	return counts[http.MethodPost] + counts[http.MethodPut] + counts[http.MethodPatch] + counts[http.MethodDelete]
}

// TestReconcileUnchangedWritesNothing: once Calico is installed, the decision of an unchanged
// cluster is empty and a reconcile (what calico-pilot manage runs, and apply without --dry-run) sends
// no write request at all (no server-side apply, no dry run, no Lease, no state), only reads; the
// number of reads is pinned, so that a change that reads more shows here.
func TestReconcileUnchangedWritesNothing(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	ctx := context.Background()
	if code, out, errOut := cl.apply(ctx, minimalFile); code != 0 {
		t.Fatalf("install: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	counter := &requestCounter{counts: map[string]int{}}
	cfg := rest.CopyConfig(cl.cp.Config)
	cfg.QPS, cfg.Burst = 1000, 1000
	cfg.Wrap(counter.RoundTrip)
	scheme, err := testenv.NewScheme(clientgoscheme.AddToScheme, calicov1.AddToScheme, apiextensionsv1.AddToScheme)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	a, req := applierFor(t, ctx, c, minimalFile)
	counter.reset()
	for i := range 3 {
		var out bytes.Buffer
		req.Out = &out
		d, err := a.Reconcile(ctx, req)
		if err != nil {
			t.Fatalf("reconcile %d: %v\n%s", i, err, out.String())
		}
		counts := counter.reset()
		if !d.Empty() || writes(counts) != 0 {
			var b strings.Builder
			d.Print(&b)
			t.Fatalf("reconcile %d of an unchanged cluster: empty %v, requests %v\n%s", i, d.Empty(), counts, b.String())
		}
		var verbs []string
		for v, n := range counts {
			verbs = append(verbs, v+"="+strconv.Itoa(n))
		}
		sort.Strings(verbs)
		t.Logf("reconcile %d: %s", i, strings.Join(verbs, " "))
		// The reads: the install (workloads, configuration, pools, blocks, pods, CRDs, the operator's
		// resources), the state, each rendered object once, the pools and the live checks.
		if reads := counts[http.MethodGet] + counts["LIST"]; reads > readBudget {
			t.Errorf("reconcile %d read %d times, more than the budget of %d", i, reads, readBudget)
		}
	}
}

// readBudget is the most reads a reconcile of the minimal cluster file's unchanged install may send:
// measured 71 GETs (the install's objects, the state, each of the 63 rendered objects once) and 5
// LISTs (pools, IPAM blocks, pods, CRDs), one LIST more on the first reconcile (the client's
// discovery of the kinds), with room for one more read now and then (a second IPAM block list seen
// once in the manage suite).
const readBudget = 78

// applierFor builds the applier and request apply -f file would, on client c.
func applierFor(t *testing.T, ctx context.Context, c client.Client, file string) (*standalone.Applier, standalone.Request) {
	t.Helper()
	f, cfg, errs := standalone.ReadFile("cluster.yaml", []byte(file))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	obs, err := standalone.Observe(ctx, c, "")
	if err != nil {
		t.Fatal(err)
	}
	facts, errs := standalone.Complete(f.Facts, obs)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	enc, err := pipeline.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	vector, err := imagevector.LoadVector(nil)
	if err != nil {
		t.Fatal(err)
	}
	a := &standalone.Applier{Client: c, Encoder: enc, Catalogue: calicoversion.Default(), Vector: vector, Now: time.Now, Poll: 100 * time.Millisecond}
	return a, standalone.Request{Config: cfg, Facts: facts, Timeout: 30 * time.Second, Identity: "test"}
}

// TestReconcileRenewsTyphaCertificate: after a takeover, calico-node's Typha client certificate 10 days
// before its end is renewed by the next reconcile (what calico-pilot manage runs every 5 minutes) with
// the adopted CA, Felix and Typha trusting each other before and after; the reconcile after writes
// nothing.
func TestReconcileRenewsTyphaCertificate(t *testing.T) {
	cl := newCluster(t)
	cl.kubeadm()
	op := cl.operatorInstall(operatorOptions{})
	ctx := context.Background()
	file := exampleFile(t)
	if code, out, errOut := cl.apply(ctx, file, "--adopt"); code != 0 {
		t.Fatalf("apply --adopt: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	ca := op.CA
	due := calicotlstest.OperatorLeaf(t, &ca, []string{"typha-client"}, time.Now().Add(-815*24*time.Hour), 825*24*time.Hour)
	sec := &corev1.Secret{}
	sec.Namespace, sec.Name = "calico-system", "node-certs"
	cl.edit(sec, "test", func() {
		sec.Data = map[string][]byte{corev1.TLSCertKey: due.CertPEM, corev1.TLSPrivateKeyKey: due.KeyPEM}
	})
	if err := op.typhaTLSConsistent(t, cl); err != nil {
		t.Fatalf("before the renewal: %v", err)
	}
	a, req := applierFor(t, ctx, cl.c, file)
	var out bytes.Buffer
	req.Out = &out
	d, err := a.Reconcile(ctx, req)
	if err != nil || d.Empty() {
		t.Fatalf("reconcile with node-certs due: empty %v, %v\n%s", d != nil && d.Empty(), err, out.String())
	}
	if err := cl.c.Get(ctx, client.ObjectKeyFromObject(sec), sec); err != nil {
		t.Fatal(err)
	}
	cert, err := calicotls.ParseCertificate(sec.Data[corev1.TLSCertKey])
	if err != nil {
		t.Fatal(err)
	}
	if time.Until(cert.NotAfter) < 100*24*time.Hour {
		t.Errorf("node-certs was not renewed: valid until %s\n%s", cert.NotAfter, out.String())
	}
	if err := op.typhaTLSConsistent(t, cl); err != nil {
		t.Errorf("after the renewal: %v", err)
	}
	out.Reset()
	if d, err = a.Reconcile(ctx, req); err != nil || !d.Empty() {
		t.Errorf("the reconcile after the renewal: empty %v, %v\n%s", d != nil && d.Empty(), err, out.String())
	}
}
