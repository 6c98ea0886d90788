package testenv

import (
	"maps"
	"net/http"
	"strings"
	"sync"
)

// WriteCounter counts the write requests (POST, PUT, PATCH, DELETE) that clients send through the
// transports it wraps, by resource: "secrets", "networks/status", ... It lets a test or the demo
// show which writes a reconcile made (an unchanged reconcile writes no Secret and no
// ManagedResource). The zero value is ready to use; it is safe for concurrent use.
type WriteCounter struct {
	mu     sync.Mutex
	writes map[string]int
}

// NewWriteCounter returns a counter with no writes counted.
func NewWriteCounter() *WriteCounter {
	return &WriteCounter{writes: map[string]int{}}
}

// Wrap returns rt with every write request counted; it fits rest.Config.Wrap.
func (c *WriteCounter) Wrap(rt http.RoundTripper) http.RoundTripper {
	return countingTransport{counter: c, next: rt}
}

// Snapshot returns a copy of the counts so far.
func (c *WriteCounter) Snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.writes))
	maps.Copy(out, c.writes)
	return out
}

// Since returns the writes per resource made after the snapshot before; resources without new
// writes are left out.
func (c *WriteCounter) Since(before map[string]int) map[string]int {
	diff := map[string]int{}
	for k, v := range c.Snapshot() {
		if d := v - before[k]; d > 0 {
			diff[k] = d
		}
	}
	return diff
}

func (c *WriteCounter) count(req *http.Request) {
	switch req.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		c.mu.Lock()
		if c.writes == nil {
			c.writes = map[string]int{}
		}
		c.writes[resourceOf(req.URL.Path)]++
		c.mu.Unlock()
	}
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
	parts := strings.Split(strings.Trim(path, "/"), "/")
	var rest []string
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		rest = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		rest = parts[3:]
	default:
		return path
	}
	if len(rest) > 2 && rest[0] == "namespaces" {
		rest = rest[2:]
	}
	switch {
	case len(rest) == 0:
		return path
	case len(rest) >= 3:
		return rest[0] + "/" + rest[2]
	default:
		return rest[0]
	}
}
