package apiserverendpoints

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/miekg/dns"
)

// Resolver resolves a hostname to its IPv4 and IPv6 addresses.
type Resolver interface {
	// Resolve returns every A and AAAA address of name, following CNAME chains, and the shortest
	// TTL of the records used. It returns an error, never an empty Resolution, when name has no
	// address or a server does not answer usefully.
	Resolve(ctx context.Context, name string) (Resolution, error)
}

// Resolution is the answer for one hostname.
type Resolution struct {
	// Addrs are the addresses, sorted and de-duplicated.
	Addrs []netip.Addr
	// TTL is the shortest TTL of the CNAME, A and AAAA records used.
	TTL time.Duration
	// Chain is the name asked for followed by every CNAME target on the way to the addresses (of
	// the A query, then targets only the AAAA query met), fully qualified.
	Chain []string
}

// DefaultResolvConf is where NewDNSResolverFromResolvConf reads nameservers by default.
const DefaultResolvConf = "/etc/resolv.conf"

// Defaults of DNSResolverConfig.
const (
	// DefaultQueryTimeout bounds one query to one server.
	DefaultQueryTimeout = 2 * time.Second
	// DefaultMaxCNAMEChain bounds the number of CNAMEs followed from one name.
	DefaultMaxCNAMEChain = 8
)

// DNSResolverConfig configures a DNSResolver.
type DNSResolverConfig struct {
	// Servers are the nameservers, asked in order until one answers usefully: "host:port", or a
	// bare IP address (port 53).
	Servers []string
	// Timeout bounds one query to one server; zero means DefaultQueryTimeout.
	Timeout time.Duration
	// MaxCNAMEChain bounds the CNAMEs followed from one name; zero means DefaultMaxCNAMEChain.
	MaxCNAMEChain int
}

// DNSResolver is the production Resolver: it asks nameservers directly with github.com/miekg/dns
// (recursion desired), so that it sees the TTLs and can say what a server answered.
type DNSResolver struct {
	servers   []string
	timeout   time.Duration
	maxCNAMEs int
}

// NewDNSResolver checks cfg and returns a resolver using it.
func NewDNSResolver(cfg DNSResolverConfig) (*DNSResolver, error) {
	if len(cfg.Servers) == 0 {
		return nil, errors.New("no DNS nameserver configured: at least one is required")
	}
	servers := make([]string, 0, len(cfg.Servers))
	for i, s := range cfg.Servers {
		addr, err := serverAddress(s)
		if err != nil {
			return nil, fmt.Errorf("nameserver %d %q: %w", i, s, err)
		}
		servers = append(servers, addr)
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("DNS query timeout %s is negative: use a positive duration, or zero for %s", cfg.Timeout, DefaultQueryTimeout)
	}
	if cfg.MaxCNAMEChain < 0 {
		return nil, fmt.Errorf("maximum CNAME chain %d is negative: use a positive number, or zero for %d", cfg.MaxCNAMEChain, DefaultMaxCNAMEChain)
	}
	r := &DNSResolver{servers: servers, timeout: cfg.Timeout, maxCNAMEs: cfg.MaxCNAMEChain}
	if r.timeout == 0 {
		r.timeout = DefaultQueryTimeout
	}
	if r.maxCNAMEs == 0 {
		r.maxCNAMEs = DefaultMaxCNAMEChain
	}
	return r, nil
}

// NewDNSResolverFromResolvConf returns a resolver asking the nameservers of a resolv.conf file
// (DefaultResolvConf when path is empty), with its timeout unless timeout is set.
func NewDNSResolverFromResolvConf(path string, timeout time.Duration) (*DNSResolver, error) {
	if path == "" {
		path = DefaultResolvConf
	}
	cc, err := dns.ClientConfigFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading nameservers from %s: %w", path, err)
	}
	if len(cc.Servers) == 0 {
		return nil, fmt.Errorf("reading nameservers from %s: the file lists no nameserver", path)
	}
	servers := make([]string, len(cc.Servers))
	for i, s := range cc.Servers {
		servers[i] = net.JoinHostPort(s, cc.Port)
	}
	if timeout == 0 && cc.Timeout > 0 {
		timeout = time.Duration(cc.Timeout) * time.Second
	}
	r, err := NewDNSResolver(DNSResolverConfig{Servers: servers, Timeout: timeout})
	if err != nil {
		return nil, fmt.Errorf("nameservers from %s: %w", path, err)
	}
	return r, nil
}

// Servers returns the nameservers the resolver asks, as host:port.
func (r *DNSResolver) Servers() []string { return slices.Clone(r.servers) }

// serverAddress turns "ip" or "host:port" into "host:port".
func serverAddress(s string) (string, error) {
	if s == "" {
		return "", errors.New("empty address: use an IP address or host:port")
	}
	if ip, err := netip.ParseAddr(s); err == nil {
		return net.JoinHostPort(ip.String(), "53"), nil
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil || host == "" || port == "" {
		return "", errors.New("not an IP address or host:port")
	}
	return s, nil
}

// Resolve implements Resolver.
func (r *DNSResolver) Resolve(ctx context.Context, name string) (Resolution, error) {
	fqdn := dns.Fqdn(name)
	if _, ok := dns.IsDomainName(fqdn); !ok || name == "" {
		return Resolution{}, fmt.Errorf("%q is not a valid DNS name", name)
	}
	res := Resolution{Chain: []string{fqdn}}
	first := true
	for _, qtype := range []uint16{dns.TypeA, dns.TypeAAAA} {
		addrs, ttl, chain, err := r.follow(ctx, fqdn, qtype)
		if err != nil {
			return Resolution{}, err
		}
		for _, c := range chain {
			if !slices.Contains(res.Chain, c) {
				res.Chain = append(res.Chain, c)
			}
		}
		if ttl >= 0 && (first || ttl < res.TTL) {
			res.TTL, first = ttl, false
		}
		res.Addrs = append(res.Addrs, addrs...)
	}
	if len(res.Addrs) == 0 {
		return Resolution{}, &QueryError{Name: fqdn, Type: "A and AAAA", Answer: "no A or AAAA record (every server that answered said NOERROR without addresses)"}
	}
	slices.SortFunc(res.Addrs, netip.Addr.Compare)
	res.Addrs = slices.Compact(res.Addrs)
	return res, nil
}

// follow asks for qtype records of name, following CNAMEs, also across queries when a server
// answers with a CNAME only. It returns the addresses, the shortest TTL seen (-1 when no record was
// seen) and the CNAME targets met.
func (r *DNSResolver) follow(ctx context.Context, name string, qtype uint16) ([]netip.Addr, time.Duration, []string, error) {
	ch := &cnameChase{name: name, qtype: qtype, maxCNAMEs: r.maxCNAMEs, minTTL: -1, visited: map[string]bool{dns.CanonicalName(name): true}}
	current := name
	for {
		resp, server, err := r.exchange(ctx, current, qtype)
		if err != nil {
			return nil, 0, nil, err
		}
		target, err := ch.followCNAMEs(resp, current, server)
		if err != nil {
			return nil, 0, nil, err
		}
		if addrs := ch.addresses(resp, target); len(addrs) > 0 {
			return addrs, ch.minTTL, ch.chain, nil
		}
		if resp.Rcode == dns.RcodeNameError {
			return nil, 0, nil, &QueryError{Name: target, Type: dns.TypeToString[qtype], Server: server, Answer: "NXDOMAIN (the name does not exist)"}
		}
		if target == current {
			// NOERROR without data: the name exists but has no record of this type.
			return nil, ch.minTTL, ch.chain, nil
		}
		// The answer ended in a CNAME whose target it does not resolve: ask for the target.
		current = target
	}
}

// cnameChase is the state of one follow: the name and record type asked for, the CNAME targets met
// (at most maxCNAMEs) and the names visited, and the shortest TTL seen (-1 before any record).
type cnameChase struct {
	name      string
	qtype     uint16
	maxCNAMEs int
	chain     []string
	visited   map[string]bool
	minTTL    time.Duration
}

// seen takes a record's TTL into the shortest TTL seen.
func (ch *cnameChase) seen(ttl uint32) {
	if d := time.Duration(ttl) * time.Second; ch.minTTL < 0 || d < ch.minTTL {
		ch.minTTL = d
	}
}

// followCNAMEs follows the CNAMEs of an answer (from server) to a query for current, and returns
// the name they end at; a loop or a chain longer than maxCNAMEs is an error.
func (ch *cnameChase) followCNAMEs(resp *dns.Msg, current, server string) (string, error) {
	cnames := map[string]*dns.CNAME{}
	for _, rr := range resp.Answer {
		if c, ok := rr.(*dns.CNAME); ok {
			cnames[dns.CanonicalName(c.Hdr.Name)] = c
		}
	}
	target := current
	for {
		c, ok := cnames[dns.CanonicalName(target)]
		if !ok {
			return target, nil
		}
		next := dns.CanonicalName(c.Target)
		if ch.visited[next] {
			return "", &QueryError{Name: current, Type: dns.TypeToString[ch.qtype], Server: server, Answer: fmt.Sprintf("a CNAME loop back to %s", c.Target)}
		}
		if len(ch.chain) >= ch.maxCNAMEs {
			return "", &QueryError{Name: ch.name, Type: dns.TypeToString[ch.qtype], Server: server, Answer: fmt.Sprintf("a CNAME chain longer than %d names", ch.maxCNAMEs)}
		}
		ch.visited[next] = true
		ch.seen(c.Hdr.Ttl)
		ch.chain = append(ch.chain, c.Target)
		target = c.Target
	}
}

// addresses returns the answer's addresses of the asked type for target.
func (ch *cnameChase) addresses(resp *dns.Msg, target string) []netip.Addr {
	var addrs []netip.Addr
	for _, rr := range resp.Answer {
		if !strings.EqualFold(rr.Header().Name, target) || rr.Header().Rrtype != ch.qtype {
			continue
		}
		var ip net.IP
		switch a := rr.(type) {
		case *dns.A:
			ip = a.A
		case *dns.AAAA:
			ip = a.AAAA
		default:
			continue
		}
		addr, ok := netip.AddrFromSlice(ip)
		if !ok {
			continue
		}
		ch.seen(rr.Header().Ttl)
		addrs = append(addrs, addr.Unmap())
	}
	return addrs
}

// exchange asks the servers in order for qtype records of name and returns the first answer that
// is NOERROR or NXDOMAIN, and the server that gave it. A truncated UDP answer is asked again over TCP.
func (r *DNSResolver) exchange(ctx context.Context, name string, qtype uint16) (*dns.Msg, string, error) {
	msg := new(dns.Msg)
	msg.SetQuestion(name, qtype)
	msg.RecursionDesired = true
	msg.SetEdns0(1232, false)
	var errs []error
	for _, server := range r.servers {
		resp, err := r.exchangeOne(ctx, msg, server)
		if err != nil {
			errs = append(errs, &QueryError{Name: name, Type: dns.TypeToString[qtype], Server: server, Err: err})
			if ctx.Err() != nil {
				break
			}
			continue
		}
		if resp.Rcode != dns.RcodeSuccess && resp.Rcode != dns.RcodeNameError {
			errs = append(errs, &QueryError{Name: name, Type: dns.TypeToString[qtype], Server: server, Answer: dns.RcodeToString[resp.Rcode]})
			continue
		}
		return resp, server, nil
	}
	return nil, "", errors.Join(errs...)
}

func (r *DNSResolver) exchangeOne(ctx context.Context, msg *dns.Msg, server string) (*dns.Msg, error) {
	udp := &dns.Client{Net: "udp", Timeout: r.timeout}
	resp, _, err := udp.ExchangeContext(ctx, msg, server)
	if err != nil {
		return nil, err
	}
	if !resp.Truncated {
		return resp, nil
	}
	tcp := &dns.Client{Net: "tcp", Timeout: r.timeout}
	resp, _, err = tcp.ExchangeContext(ctx, msg, server)
	if err != nil {
		return nil, fmt.Errorf("the UDP answer was truncated and asking over TCP failed: %w", err)
	}
	return resp, nil
}

// QueryError is a DNS question that got no usable answer.
type QueryError struct {
	// Name is the name asked for, fully qualified.
	Name string
	// Type is the record type asked for ("A", "AAAA", or "A and AAAA" for a name without addresses).
	Type string
	// Server is the nameserver (host:port); empty when the error is about the answers as a whole.
	Server string
	// Answer is what the server answered (a response code such as SERVFAIL, or a description);
	// empty when it did not answer.
	Answer string
	// Err is why no answer came (timeout, connection refused), when none came.
	Err error
}

// Error implements error.
func (e *QueryError) Error() string {
	q := fmt.Sprintf("%s %s", e.Type, e.Name)
	if e.Server != "" {
		q += " at " + e.Server
	}
	if e.Err != nil {
		return fmt.Sprintf("%s: no answer: %v", q, e.Err)
	}
	if e.Server != "" {
		return fmt.Sprintf("%s: server answered %s", q, e.Answer)
	}
	return fmt.Sprintf("%s: %s", q, e.Answer)
}

// Unwrap returns the transport error.
func (e *QueryError) Unwrap() error { return e.Err }
