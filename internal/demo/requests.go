package demo

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
)

// writeCounter counts the controller's write requests (POST, PUT, PATCH, DELETE) by resource, so the
// demo can show that an unchanged reconcile writes no Secret and no ManagedResource.
type writeCounter struct {
	mu     sync.Mutex
	writes map[string]int
}

type countingTransport struct {
	c    *writeCounter
	next http.RoundTripper
}

func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	switch req.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		t.c.mu.Lock()
		t.c.writes[resourceOf(req.URL.Path)]++
		t.c.mu.Unlock()
	}
	return t.next.RoundTrip(req)
}

func (c *writeCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return countingTransport{c: c, next: rt}
}

func (c *writeCounter) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.writes))
	for k, v := range c.writes {
		out[k] = v
	}
	return out
}

// since returns the writes per resource after before.
func (c *writeCounter) since(before map[string]int) map[string]int {
	diff := map[string]int{}
	for k, v := range c.snapshot() {
		if d := v - before[k]; d > 0 {
			diff[k] = d
		}
	}
	return diff
}

// formatWrites prints counts as "resource n, ..." sorted by resource.
func formatWrites(diff map[string]int) string {
	keys := make([]string, 0, len(diff))
	for k := range diff {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, diff[k])
	}
	return strings.Join(parts, ", ")
}

// resourceOf extracts "resource[/subresource]" from an API path.
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
