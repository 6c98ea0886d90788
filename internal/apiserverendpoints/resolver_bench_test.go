package apiserverendpoints_test

import (
	"context"
	"testing"

	"github.com/miekg/dns"

	"github.com/calico-pilot/calico-pilot/internal/apiserverendpoints"
	"github.com/calico-pilot/calico-pilot/internal/apiserverendpoints/dnstest"
)

// BenchmarkResolve measures DNSResolver.Resolve of a two-link CNAME chain (an A and an AAAA query)
// against a loopback server. BenchmarkResolveBaselineExchange is one plain miekg/dns exchange to
// the same server in the same run: Resolve should cost about two of them.
func BenchmarkResolve(b *testing.B) {
	server := dnstest.Start(b, dnstest.NewZone(b, records...))
	r, err := apiserverendpoints.NewDNSResolver(apiserverendpoints.DNSResolverConfig{Servers: []string{server}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Resolve(ctx, "lb.example.com"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResolveBaselineExchange(b *testing.B) {
	server := dnstest.Start(b, dnstest.NewZone(b, records...))
	c := &dns.Client{Net: "udp"}
	msg := new(dns.Msg)
	msg.SetQuestion("lb.example.com.", dns.TypeA)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := c.ExchangeContext(ctx, msg, server); err != nil {
			b.Fatal(err)
		}
	}
}
