package testenv

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResourceOf(t *testing.T) {
	tests := []struct {
		path string
		want string
	}{
		{path: "/api/v1/namespaces/shoot--a--b/secrets", want: "secrets"},
		{path: "/api/v1/namespaces/shoot--a--b/secrets/s1", want: "secrets"},
		{path: "/api/v1/namespaces", want: "namespaces"},
		{path: "/api/v1/namespaces/shoot--a--b", want: "namespaces"},
		{path: "/api/v1/nodes/n1/status", want: "nodes/status"},
		{path: "/apis/extensions.gardener.cloud/v1alpha1/namespaces/shoot--a--b/networks/demo/status", want: "networks/status"},
		{path: "/apis/resources.gardener.cloud/v1alpha1/namespaces/shoot--a--b/managedresources", want: "managedresources"},
		{path: "/apis/coordination.k8s.io/v1/namespaces/ns/leases/l1", want: "leases"},
		{path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/x.example.com", want: "customresourcedefinitions"},
		{path: "/api/v1", want: "/api/v1"},
		{path: "/apis/apps/v1", want: "/apis/apps/v1"},
		{path: "/healthz", want: "/healthz"},
	}
	for _, tt := range tests {
		if got := resourceOf(tt.path); got != tt.want {
			t.Errorf("resourceOf(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

// sender returns a function that sends a request with method to url+path through counter.
func sender(t *testing.T, url string, counter *WriteCounter) func(method, path string) {
	hc := &http.Client{Transport: counter.Wrap(http.DefaultTransport)}
	return func(method, path string) {
		t.Helper()
		req, err := http.NewRequest(method, url+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		if err := resp.Body.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWriteCounter sends real HTTP requests through a wrapped transport to a loopback server and
// checks that only writes are counted, by resource, and that Since reports what came after a snapshot.
func TestWriteCounter(t *testing.T) {
	var served atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		served.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)

	var counter WriteCounter // the zero value is ready to use
	send := sender(t, srv.URL, &counter)

	send(http.MethodGet, "/api/v1/namespaces/ns/secrets/s1")
	send(http.MethodPost, "/api/v1/namespaces/ns/secrets")
	send(http.MethodPut, "/apis/extensions.gardener.cloud/v1alpha1/namespaces/ns/networks/n/status")
	before := counter.Snapshot()
	send(http.MethodPatch, "/apis/extensions.gardener.cloud/v1alpha1/namespaces/ns/networks/n/status")
	send(http.MethodDelete, "/api/v1/namespaces/ns/secrets/s1")
	send(http.MethodGet, "/apis/extensions.gardener.cloud/v1alpha1/namespaces/ns/networks/n")
	send(http.MethodPatch, "/apis/extensions.gardener.cloud/v1alpha1/namespaces/ns/networks/n")

	if got := served.Load(); got != 7 {
		t.Errorf("server saw %d requests, want 7 (the counter must pass every request on)", got)
	}
	if diff := cmp.Diff(map[string]int{"secrets": 1, "networks/status": 1}, before); diff != "" {
		t.Errorf("snapshot (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"secrets": 2, "networks/status": 2, "networks": 1}, counter.Snapshot()); diff != "" {
		t.Errorf("all writes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"secrets": 1, "networks/status": 1, "networks": 1}, counter.Since(before)); diff != "" {
		t.Errorf("writes since the snapshot (-want +got):\n%s", diff)
	}
	before["secrets"] = 99 // a snapshot is a copy
	if got := counter.Snapshot()["secrets"]; got != 2 {
		t.Errorf("changing a snapshot changed the counter: secrets %d, want 2", got)
	}
}

// TestRequestCounter checks the counts by verb and resource: reads are counted, an informer's
// list and watch are not, and RequestsSince reports what came after a snapshot.
func TestRequestCounter(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	t.Cleanup(srv.Close)
	counter := NewWriteCounter()
	send := sender(t, srv.URL, counter)
	const nets = "/apis/extensions.gardener.cloud/v1alpha1/namespaces/ns/networks"
	send(http.MethodGet, nets+"?resourceVersion=0&limit=500")                         // informer list: not counted
	send(http.MethodGet, nets+"?watch=true&resourceVersion=7")                        // informer watch: not counted
	send(http.MethodGet, "/apis/extensions.gardener.cloud/v1alpha1/networks?watch=1") // watch: not counted
	send(http.MethodGet, nets+"?sendInitialEvents=true&watch=true")                   // watch-list: not counted
	before := counter.Requests()
	send(http.MethodGet, nets+"/n")
	send(http.MethodGet, "/apis/extensions.gardener.cloud/v1alpha1/namespaces/ns/dnsrecords?labelSelector=a%3Db")
	send(http.MethodPost, "/api/v1/namespaces/ns/secrets")
	send(http.MethodPatch, nets+"/n/status")
	send(http.MethodPut, "/apis/resources.gardener.cloud/v1alpha1/namespaces/ns/managedresources/mr")
	send(http.MethodDelete, "/api/v1/namespaces/ns/secrets/s1")
	send(http.MethodDelete, "/api/v1/namespaces/ns/secrets")
	want := map[string]int{
		"get networks": 1, "list dnsrecords": 1, "create secrets": 1, "patch networks/status": 1,
		"update managedresources": 1, "delete secrets": 1, "deletecollection secrets": 1,
	}
	got := counter.RequestsSince(before)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests since the snapshot (-want +got):\n%s", diff)
	}
	if len(before) != 0 {
		t.Errorf("informer list and watch were counted: %v", before)
	}
	if r, w := Reads(got), Writes(got); r != 2 || w != 5 {
		t.Errorf("Reads, Writes = %d, %d, want 2, 5", r, w)
	}
	if diff := cmp.Diff(map[string]int{"secrets": 3, "networks/status": 1, "managedresources": 1}, counter.Snapshot()); diff != "" {
		t.Errorf("writes by resource (-want +got):\n%s", diff)
	}
}
