package webhook

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// startServer runs the real webhook server on a free loopback port with short limits.
func startServer(t *testing.T, opts ServerOptions) *Server {
	t.Helper()
	opts.Host, opts.CertDir = "127.0.0.1", testenv.WriteServingCert(t)
	if opts.DrainPeriod == 0 {
		opts.DrainPeriod = 50 * time.Millisecond // TestServerDrainsBeforeShutdown checks the drain
	}
	s := NewServer(opts)
	s.Register(Path, NewHandler(logr.Discard()))
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- s.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("Start: %v", err)
		}
	})
	for deadline := time.Now().Add(10 * time.Second); s.Addr() == ""; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server did not listen")
		}
	}
	return s
}

func dial(t *testing.T, s *Server) *tls.Conn {
	t.Helper()
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", s.Addr(), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // test server
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// stall sends the headers of a 7 MB POST and a first chunk of its body, then nothing.
func stall(t *testing.T, c net.Conn) {
	t.Helper()
	if _, err := fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{\"kind\":", Path, 7<<20); err != nil {
		t.Fatal(err)
	}
}

// closedWithin says whether the server closes (or answers on) c within d.
func closedWithin(c net.Conn, d time.Duration) (time.Duration, bool) {
	start := time.Now()
	_ = c.SetReadDeadline(start.Add(d))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	if err != nil && (errorsAs(err, &ne) && ne.Timeout()) {
		return time.Since(start), false
	}
	return time.Since(start), true
}

func errorsAs(err error, target *net.Error) bool {
	ne, ok := err.(net.Error)
	if ok {
		*target = ne
	}
	return ok
}

// A body sent at one byte per 100 ms is cut at the read timeout (issue 21 finding 9: a body sent
// at one byte per 20 s held its connection and memory for 200 s).
func TestServerCutsASlowBody(t *testing.T) {
	s := startServer(t, ServerOptions{ReadTimeout: 300 * time.Millisecond, QueueTimeout: 200 * time.Millisecond})
	c := dial(t, s)
	stall(t, c)
	go func() {
		for range 100 {
			if _, err := c.Write([]byte(" ")); err != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	if took, closed := closedWithin(c, 5*time.Second); !closed {
		t.Fatalf("the slow request still holds its connection after %s (read timeout 300 ms)", took)
	}
}

// At most MaxInFlight requests read a body at once; one more waits QueueTimeout and is answered
// 503 without its body being read; once the stalled ones are cut, a real review is answered.
func TestServerLimitsRequestsInFlight(t *testing.T) {
	s := startServer(t, ServerOptions{MaxInFlight: 2, ReadTimeout: time.Second, QueueTimeout: 300 * time.Millisecond})
	for range 2 {
		stall(t, dial(t, s))
	}
	time.Sleep(100 * time.Millisecond) // both hold a slot
	c := dial(t, s)
	stall(t, c)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "the webhook is busy: 2 requests are in flight; retry") {
		t.Fatalf("third request: %d %q, want 503 busy", resp.StatusCode, body)
	}

	// The stalled ones are cut at the read timeout.
	time.Sleep(1200 * time.Millisecond)
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // test server
	review := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","kind":{"group":"","version":"v1","kind":"ConfigMap"},"resource":{"group":"","version":"v1","resource":"configmaps"},"operation":"CREATE","object":{}}}`
	r, err := client.Post("https://"+s.Addr()+Path, "application/json", strings.NewReader(review))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(r.Body)
	_ = r.Body.Close()
	if r.StatusCode != http.StatusOK || !strings.Contains(string(out), `"uid":"u1"`) {
		t.Fatalf("after the stalled requests: %d %s", r.StatusCode, out)
	}
}

// At most MaxConnections connections are served at once; the next handshake waits until one closes.
func TestServerLimitsConnections(t *testing.T) {
	s := startServer(t, ServerOptions{MaxConnections: 3})
	var conns []*tls.Conn
	for range 3 {
		conns = append(conns, dial(t, s))
	}
	raw, err := net.DialTimeout("tcp", s.Addr(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	extra := tls.Client(raw, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // test server
	_ = raw.SetDeadline(time.Now().Add(300 * time.Millisecond))
	if err := extra.Handshake(); err == nil {
		t.Fatal("a fourth connection was served while three were open")
	}
	_ = raw.Close()
	_ = conns[0].Close()
	c := dial(t, s) // served once a connection closed
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if err := c.Handshake(); err != nil {
		t.Fatalf("after a close: %v", err)
	}
}

// TestServerDrainsBeforeShutdown: after the stop signal the server keeps serving for its drain
// period, on kept-alive connections and on new ones (the Service's endpoints still name the pod for
// a moment), and answers with "Connection: close" so that clients move to another pod; requests
// decide as usual (their context is not the ended run context). Only then it stops listening.
func TestServerDrainsBeforeShutdown(t *testing.T) {
	s := NewServer(ServerOptions{Host: "127.0.0.1", CertDir: testenv.WriteServingCert(t), DrainPeriod: time.Second})
	s.Register(Path, NewHandler(logr.Discard()))
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- s.Start(ctx) }()
	defer cancel()
	for deadline := time.Now().Add(10 * time.Second); s.Addr() == ""; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server did not listen")
		}
	}
	review := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","kind":{"group":"core.gardener.cloud","version":"v1beta1","kind":"Shoot"},"operation":"DELETE","object":null}}`
	newClient := func() *http.Client {
		return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // test server
	}
	post := func(c *http.Client) *http.Response {
		t.Helper()
		resp, err := c.Post("https://"+s.Addr()+Path, "application/json", strings.NewReader(review))
		if err != nil {
			t.Fatalf("request: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"allowed":true`) {
			t.Fatalf("answer %d %s, want the review allowed", resp.StatusCode, body)
		}
		return resp
	}
	kept := newClient()
	if resp := post(kept); resp.Close {
		t.Fatal("before the stop the server closes the connection")
	}
	cancel()
	time.Sleep(100 * time.Millisecond)
	if resp := post(kept); !resp.Close {
		t.Error("draining: a request on a kept-alive connection is not answered with Connection: close")
	}
	if resp := post(newClient()); !resp.Close {
		t.Error("draining: a new connection is not answered with Connection: close")
	}
	select {
	case err := <-errc:
		t.Fatalf("the server stopped during its drain period: %v", err)
	default:
	}
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop after its drain period")
	}
	if c, err := net.DialTimeout("tcp", s.Addr(), time.Second); err == nil {
		_ = c.Close()
		t.Error("the server still accepts connections after shutting down")
	}
}
