package apiserverendpoints_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/miekg/dns"

	"github.com/calico-pilot/calico-pilot/internal/apiserverendpoints"
	"github.com/calico-pilot/calico-pilot/internal/apiserverendpoints/dnstest"
	"github.com/calico-pilot/calico-pilot/internal/testcheck"
)

func addrs(ss ...string) []netip.Addr {
	out := make([]netip.Addr, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParseAddr(s)
	}
	return out
}

var cmpAddrs = cmp.Comparer(func(a, b netip.Addr) bool { return a == b })

// records is the data every resolver test serves.
var records = []string{
	"v4.example.com. 300 IN A 192.0.2.20",
	"v4.example.com. 120 IN A 192.0.2.10",
	"v4.example.com. 300 IN A 192.0.2.10",
	"v6.example.com. 90 IN AAAA 2001:db8::2",
	"v6.example.com. 90 IN AAAA 2001:db8::1",
	"dual.example.com. 200 IN A 198.51.100.7",
	"dual.example.com. 100 IN AAAA 2001:db8::7",
	"lb.example.com. 600 IN CNAME lb-eu.cdn.example.net.",
	"lb-eu.cdn.example.net. 30 IN CNAME edge.cdn.example.net.",
	"edge.cdn.example.net. 45 IN A 203.0.113.5",
	"edge.cdn.example.net. 45 IN A 203.0.113.4",
	"edge.cdn.example.net. 50 IN AAAA 2001:db8:ee::1",
	"split.example.com. 300 IN CNAME target.other.example.",
	"target.other.example. 20 IN A 203.0.113.99",
	"dangling.example.com. 300 IN CNAME gone.example.net.",
	"loop-a.example.com. 300 IN CNAME loop-b.example.com.",
	"loop-b.example.com. 300 IN CNAME loop-a.example.com.",
	"c1.example.com. 300 IN CNAME c2.example.com.",
	"c2.example.com. 300 IN CNAME c3.example.com.",
	"c3.example.com. 300 IN CNAME c4.example.com.",
	"c4.example.com. 300 IN A 192.0.2.44",
	"txt-only.example.com. 300 IN TXT \"hello\"",
	"big.example.com. 77 IN A 192.0.2.77",
	"MiXeD.Example.COM. 60 IN A 192.0.2.61",
}

func TestDNSResolverResolve(t *testing.T) {
	tests := []struct {
		name string
		// zone adjusts the served zone.
		zone func(*dnstest.Zone)
		// silentFirst puts a server that never answers before the working one.
		silentFirst bool
		maxChain    int
		query       string
		want        apiserverendpoints.Resolution
		// wantErr is the exact error; {server} stands for the server's address.
		wantErr string
		// wantTimeout requires the error to be a timeout of the silent server.
		wantTimeout bool
	}{
		{
			name:  "A records, sorted and de-duplicated, shortest TTL",
			query: "v4.example.com",
			want:  apiserverendpoints.Resolution{Addrs: addrs("192.0.2.10", "192.0.2.20"), TTL: 120 * time.Second, Chain: []string{"v4.example.com."}},
		},
		{
			name:  "AAAA records only",
			query: "v6.example.com.",
			want:  apiserverendpoints.Resolution{Addrs: addrs("2001:db8::1", "2001:db8::2"), TTL: 90 * time.Second, Chain: []string{"v6.example.com."}},
		},
		{
			name:  "A and AAAA, IPv4 sorted first",
			query: "dual.example.com",
			want:  apiserverendpoints.Resolution{Addrs: addrs("198.51.100.7", "2001:db8::7"), TTL: 100 * time.Second, Chain: []string{"dual.example.com."}},
		},
		{
			name:  "CNAME chain answered in one response, TTL is the shortest link",
			query: "lb.example.com",
			want: apiserverendpoints.Resolution{
				Addrs: addrs("203.0.113.4", "203.0.113.5", "2001:db8:ee::1"),
				TTL:   30 * time.Second,
				Chain: []string{"lb.example.com.", "lb-eu.cdn.example.net.", "edge.cdn.example.net."},
			},
		},
		{
			name:  "CNAME answered alone, target asked in a second query",
			zone:  func(z *dnstest.Zone) { z.NoRecursion("split.example.com") },
			query: "split.example.com",
			want:  apiserverendpoints.Resolution{Addrs: addrs("203.0.113.99"), TTL: 20 * time.Second, Chain: []string{"split.example.com.", "target.other.example."}},
		},
		{
			name:  "names compare case-insensitively",
			query: "mixed.example.com",
			want:  apiserverendpoints.Resolution{Addrs: addrs("192.0.2.61"), TTL: 60 * time.Second, Chain: []string{"mixed.example.com."}},
		},
		{
			name:  "truncated UDP answer is asked again over TCP",
			zone:  func(z *dnstest.Zone) { z.Truncate("big.example.com") },
			query: "big.example.com",
			want:  apiserverendpoints.Resolution{Addrs: addrs("192.0.2.77"), TTL: 77 * time.Second, Chain: []string{"big.example.com."}},
		},
		{
			name:        "a silent first server is skipped after its timeout",
			silentFirst: true,
			query:       "v4.example.com",
			want:        apiserverendpoints.Resolution{Addrs: addrs("192.0.2.10", "192.0.2.20"), TTL: 120 * time.Second, Chain: []string{"v4.example.com."}},
		},
		{
			name:     "a chain within the limit",
			maxChain: 3,
			query:    "c1.example.com",
			want: apiserverendpoints.Resolution{
				Addrs: addrs("192.0.2.44"), TTL: 300 * time.Second,
				Chain: []string{"c1.example.com.", "c2.example.com.", "c3.example.com.", "c4.example.com."},
			},
		},
		{
			name:     "a chain over the limit",
			maxChain: 2,
			query:    "c1.example.com",
			wantErr:  "A c1.example.com. at {server}: server answered a CNAME chain longer than 2 names",
		},
		{
			name:    "NXDOMAIN",
			query:   "missing.example.com",
			wantErr: "A missing.example.com. at {server}: server answered NXDOMAIN (the name does not exist)",
		},
		{
			name:    "NXDOMAIN at the end of a CNAME chain names the missing target",
			query:   "dangling.example.com",
			wantErr: "A gone.example.net. at {server}: server answered NXDOMAIN (the name does not exist)",
		},
		{
			name:    "SERVFAIL",
			zone:    func(z *dnstest.Zone) { z.Rcode("v4.example.com", dns.RcodeServerFailure) },
			query:   "v4.example.com",
			wantErr: "A v4.example.com. at {server}: server answered SERVFAIL",
		},
		{
			name:    "REFUSED",
			zone:    func(z *dnstest.Zone) { z.Rcode("v4.example.com", dns.RcodeRefused) },
			query:   "v4.example.com",
			wantErr: "A v4.example.com. at {server}: server answered REFUSED",
		},
		{
			name:    "a name without A or AAAA records",
			query:   "txt-only.example.com",
			wantErr: "A and AAAA txt-only.example.com.: no A or AAAA record (every server that answered said NOERROR without addresses)",
		},
		{
			name:    "a CNAME loop",
			query:   "loop-a.example.com",
			wantErr: "A loop-a.example.com. at {server}: server answered a CNAME loop back to loop-a.example.com.",
		},
		{
			name:    "an invalid name",
			query:   "bad..name",
			wantErr: `"bad..name" is not a valid DNS name`,
		},
		{
			name:        "only a silent server",
			zone:        func(z *dnstest.Zone) { z.Silent() },
			query:       "v4.example.com",
			wantTimeout: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z := dnstest.NewZone(t, records...)
			if tt.zone != nil {
				tt.zone(z)
			}
			server := dnstest.Start(t, z)
			servers := []string{server}
			if tt.silentFirst {
				silent := dnstest.Start(t, dnstest.NewZone(t).Silent())
				servers = []string{silent, server}
			}
			r, err := apiserverendpoints.NewDNSResolver(apiserverendpoints.DNSResolverConfig{
				Servers: servers, Timeout: 300 * time.Millisecond, MaxCNAMEChain: tt.maxChain,
			})
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Resolve(context.Background(), tt.query)
			switch {
			case tt.wantTimeout:
				var qe *apiserverendpoints.QueryError
				if !errors.As(err, &qe) || !errors.Is(err, os.ErrDeadlineExceeded) {
					t.Fatalf("got error %v, want a timeout QueryError", err)
				}
				want := &apiserverendpoints.QueryError{Name: "v4.example.com.", Type: "A", Server: server}
				if diff := cmp.Diff(want, qe, cmpopts.IgnoreFields(apiserverendpoints.QueryError{}, "Err")); diff != "" {
					t.Errorf("QueryError (-want +got):\n%s", diff)
				}
			case tt.wantErr != "":
				if err == nil {
					t.Fatalf("got %+v, want error", got)
				}
				if want := strings.ReplaceAll(tt.wantErr, "{server}", server); err.Error() != want {
					t.Errorf("error:\n got %s\nwant %s", err, want)
				}
			default:
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got, cmpAddrs); diff != "" {
					t.Errorf("resolution (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestDNSResolverFailsOver checks that every server is asked and that an error lists each
// server's answer.
func TestDNSResolverFailsOver(t *testing.T) {
	bad := dnstest.Start(t, dnstest.NewZone(t, records...).Rcode("v4.example.com", dns.RcodeServerFailure))
	good := dnstest.Start(t, dnstest.NewZone(t, records...))
	alsoBad := dnstest.Start(t, dnstest.NewZone(t, records...).Rcode("v4.example.com", dns.RcodeRefused))

	r, err := apiserverendpoints.NewDNSResolver(apiserverendpoints.DNSResolverConfig{Servers: []string{bad, good}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Resolve(context.Background(), "v4.example.com")
	if err != nil {
		t.Fatalf("second server answers, got error %v", err)
	}
	if diff := cmp.Diff(addrs("192.0.2.10", "192.0.2.20"), got.Addrs, cmpAddrs); diff != "" {
		t.Errorf("addresses (-want +got):\n%s", diff)
	}

	r, err = apiserverendpoints.NewDNSResolver(apiserverendpoints.DNSResolverConfig{Servers: []string{bad, alsoBad}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Resolve(context.Background(), "v4.example.com")
	want := fmt.Sprintf("A v4.example.com. at %s: server answered SERVFAIL\nA v4.example.com. at %s: server answered REFUSED", bad, alsoBad)
	if err == nil || err.Error() != want {
		t.Errorf("error:\n got %v\nwant %s", err, want)
	}
}

func TestNewDNSResolver(t *testing.T) {
	tests := []struct {
		name        string
		cfg         apiserverendpoints.DNSResolverConfig
		wantServers []string
		wantErr     string
	}{
		{name: "bare IPs get port 53", cfg: apiserverendpoints.DNSResolverConfig{Servers: []string{"10.0.0.10", "fd00::a"}}, wantServers: []string{"10.0.0.10:53", "[fd00::a]:53"}},
		{name: "host:port kept", cfg: apiserverendpoints.DNSResolverConfig{Servers: []string{"127.0.0.1:5353", "dns.internal:53"}}, wantServers: []string{"127.0.0.1:5353", "dns.internal:53"}},
		{name: "no server", cfg: apiserverendpoints.DNSResolverConfig{}, wantErr: "no DNS nameserver configured: at least one is required"},
		{name: "empty server", cfg: apiserverendpoints.DNSResolverConfig{Servers: []string{"10.0.0.10", ""}}, wantErr: `nameserver 1 "": empty address: use an IP address or host:port`},
		{name: "not an address", cfg: apiserverendpoints.DNSResolverConfig{Servers: []string{"dns.internal"}}, wantErr: `nameserver 0 "dns.internal": not an IP address or host:port`},
		{name: "negative timeout", cfg: apiserverendpoints.DNSResolverConfig{Servers: []string{"10.0.0.10"}, Timeout: -time.Second}, wantErr: "DNS query timeout -1s is negative: use a positive duration, or zero for 2s"},
		{name: "negative chain", cfg: apiserverendpoints.DNSResolverConfig{Servers: []string{"10.0.0.10"}, MaxCNAMEChain: -1}, wantErr: "maximum CNAME chain -1 is negative: use a positive number, or zero for 8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := apiserverendpoints.NewDNSResolver(tt.cfg)
			if testcheck.Err(t, err, tt.wantErr) {
				return
			}
			if diff := cmp.Diff(tt.wantServers, r.Servers()); diff != "" {
				t.Errorf("servers (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewDNSResolverFromResolvConf(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.conf", "search svc.cluster.local\nnameserver 10.96.0.10\nnameserver fd00::10\noptions ndots:5 timeout:1\n")
	r, err := apiserverendpoints.NewDNSResolverFromResolvConf(good, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"10.96.0.10:53", "[fd00::10]:53"}, r.Servers()); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}

	empty := write("empty.conf", "search example.com\n")
	if _, err := apiserverendpoints.NewDNSResolverFromResolvConf(empty, 0); err == nil || err.Error() != "reading nameservers from "+empty+": the file lists no nameserver" {
		t.Errorf("empty file: error %v", err)
	}
	missing := filepath.Join(dir, "missing.conf")
	if _, err := apiserverendpoints.NewDNSResolverFromResolvConf(missing, 0); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: error %v, want one wrapping os.ErrNotExist", err)
	}
}

// TestDNSResolverContextCancelled checks that the caller's context bounds a query even when the
// per-query timeout is longer.
func TestDNSResolverContextCancelled(t *testing.T) {
	server := dnstest.Start(t, dnstest.NewZone(t).Silent())
	r, err := apiserverendpoints.NewDNSResolver(apiserverendpoints.DNSResolverConfig{Servers: []string{server}, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = r.Resolve(ctx, "v4.example.com")
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("error %v, want the context's deadline", err)
	}
}
