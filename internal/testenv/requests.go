package testenv

import (
	"maps"
	"net/http"
	"strings"
	"sync"
)

// WriteCounter counts the requests that clients send through the transports it wraps. Writes
// (POST, PUT, PATCH, DELETE) are counted by resource: "secrets", "networks/status", ... (Snapshot,
// Since). Every request except an informer's list and watch is also counted by verb and resource:
// "get secrets", "create networks/status", "list dnsrecords" (Requests, RequestsSince). It lets a
// test or the demo show which requests a reconcile made. The zero value is ready to use; it is
// safe for concurrent use.
type WriteCounter struct {
	mu       sync.Mutex
	writes   map[string]int
	requests map[string]int
}

// NewWriteCounter returns a counter with nothing counted.
func NewWriteCounter() *WriteCounter {
	return &WriteCounter{writes: map[string]int{}, requests: map[string]int{}}
}

// Requests returns a copy of the request counts so far, by "verb resource".
func (c *WriteCounter) Requests() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.requests)
}

// RequestsSince returns the requests by "verb resource" counted after the snapshot before (from
// Requests); keys without new requests are left out.
func (c *WriteCounter) RequestsSince(before map[string]int) map[string]int {
	return countsSince(c.Requests(), before)
}

// countsSince is now minus before, leaving out keys that did not grow.
func countsSince(now, before map[string]int) map[string]int {
	diff := map[string]int{}
	for k, v := range now {
		if d := v - before[k]; d > 0 {
			diff[k] = d
		}
	}
	return diff
}

// Total adds up the counts of m (from Since or RequestsSince).
func Total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// Reads adds up the counts of the get and list verbs in m (from RequestsSince).
func Reads(m map[string]int) int {
	n := 0
	for k, v := range m {
		if strings.HasPrefix(k, "get ") || strings.HasPrefix(k, "list ") {
			n += v
		}
	}
	return n
}

// Writes adds up the counts of every verb but get and list in m (from RequestsSince).
func Writes(m map[string]int) int { return Total(m) - Reads(m) }

// Wrap returns rt with every write request counted; it fits rest.Config.Wrap.
func (c *WriteCounter) Wrap(rt http.RoundTripper) http.RoundTripper {
	return countingTransport{counter: c, next: rt}
}

// Snapshot returns a copy of the counts so far.
func (c *WriteCounter) Snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.writes)
}

// Since returns the writes per resource made after the snapshot before; resources without new
// writes are left out.
func (c *WriteCounter) Since(before map[string]int) map[string]int {
	return countsSince(c.Snapshot(), before)
}

func (c *WriteCounter) count(req *http.Request) {
	resource := resourceOf(req.URL.Path)
	verb := verbOf(req)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch req.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		if c.writes == nil {
			c.writes = map[string]int{}
		}
		c.writes[resource]++
	}
	if verb == "" {
		return
	}
	if c.requests == nil {
		c.requests = map[string]int{}
	}
	c.requests[verb+" "+resource]++
}

// verbOf names the request's API verb; "" for an informer's list or watch, which are not counted
// by verb: a watch is open for the life of the informer, and an informer's list (resourceVersion
// "0" or a watch-list) is its start-up, not something a reconcile asked for.
func verbOf(req *http.Request) string {
	q := req.URL.Query()
	named := namesObject(req.URL.Path)
	switch req.Method {
	case http.MethodGet:
		switch {
		case q.Get("watch") == "true" || q.Get("watch") == "1":
			return ""
		case named:
			return "get"
		case q.Get("resourceVersion") == "0" || q.Has("sendInitialEvents"):
			return ""
		default:
			return "list"
		}
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		if named {
			return "delete"
		}
		return "deletecollection"
	default:
		return strings.ToLower(req.Method)
	}
}

// namesObject says whether an API path names one object (or its subresource) rather than a
// collection.
func namesObject(path string) bool {
	rest, ok := resourcePath(path)
	return ok && len(rest) >= 2
}

// resourcePath is an API path's parts after the group and version and, for a namespaced
// resource, after "namespaces/<name>": resource, name, subresource as far as the path goes. ok is
// false for a path outside /api and /apis.
func resourcePath(path string) (rest []string, ok bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		rest = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		rest = parts[3:]
	default:
		return nil, false
	}
	if len(rest) > 2 && rest[0] == "namespaces" {
		rest = rest[2:]
	}
	return rest, true
}

// countingTransport counts a request, then sends it on.
type countingTransport struct {
	counter *WriteCounter
	next    http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.counter.count(req)
	return t.next.RoundTrip(req)
}

// resourceOf extracts "resource[/subresource]" from an API path; a path that names no resource
// is returned as it is.
func resourceOf(path string) string {
	rest, ok := resourcePath(path)
	switch {
	case !ok || len(rest) == 0:
		return path
	case len(rest) >= 3:
		return rest[0] + "/" + rest[2]
	default:
		return rest[0]
	}
}
