package controller

import (
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/miekg/dns"
)

// dnsServer is a real DNS server on loopback whose answers a test can change while it serves.
type dnsServer struct {
	mu      sync.Mutex
	records map[string][]dns.RR
	silent  bool
	addr    string
	queries int
}

// startDNS serves on 127.0.0.1 (UDP) until the test ends.
func startDNS(t *testing.T) *dnsServer {
	t.Helper()
	s := &dnsServer{records: map[string][]dns.RR{}}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = pc.LocalAddr().String()
	srv := &dns.Server{PacketConn: pc, Handler: s}
	started := make(chan struct{})
	srv.NotifyStartedFunc = func() { close(started) }
	go func() { _ = srv.ActivateAndServe() }()
	<-started
	t.Cleanup(func() { _ = srv.Shutdown() })
	return s
}

// set replaces the records of the names in rrs (zone-file lines).
func (s *dnsServer) set(t *testing.T, rrs ...string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	fresh := map[string]bool{}
	for _, line := range rrs {
		rr, err := dns.NewRR(line)
		if err != nil {
			t.Fatalf("record %q: %v", line, err)
		}
		name := strings.ToLower(rr.Header().Name)
		if !fresh[name] {
			s.records[name] = nil
			fresh[name] = true
		}
		s.records[name] = append(s.records[name], rr)
	}
}

// queryCount is how many queries the server has received.
func (s *dnsServer) queryCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries
}

// setSilent makes the server read queries and never answer.
func (s *dnsServer) setSilent(silent bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.silent = silent
}

// ServeDNS answers from the records, following CNAMEs within the zone.
func (s *dnsServer) ServeDNS(w dns.ResponseWriter, req *dns.Msg) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queries++
	if s.silent || len(req.Question) != 1 {
		return
	}
	q := req.Question[0]
	m := new(dns.Msg)
	m.SetReply(req)
	m.RecursionAvailable = true
	name := strings.ToLower(q.Name)
	for range 8 {
		rrs, ok := s.records[name]
		if !ok {
			break
		}
		next := ""
		for _, rr := range rrs {
			switch {
			case rr.Header().Rrtype == q.Qtype:
				m.Answer = append(m.Answer, rr)
			case rr.Header().Rrtype == dns.TypeCNAME:
				m.Answer = append(m.Answer, rr)
				next = strings.ToLower(rr.(*dns.CNAME).Target)
			}
		}
		if next == "" {
			break
		}
		name = next
	}
	if len(m.Answer) == 0 {
		if _, ok := s.records[strings.ToLower(q.Name)]; !ok {
			m.Rcode = dns.RcodeNameError
		}
	}
	_ = w.WriteMsg(m)
}
