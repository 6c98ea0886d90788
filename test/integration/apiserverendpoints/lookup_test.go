package apiserverendpoints

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/miekg/dns"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/apiserverendpoints"
	"github.com/calico-pilot/calico-pilot/internal/apiserverendpoints/dnstest"
)

// dnsRecord is a DNSRecord to create in the test namespace.
type dnsRecord struct {
	name       string
	labels     map[string]string
	recordType string
	values     []string
	// namespace overrides the test namespace ("other" means a second fresh namespace).
	namespace string
}

// kubeAPIServer are the labels the gardenlet puts on the kube-apiserver records.
func kubeAPIServer(role string) map[string]string {
	return map[string]string{"gardener.cloud/role": "controlplane", "role": role}
}

func create(t *testing.T, ns string, r dnsRecord) {
	t.Helper()
	d := &extensionsv1alpha1.DNSRecord{
		ObjectMeta: metav1.ObjectMeta{Name: r.name, Namespace: ns, Labels: r.labels},
		Spec: extensionsv1alpha1.DNSRecordSpec{
			DefaultSpec: extensionsv1alpha1.DefaultSpec{Type: "aws-route53"},
			SecretRef:   corev1.SecretReference{Name: "dnsrecord-" + r.name},
			Name:        "api." + r.name + ".example.com",
			RecordType:  extensionsv1alpha1.DNSRecordType(r.recordType),
			Values:      r.values,
		},
	}
	if err := cl.Create(context.Background(), d); err != nil {
		t.Fatalf("creating DNSRecord %s: %v", r.name, err)
	}
}

// sleeps records the waits of a Source instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return ctx.Err()
}

var zoneRecords = []string{
	"lb.seed.example.net. 60 IN CNAME lb-1234.elb.example.net.",
	"lb-1234.elb.example.net. 30 IN A 203.0.113.20",
	"lb-1234.elb.example.net. 30 IN A 203.0.113.10",
	"lb-1234.elb.example.net. 45 IN AAAA 2001:db8:1::10",
	"other-lb.seed.example.net. 300 IN A 198.51.100.3",
	"flaky.seed.example.net. 90 IN A 198.51.100.77",
}

// retry is the backoff the tests use: three attempts, 10ms then 20ms apart.
func retry() wait.Backoff { return wait.Backoff{Duration: 10 * time.Millisecond, Factor: 2, Steps: 3} }

func TestLookup(t *testing.T) {
	tests := []struct {
		name    string
		records []dnsRecord
		zone    func(*dnstest.Zone)
		// silentDNS uses a server that never answers.
		silentDNS bool
		want      apiserverendpoints.Result
		// wantErr is the exact error; {ns} stands for the namespace, {server} for the DNS server.
		wantErr    string
		wantSleeps []time.Duration
		// wantQueries are the A queries the DNS server must have seen, per name.
		wantQueries map[string]int
	}{
		{
			name:    "no records",
			wantErr: "kube-apiserver addresses in namespace {ns}: no DNSRecord labelled gardener.cloud/role=controlplane,role in (external,internal): the kube-apiserver address is not published yet, or the kube-apiserver has no managed DNS (unmanaged internal domain)",
		},
		{
			name: "records of other roles, without the controlplane label, or in other namespaces are ignored",
			records: []dnsRecord{
				{name: "s-ingress", labels: kubeAPIServer("ingress"), recordType: "A", values: []string{"192.0.2.1"}},
				{name: "s-owner", labels: map[string]string{"gardener.cloud/role": "controlplane", "role": "owner"}, recordType: "TXT", values: []string{"x"}},
				{name: "s-nolabel", labels: map[string]string{"role": "external"}, recordType: "A", values: []string{"192.0.2.2"}},
				{name: "s-otherrole", labels: map[string]string{"gardener.cloud/role": "something", "role": "internal"}, recordType: "A", values: []string{"192.0.2.3"}},
				{name: "s-external", labels: kubeAPIServer("external"), recordType: "A", values: []string{"192.0.2.4"}, namespace: "other"},
			},
			wantErr: "kube-apiserver addresses in namespace {ns}: no DNSRecord labelled gardener.cloud/role=controlplane,role in (external,internal): the kube-apiserver address is not published yet, or the kube-apiserver has no managed DNS (unmanaged internal domain)",
		},
		{
			name: "A and AAAA used as they are, de-duplicated across internal and external",
			records: []dnsRecord{
				{name: "s-external", labels: kubeAPIServer("external"), recordType: "A", values: []string{"192.0.2.34"}},
				{name: "s-internal", labels: kubeAPIServer("internal"), recordType: "A", values: []string{"192.0.2.34"}},
				{name: "s-ingress", labels: kubeAPIServer("ingress"), recordType: "A", values: []string{"192.0.2.99"}},
				{name: "s-v6", labels: kubeAPIServer("internal"), recordType: "AAAA", values: []string{"2001:db8::34"}},
			},
			want: apiserverendpoints.Result{
				Addrs: addrs("192.0.2.34", "2001:db8::34"),
				Records: []apiserverendpoints.Record{
					{Name: "s-external", Role: "external", Type: "A", Values: []string{"192.0.2.34"}, Addrs: addrs("192.0.2.34")},
					{Name: "s-internal", Role: "internal", Type: "A", Values: []string{"192.0.2.34"}, Addrs: addrs("192.0.2.34")},
					{Name: "s-v6", Role: "internal", Type: "AAAA", Values: []string{"2001:db8::34"}, Addrs: addrs("2001:db8::34")},
				},
			},
		},
		{
			name: "A, AAAA and CNAME mix gives the exact sorted set",
			records: []dnsRecord{
				{name: "s-external", labels: kubeAPIServer("external"), recordType: "CNAME", values: []string{"lb.seed.example.net"}},
				{name: "s-internal", labels: kubeAPIServer("internal"), recordType: "A", values: []string{"198.51.100.200"}},
				{name: "s-internal-v6", labels: kubeAPIServer("internal"), recordType: "AAAA", values: []string{"2001:db8::1"}},
			},
			want: apiserverendpoints.Result{
				Addrs:    addrs("198.51.100.200", "203.0.113.10", "203.0.113.20", "2001:db8::1", "2001:db8:1::10"),
				Resolved: true,
				TTL:      30 * time.Second,
				Records: []apiserverendpoints.Record{
					{
						Name: "s-external", Role: "external", Type: "CNAME", Values: []string{"lb.seed.example.net"},
						Addrs: addrs("203.0.113.10", "203.0.113.20", "2001:db8:1::10"),
						Chain: []string{"lb.seed.example.net.", "lb-1234.elb.example.net."}, TTL: 30 * time.Second,
					},
					{Name: "s-internal", Role: "internal", Type: "A", Values: []string{"198.51.100.200"}, Addrs: addrs("198.51.100.200")},
					{Name: "s-internal-v6", Role: "internal", Type: "AAAA", Values: []string{"2001:db8::1"}, Addrs: addrs("2001:db8::1")},
				},
			},
		},
		{
			name: "the same hostname in two records is resolved once",
			records: []dnsRecord{
				{name: "s-external", labels: kubeAPIServer("external"), recordType: "CNAME", values: []string{"other-lb.seed.example.net"}},
				{name: "s-internal", labels: kubeAPIServer("internal"), recordType: "CNAME", values: []string{"other-lb.seed.example.net"}},
			},
			want: apiserverendpoints.Result{
				Addrs: addrs("198.51.100.3"), Resolved: true, TTL: 300 * time.Second,
				Records: []apiserverendpoints.Record{
					{Name: "s-external", Role: "external", Type: "CNAME", Values: []string{"other-lb.seed.example.net"}, Addrs: addrs("198.51.100.3"), Chain: []string{"other-lb.seed.example.net."}, TTL: 300 * time.Second},
					{Name: "s-internal", Role: "internal", Type: "CNAME", Values: []string{"other-lb.seed.example.net"}, Addrs: addrs("198.51.100.3"), Chain: []string{"other-lb.seed.example.net."}, TTL: 300 * time.Second},
				},
			},
			wantQueries: map[string]int{"other-lb.seed.example.net": 1},
		},
		{
			name: "a failing resolution is retried within the call and then succeeds",
			records: []dnsRecord{
				{name: "s-external", labels: kubeAPIServer("external"), recordType: "CNAME", values: []string{"flaky.seed.example.net"}},
			},
			zone: func(z *dnstest.Zone) { z.FailFirst("flaky.seed.example.net", 2) },
			want: apiserverendpoints.Result{
				Addrs: addrs("198.51.100.77"), Resolved: true, TTL: 90 * time.Second,
				Records: []apiserverendpoints.Record{
					{Name: "s-external", Role: "external", Type: "CNAME", Values: []string{"flaky.seed.example.net"}, Addrs: addrs("198.51.100.77"), Chain: []string{"flaky.seed.example.net."}, TTL: 90 * time.Second},
				},
			},
			wantSleeps:  []time.Duration{10 * time.Millisecond, 20 * time.Millisecond},
			wantQueries: map[string]int{"flaky.seed.example.net": 3},
		},
		{
			name: "NXDOMAIN on every attempt fails the whole lookup, even with a usable A record",
			records: []dnsRecord{
				{name: "s-external", labels: kubeAPIServer("external"), recordType: "CNAME", values: []string{"gone.seed.example.net"}},
				{name: "s-internal", labels: kubeAPIServer("internal"), recordType: "A", values: []string{"192.0.2.34"}},
			},
			wantErr:     `kube-apiserver addresses in namespace {ns}: DNSRecord s-external (CNAME "gone.seed.example.net"): resolving gone.seed.example.net: 3 of 3 attempts failed, the last with: A gone.seed.example.net. at {server}: server answered NXDOMAIN (the name does not exist)`,
			wantSleeps:  []time.Duration{10 * time.Millisecond, 20 * time.Millisecond},
			wantQueries: map[string]int{"gone.seed.example.net": 3},
		},
		{
			name: "SERVFAIL on every attempt",
			records: []dnsRecord{
				{name: "s-internal", labels: kubeAPIServer("internal"), recordType: "CNAME", values: []string{"lb.seed.example.net"}},
			},
			zone:       func(z *dnstest.Zone) { z.Rcode("lb.seed.example.net", dns.RcodeServerFailure) },
			wantErr:    `kube-apiserver addresses in namespace {ns}: DNSRecord s-internal (CNAME "lb.seed.example.net"): resolving lb.seed.example.net: 3 of 3 attempts failed, the last with: A lb.seed.example.net. at {server}: server answered SERVFAIL`,
			wantSleeps: []time.Duration{10 * time.Millisecond, 20 * time.Millisecond},
		},
		{
			name: "a DNS server that never answers",
			records: []dnsRecord{
				{name: "s-internal", labels: kubeAPIServer("internal"), recordType: "CNAME", values: []string{"lb.seed.example.net"}},
			},
			silentDNS:  true,
			wantErr:    `kube-apiserver addresses in namespace {ns}: DNSRecord s-internal (CNAME "lb.seed.example.net"): resolving lb.seed.example.net: 3 of 3 attempts failed, the last with: A lb.seed.example.net. at {server}: no answer: read udp {client}->{server}: i/o timeout`,
			wantSleeps: []time.Duration{10 * time.Millisecond, 20 * time.Millisecond},
		},
		{
			name: "an A record holding an IPv6 address",
			records: []dnsRecord{
				{name: "s-internal", labels: kubeAPIServer("internal"), recordType: "A", values: []string{"2001:db8::1"}},
			},
			wantErr: `kube-apiserver addresses in namespace {ns}: DNSRecord s-internal (A "2001:db8::1"): spec.values[0]: "2001:db8::1" is not an IPv4 address, which an A record must hold`,
		},
		{
			name: "an A record holding a hostname",
			records: []dnsRecord{
				{name: "s-internal", labels: kubeAPIServer("internal"), recordType: "A", values: []string{"192.0.2.1", "lb.example.com"}},
			},
			wantErr: `kube-apiserver addresses in namespace {ns}: DNSRecord s-internal (A "192.0.2.1,lb.example.com"): spec.values[1]: "lb.example.com" is not an IP address, which an A record must hold`,
		},
		{
			name: "an AAAA record holding an IPv4 address",
			records: []dnsRecord{
				{name: "s-internal", labels: kubeAPIServer("internal"), recordType: "AAAA", values: []string{"::ffff:192.0.2.1"}},
			},
			wantErr: `kube-apiserver addresses in namespace {ns}: DNSRecord s-internal (AAAA "::ffff:192.0.2.1"): spec.values[0]: "::ffff:192.0.2.1" is not an IPv6 address, which an AAAA record must hold`,
		},
		{
			name: "a record without values",
			records: []dnsRecord{
				{name: "s-internal", labels: kubeAPIServer("internal"), recordType: "A", values: []string{}},
			},
			wantErr: `kube-apiserver addresses in namespace {ns}: DNSRecord s-internal (A): spec.values is empty: the record publishes no address`,
		},
		{
			name: "a CNAME record with two hostnames",
			records: []dnsRecord{
				{name: "s-internal", labels: kubeAPIServer("internal"), recordType: "CNAME", values: []string{"a.example.com", "b.example.com"}},
			},
			wantErr: `kube-apiserver addresses in namespace {ns}: DNSRecord s-internal (CNAME "a.example.com,b.example.com"): spec.values has 2 entries: a CNAME record has exactly one hostname`,
		},
		{
			name: "a TXT record with a kube-apiserver role",
			records: []dnsRecord{
				{name: "s-internal", labels: kubeAPIServer("internal"), recordType: "TXT", values: []string{"hello"}},
			},
			wantErr: `kube-apiserver addresses in namespace {ns}: DNSRecord s-internal (TXT "hello"): spec.recordType "TXT" carries no address: the kube-apiserver records are A, AAAA or CNAME`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := newNamespace(t)
			other := ""
			for _, r := range tt.records {
				target := ns
				if r.namespace == "other" {
					if other == "" {
						other = newNamespace(t)
					}
					target = other
				}
				create(t, target, r)
			}
			zone := dnstest.NewZone(t, zoneRecords...)
			if tt.zone != nil {
				tt.zone(zone)
			}
			if tt.silentDNS {
				zone.Silent()
			}
			server := dnstest.Start(t, zone)
			resolver, err := apiserverendpoints.NewDNSResolver(apiserverendpoints.DNSResolverConfig{Servers: []string{server}, Timeout: 200 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			rec := &sleeps{}
			src := &apiserverendpoints.Source{Reader: cl, Resolver: resolver, Retry: retry(), Sleep: rec.sleep}

			got, err := src.Lookup(context.Background(), ns)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("got %+v, want error", got)
				}
				if !isLookupError(err) {
					t.Errorf("error %v is not marked retriable", err)
				}
				want := strings.NewReplacer("{ns}", ns, "{server}", server).Replace(tt.wantErr)
				gotErr := err.Error()
				if tt.silentDNS {
					// The client's ephemeral port is not known in advance.
					gotErr = replaceClientAddr(gotErr)
				}
				if gotErr != want {
					t.Errorf("error:\n got %s\nwant %s", gotErr, want)
				}
				if diff := cmp.Diff(apiserverendpoints.Result{}, got, cmpAddrs); diff != "" {
					t.Errorf("a failed lookup must return no result (-want +got):\n%s", diff)
				}
			} else {
				if err != nil {
					t.Fatalf("lookup: %v", err)
				}
				if diff := cmp.Diff(tt.want, got, cmpAddrs); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(tt.wantSleeps, rec.d); diff != "" {
				t.Errorf("waits between attempts (-want +got):\n%s", diff)
			}
			for name, n := range tt.wantQueries {
				if got := zone.Queries(name, "A"); got != n {
					t.Errorf("A queries for %s: %d, want %d", name, got, n)
				}
			}
		})
	}
}

// TestLookupCancelledWhileWaiting checks that a cancelled context ends the retries at once, with
// the cause and the last DNS answer in the error.
func TestLookupCancelledWhileWaiting(t *testing.T) {
	ns := newNamespace(t)
	create(t, ns, dnsRecord{name: "s-external", labels: kubeAPIServer("external"), recordType: "CNAME", values: []string{"lb.seed.example.net"}})
	server := dnstest.Start(t, dnstest.NewZone(t, zoneRecords...).Rcode("lb.seed.example.net", dns.RcodeServerFailure))
	resolver, err := apiserverendpoints.NewDNSResolver(apiserverendpoints.DNSResolverConfig{Servers: []string{server}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src := &apiserverendpoints.Source{
		Reader: cl, Resolver: resolver, Retry: retry(),
		Sleep: func(context.Context, time.Duration) error { cancel(); return context.Canceled },
	}
	_, err = src.Lookup(ctx, ns)
	if !errors.Is(err, context.Canceled) || !isLookupError(err) {
		t.Fatalf("error %v, want a retriable error wrapping context.Canceled", err)
	}
	want := "kube-apiserver addresses in namespace " + ns + `: DNSRecord s-external (CNAME "lb.seed.example.net"): resolving lb.seed.example.net: interrupted after 1 of 3 attempts: context canceled (last error: A lb.seed.example.net. at ` + server + ": server answered SERVFAIL)"
	if err.Error() != want {
		t.Errorf("error:\n got %s\nwant %s", err, want)
	}
}

// TestLookupWithoutResolver checks that a CNAME record without a configured resolver is an error,
// not a skipped record.
func TestLookupWithoutResolver(t *testing.T) {
	ns := newNamespace(t)
	create(t, ns, dnsRecord{name: "s-external", labels: kubeAPIServer("external"), recordType: "CNAME", values: []string{"lb.seed.example.net"}})
	create(t, ns, dnsRecord{name: "s-internal", labels: kubeAPIServer("internal"), recordType: "A", values: []string{"192.0.2.1"}})
	src := &apiserverendpoints.Source{Reader: cl}
	_, err := src.Lookup(context.Background(), ns)
	want := "kube-apiserver addresses in namespace " + ns + `: DNSRecord s-external (CNAME "lb.seed.example.net"): no DNS resolver configured to resolve the CNAME record`
	if err == nil || err.Error() != want {
		t.Errorf("error:\n got %v\nwant %s", err, want)
	}
}

func addrs(ss ...string) []netip.Addr {
	out := make([]netip.Addr, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParseAddr(s)
	}
	return out
}

var cmpAddrs = cmp.Comparer(func(a, b netip.Addr) bool { return a == b })

// replaceClientAddr replaces the "read udp <client>->" address in a timeout message by {client}.
func replaceClientAddr(s string) string {
	const marker = "read udp "
	i := strings.Index(s, marker)
	if i < 0 {
		return s
	}
	j := strings.Index(s[i:], "->")
	if j < 0 {
		return s
	}
	return s[:i+len(marker)] + "{client}" + s[i+j:]
}

// isLookupError reports whether err (or an error it wraps) is a retriable *apiserverendpoints.LookupError.
func isLookupError(err error) bool {
	var le *apiserverendpoints.LookupError
	return errors.As(err, &le) && le.Retriable()
}
