package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/certwatcher"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
)

// Limits of the webhook server. Together they bound its memory by design, whatever clients do:
// at most MaxConnections connections are open (each costs a few tens of KiB of buffers, since a
// body is only read by a request holding an in-flight slot), at most MaxInFlight requests read and
// decode a body at once (each at most MaxRequestBytes, about 4× that once decoded), and a request
// has ReadTimeout to send its body once it holds a slot. So the webhook's heap stays below about
// MaxInFlight × 4 × MaxRequestBytes + MaxConnections × 64 KiB ≈ 130 MiB above its idle ~30 MiB
// (docs/admission.md, "Limits").
const (
	// MaxConnections is how many client connections are open at once; more wait in the kernel's
	// accept queue until one closes.
	MaxConnections = 64
	// MaxInFlight is how many requests read and decide their AdmissionReview at once. Deciding one
	// takes about a millisecond, so the API server rarely waits.
	MaxInFlight = 4
	// QueueTimeout is how long a request waits for an in-flight slot before it is answered 503.
	QueueTimeout = 5 * time.Second
	// ReadTimeout is how long a request holding a slot may take to send its body (a body sent at
	// one byte per 20 s used to hold memory for 200 s), and ReadHeaderTimeout its headers.
	ReadTimeout       = 10 * time.Second
	ReadHeaderTimeout = 10 * time.Second
	// IdleTimeout closes a keep-alive connection that sends no request.
	IdleTimeout = 30 * time.Second
	// DrainPeriod is how long a stopping server keeps serving before it shuts down: the pod has
	// been sent SIGTERM while the Service's endpoints still name it (their removal reaches every
	// API server only after a moment), so it keeps accepting connections, and it answers every
	// request with "Connection: close", so that each client's next request opens a new connection
	// to a pod that is not stopping. Closing idle keep-alive connections at once instead races the
	// API server's next request on them (a broken pipe is a failed admission call). It must stay
	// below the pod's termination grace period (30 s by default).
	DrainPeriod = 10 * time.Second
)

// ServerOptions configure a Server. Zero limits take the package's defaults; tests shorten them.
type ServerOptions struct {
	// Host and Port are where the server listens; CertDir holds tls.crt and tls.key, reloaded
	// when they change.
	Host    string
	Port    int
	CertDir string

	MaxConnections    int
	MaxInFlight       int
	QueueTimeout      time.Duration
	ReadTimeout       time.Duration
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	DrainPeriod       time.Duration
}

func (o *ServerOptions) defaults() {
	setInt := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	setDur := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	setInt(&o.MaxConnections, MaxConnections)
	setInt(&o.MaxInFlight, MaxInFlight)
	setDur(&o.QueueTimeout, QueueTimeout)
	setDur(&o.ReadTimeout, ReadTimeout)
	setDur(&o.ReadHeaderTimeout, ReadHeaderTimeout)
	setDur(&o.IdleTimeout, IdleTimeout)
	setDur(&o.DrainPeriod, DrainPeriod)
}

// Server serves the webhook over HTTPS (HTTP/1.1) with the limits above. It replaces
// controller-runtime's webhook server, which sets no body read timeout and limits neither
// connections nor concurrent requests (measured: 120 connections each sending ~7 MB and stalling
// took the webhook to 1.07 GB).
type Server struct {
	opts    ServerOptions
	mux     *http.ServeMux
	started atomic.Bool
	addr    atomic.Value // string: where it listens, once started
}

// NewServer returns a server for opts.
func NewServer(opts ServerOptions) *Server {
	opts.defaults()
	return &Server{opts: opts, mux: http.NewServeMux()}
}

// Register serves h at path, behind the in-flight limit, with controller-runtime's request metrics.
func (s *Server) Register(path string, h http.Handler) {
	s.mux.Handle(path, instrumented(path, limitInFlight(h, s.opts.MaxInFlight, s.opts.QueueTimeout, s.opts.ReadTimeout)))
}

// Start serves until ctx is done, then drains for DrainPeriod (still accepting, every answer with
// "Connection: close"), then shuts down (waiting up to a minute for requests in flight). Requests
// get a context that ends only when the server has shut down, not when ctx ends: a request served
// while draining is decided like any other.
func (s *Server) Start(ctx context.Context) error {
	cw, err := certwatcher.New(filepath.Join(s.opts.CertDir, "tls.crt"), filepath.Join(s.opts.CertDir, "tls.key"))
	if err != nil {
		return fmt.Errorf("loading the serving certificate from %s: %w", s.opts.CertDir, err)
	}
	go func() { _ = cw.Start(ctx) }() //nolint:errcheck // it only ends with ctx
	ln, err := net.Listen("tcp", net.JoinHostPort(s.opts.Host, strconv.Itoa(s.opts.Port)))
	if err != nil {
		return err
	}
	s.addr.Store(ln.Addr().String())
	// HTTP/1.1 only: one request per connection at a time, so MaxConnections also bounds the
	// requests waiting for a slot (HTTP/2 would multiplex hundreds over one connection).
	tlsLn := tls.NewListener(limitListener(ln, s.opts.MaxConnections), &tls.Config{
		MinVersion:     tls.VersionTLS12,
		NextProtos:     []string{"http/1.1"},
		GetCertificate: cw.GetCertificate,
	})
	var draining atomic.Bool
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if draining.Load() {
			w.Header().Set("Connection", "close")
		}
		s.mux.ServeHTTP(w, r)
	})
	base, cancelBase := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelBase()
	srv := &http.Server{
		Handler:           handler,
		BaseContext:       func(net.Listener) context.Context { return base },
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		IdleTimeout:       s.opts.IdleTimeout,
		WriteTimeout:      s.opts.QueueTimeout + s.opts.ReadTimeout + 30*time.Second,
		MaxHeaderBytes:    64 << 10,
		TLSNextProto:      map[string]func(*http.Server, *tls.Conn, http.Handler){}, // no HTTP/2
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		draining.Store(true)
		time.Sleep(s.opts.DrainPeriod)
		shutdown, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = srv.Shutdown(shutdown) //nolint:errcheck // shutting down anyway
	}()
	s.started.Store(true)
	if err := srv.Serve(tlsLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	<-done
	return nil
}

// Addr is where the server listens (host:port), "" before Start listens.
func (s *Server) Addr() string {
	a, _ := s.addr.Load().(string)
	return a
}

// StartedChecker is healthy once the server accepts TLS connections.
func (s *Server) StartedChecker() healthz.Checker {
	return func(*http.Request) error {
		if !s.started.Load() {
			return errors.New("webhook server has not been started yet")
		}
		_, port, _ := net.SplitHostPort(s.Addr())
		host := s.opts.Host
		if host == "" {
			host = "localhost"
		}
		d := &net.Dialer{Timeout: 10 * time.Second}
		conn, err := tls.DialWithDialer(d, "tcp", net.JoinHostPort(host, port), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // only checks that TLS is served
		if err != nil {
			return fmt.Errorf("webhook server is not reachable: %w", err)
		}
		return conn.Close()
	}
}

// limitInFlight lets at most n requests past at once. A request waits up to wait for a slot (its
// body unread, so waiting costs no memory), then has read to send its body: the connection's read
// deadline enforces both, for a client that stalls before or after it gets a slot.
func limitInFlight(h http.Handler, n int, wait, read time.Duration) http.Handler {
	slots := make(chan struct{}, n)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Now().Add(wait + read)) //nolint:errcheck // best effort: not every writer supports deadlines
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case slots <- struct{}{}:
		case <-t.C:
			http.Error(w, fmt.Sprintf("the webhook is busy: %d requests are in flight; retry", n), http.StatusServiceUnavailable)
			return
		case <-r.Context().Done():
			return
		}
		defer func() { <-slots }()
		_ = rc.SetReadDeadline(time.Now().Add(read)) //nolint:errcheck // as above
		h.ServeHTTP(w, r)
	})
}

// limitListener accepts at most n connections at once; Accept waits until one closes (or the
// listener is closed).
func limitListener(l net.Listener, n int) net.Listener {
	return &limitedListener{Listener: l, slots: make(chan struct{}, n), closed: make(chan struct{})}
}

type limitedListener struct {
	net.Listener
	slots     chan struct{}
	closed    chan struct{}
	closeOnce sync.Once
}

func (l *limitedListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.closed:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitedConn{Conn: c, release: func() { <-l.slots }}, nil
}

func (l *limitedListener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
