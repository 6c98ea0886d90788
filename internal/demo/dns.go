package demo

import (
	"fmt"
	"net"
	"strings"

	"github.com/miekg/dns"
)

// loopbackDNS plays the seed's DNS for the demo: it answers the load balancer hostname of the
// external DNSRecord.
type loopbackDNS struct {
	records map[string][]dns.RR
	server  *dns.Server
	addr    string
}

// startDNS serves records (zone-file lines) on 127.0.0.1 over UDP.
func startDNS(lines ...string) (*loopbackDNS, error) {
	d := &loopbackDNS{records: map[string][]dns.RR{}}
	for _, l := range lines {
		rr, err := dns.NewRR(l)
		if err != nil {
			return nil, fmt.Errorf("demo DNS record %q: %w", l, err)
		}
		name := strings.ToLower(rr.Header().Name)
		d.records[name] = append(d.records[name], rr)
	}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("starting demo DNS server: %w", err)
	}
	d.addr = pc.LocalAddr().String()
	d.server = &dns.Server{PacketConn: pc, Handler: d}
	started := make(chan struct{})
	d.server.NotifyStartedFunc = func() { close(started) }
	errc := make(chan error, 1)
	go func() { errc <- d.server.ActivateAndServe() }()
	select {
	case <-started:
	case err := <-errc:
		return nil, fmt.Errorf("starting demo DNS server: %w", err)
	}
	return d, nil
}

// ServeDNS answers the records of the asked name and type.
func (d *loopbackDNS) ServeDNS(w dns.ResponseWriter, req *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(req)
	m.RecursionAvailable = true
	if len(req.Question) == 1 {
		q := req.Question[0]
		rrs, ok := d.records[strings.ToLower(q.Name)]
		for _, rr := range rrs {
			if rr.Header().Rrtype == q.Qtype {
				m.Answer = append(m.Answer, rr)
			}
		}
		if !ok {
			m.Rcode = dns.RcodeNameError
		}
	}
	_ = w.WriteMsg(m)
}

func (d *loopbackDNS) stop() error { return d.server.Shutdown() }
