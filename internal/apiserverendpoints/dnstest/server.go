package dnstest

import (
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/miekg/dns"
)

// Zone is the data and behaviour of a test DNS server. Its methods may be called while it serves.
type Zone struct {
	mu          sync.Mutex
	records     map[string][]dns.RR
	rcodes      map[string]int
	failFirst   map[string]int
	noRecursion map[string]bool
	truncate    map[string]bool
	silent      bool
	queries     map[string]int
}

// NewZone returns a zone holding records, given as zone-file lines such as
// "lb.example.com. 60 IN A 192.0.2.1". It fails the test on a line that does not parse.
func NewZone(t testing.TB, records ...string) *Zone {
	t.Helper()
	z := &Zone{
		records: map[string][]dns.RR{}, rcodes: map[string]int{}, failFirst: map[string]int{},
		noRecursion: map[string]bool{}, truncate: map[string]bool{}, queries: map[string]int{},
	}
	for _, line := range records {
		rr, err := dns.NewRR(line)
		if err != nil || rr == nil {
			t.Fatalf("dnstest: record %q: %v", line, err)
		}
		name := dns.CanonicalName(rr.Header().Name)
		z.records[name] = append(z.records[name], rr)
	}
	return z
}

// Rcode makes every query for name answer rcode (e.g. dns.RcodeServerFailure).
func (z *Zone) Rcode(name string, rcode int) *Zone {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.rcodes[dns.CanonicalName(name)] = rcode
	return z
}

// FailFirst makes the first n queries for name (any type) answer SERVFAIL.
func (z *Zone) FailFirst(name string, n int) *Zone {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.failFirst[dns.CanonicalName(name)] = n
	return z
}

// NoRecursion makes answers stop after a CNAME owned by name, as an authoritative server of another
// zone would: the client has to ask for the target itself.
func (z *Zone) NoRecursion(name string) *Zone {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.noRecursion[dns.CanonicalName(name)] = true
	return z
}

// Truncate makes UDP answers for name empty and truncated; TCP answers are complete.
func (z *Zone) Truncate(name string) *Zone {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.truncate[dns.CanonicalName(name)] = true
	return z
}

// Silent makes the server read queries and never answer.
func (z *Zone) Silent() *Zone {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.silent = true
	return z
}

// Queries returns how many queries for name of type qtype ("A", "AAAA") arrived.
func (z *Zone) Queries(name, qtype string) int {
	z.mu.Lock()
	defer z.mu.Unlock()
	return z.queries[dns.CanonicalName(name)+" "+qtype]
}

// ServeDNS implements dns.Handler.
func (z *Zone) ServeDNS(w dns.ResponseWriter, req *dns.Msg) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if len(req.Question) != 1 {
		return
	}
	q := req.Question[0]
	name := dns.CanonicalName(q.Name)
	z.queries[name+" "+dns.TypeToString[q.Qtype]]++
	if z.silent {
		return
	}
	m := new(dns.Msg)
	m.SetReply(req)
	m.RecursionAvailable = true
	switch {
	case z.failFirst[name] > 0:
		z.failFirst[name]--
		m.Rcode = dns.RcodeServerFailure
	case z.rcodes[name] != 0:
		m.Rcode = z.rcodes[name]
	case z.truncate[name] && isUDP(w):
		m.Truncated = true
	default:
		z.answer(m, name, q.Qtype)
	}
	_ = w.WriteMsg(m)
}

// answer fills m like a recursive resolver: CNAMEs are followed inside the zone.
func (z *Zone) answer(m *dns.Msg, name string, qtype uint16) {
	for depth := 0; depth < 16; depth++ {
		rrs, ok := z.records[name]
		if !ok {
			// Also at the end of a chain: resolvers answer NXDOMAIN together with the CNAMEs.
			m.Rcode = dns.RcodeNameError
			return
		}
		var cname *dns.CNAME
		for _, rr := range rrs {
			if c, ok := rr.(*dns.CNAME); ok && qtype != dns.TypeCNAME {
				cname = c
			}
		}
		if cname != nil {
			m.Answer = append(m.Answer, dns.Copy(cname))
			if z.noRecursion[name] {
				return
			}
			name = dns.CanonicalName(cname.Target)
			continue
		}
		for _, rr := range rrs {
			if rr.Header().Rrtype == qtype {
				m.Answer = append(m.Answer, dns.Copy(rr))
			}
		}
		return
	}
}

func isUDP(w dns.ResponseWriter) bool {
	_, ok := w.LocalAddr().(*net.UDPAddr)
	return ok
}

// Start serves z on 127.0.0.1 over UDP and TCP on the same free port until the test ends, and
// returns the address (host:port).
func Start(t testing.TB, z *Zone) string {
	t.Helper()
	var lastErr error
	for range 10 {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("dnstest: listening on UDP: %v", err)
		}
		addr := pc.LocalAddr().String()
		l, err := net.Listen("tcp", addr)
		if err != nil {
			// The port is taken for TCP: try another one.
			_ = pc.Close()
			lastErr = err
			continue
		}
		serve(t, &dns.Server{PacketConn: pc, Handler: z})
		serve(t, &dns.Server{Listener: l, Handler: z})
		return addr
	}
	t.Fatalf("dnstest: no port free for both UDP and TCP: %v", lastErr)
	return ""
}

func serve(t testing.TB, srv *dns.Server) {
	started := make(chan struct{})
	srv.NotifyStartedFunc = func() { close(started) }
	errc := make(chan error, 1)
	go func() { errc <- srv.ActivateAndServe() }()
	select {
	case <-started:
	case err := <-errc:
		t.Fatalf("dnstest: serving: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Shutdown(); err != nil && !strings.Contains(err.Error(), "not started") {
			t.Errorf("dnstest: shutting down: %v", err)
		}
	})
}
