package apiserverendpoints

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
)

// DefaultRetry is the backoff between attempts to resolve one hostname: 4 attempts, waiting 1s,
// 2s and 4s in between. Together with DNSResolver's per-query timeout it stays well inside
// Gardener's 3 minute reconcile timeout.
func DefaultRetry() wait.Backoff {
	return wait.Backoff{Duration: time.Second, Factor: 2, Steps: 4, Cap: 10 * time.Second}
}

// Source finds the kube-apiserver addresses of a shoot from its DNSRecords.
type Source struct {
	// Reader reads DNSRecords (an uncached client or a cache with DNSRecords).
	Reader client.Reader
	// Resolver resolves the hostnames of CNAME records.
	Resolver Resolver
	// Retry is the backoff between resolution attempts of one hostname; Steps is the number of
	// attempts (at least 1). The zero value means DefaultRetry().
	Retry wait.Backoff
	// Sleep waits d or until ctx ends; nil means a real timer. Tests inject one that records.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Result is the complete set of kube-apiserver addresses of a namespace.
type Result struct {
	// Addrs are the addresses, sorted (IPv4 before IPv6) and de-duplicated. Never empty.
	Addrs []netip.Addr
	// Resolved is true when at least one CNAME record was resolved, so TTL is meaningful.
	Resolved bool
	// TTL is the shortest TTL of the DNS answers used for CNAME records (zero when Resolved is false).
	TTL time.Duration
	// Records are the DNSRecords that contributed, sorted by name.
	Records []Record
}

// Record is one DNSRecord's contribution.
type Record struct {
	// Name is the DNSRecord's name.
	Name string
	// Role is its role label (internal or external).
	Role string
	// Type is its record type (A, AAAA or CNAME).
	Type extensionsv1alpha1.DNSRecordType
	// Values are its spec.values.
	Values []string
	// Addrs are the addresses it contributed, sorted.
	Addrs []netip.Addr
	// Chain is, for a CNAME record, the names followed from the hostname to the addresses.
	Chain []string
	// TTL is, for a CNAME record, the shortest TTL of the answers used.
	TTL time.Duration
}

// Selector returns the label selector of the kube-apiserver DNSRecords:
// gardener.cloud/role=controlplane,role in (external,internal).
func Selector() (labels.Selector, error) {
	controlPlane, err := labels.NewRequirement(extensionsv1alpha1.LabelGardenerRole, selection.Equals, []string{extensionsv1alpha1.GardenerRoleControlPlane})
	if err != nil {
		return nil, fmt.Errorf("building DNSRecord selector: %w", err)
	}
	role, err := labels.NewRequirement(extensionsv1alpha1.LabelDNSRecordRole, selection.In, []string{extensionsv1alpha1.DNSRecordRoleExternal, extensionsv1alpha1.DNSRecordRoleInternal})
	if err != nil {
		return nil, fmt.Errorf("building DNSRecord selector: %w", err)
	}
	return labels.NewSelector().Add(*controlPlane, *role), nil
}

// Lookup returns the kube-apiserver addresses published in the DNSRecords of namespace, resolving
// CNAME records. It returns a *LookupError, never an empty or partial Result, when the addresses
// cannot all be determined.
func (s *Source) Lookup(ctx context.Context, namespace string) (Result, error) {
	if s.Reader == nil {
		return Result{}, &LookupError{Namespace: namespace, Err: errors.New("no client configured to read DNSRecords")}
	}
	sel, err := Selector()
	if err != nil {
		return Result{}, &LookupError{Namespace: namespace, Err: err}
	}
	var list extensionsv1alpha1.DNSRecordList
	if err := s.Reader.List(ctx, &list, client.InNamespace(namespace), client.MatchingLabelsSelector{Selector: sel}); err != nil {
		return Result{}, &LookupError{Namespace: namespace, Err: fmt.Errorf("listing DNSRecords: %w", err)}
	}
	if len(list.Items) == 0 {
		return Result{}, &LookupError{Namespace: namespace, Err: fmt.Errorf(
			"no DNSRecord labelled %s: the kube-apiserver address is not published yet, or the kube-apiserver has no managed DNS (unmanaged internal domain)",
			sel)}
	}
	items := list.Items
	slices.SortFunc(items, func(a, b extensionsv1alpha1.DNSRecord) int { return strings.Compare(a.Name, b.Name) })

	resolved := map[string]Resolution{}
	var res Result
	for i := range items {
		rec, err := s.record(ctx, &items[i], resolved)
		if err != nil {
			return Result{}, &LookupError{
				Namespace: namespace, Record: items[i].Name, RecordType: string(items[i].Spec.RecordType),
				Value: strings.Join(items[i].Spec.Values, ","), Err: err,
			}
		}
		if rec.Type == extensionsv1alpha1.DNSRecordTypeCNAME {
			if !res.Resolved || rec.TTL < res.TTL {
				res.TTL = rec.TTL
			}
			res.Resolved = true
		}
		res.Addrs = append(res.Addrs, rec.Addrs...)
		res.Records = append(res.Records, rec)
	}
	slices.SortFunc(res.Addrs, netip.Addr.Compare)
	res.Addrs = slices.Compact(res.Addrs)
	return res, nil
}

// record turns one DNSRecord into its addresses.
func (s *Source) record(ctx context.Context, d *extensionsv1alpha1.DNSRecord, resolved map[string]Resolution) (Record, error) {
	rec := Record{Name: d.Name, Role: d.Labels[extensionsv1alpha1.LabelDNSRecordRole], Type: d.Spec.RecordType, Values: slices.Clone(d.Spec.Values)}
	if len(d.Spec.Values) == 0 {
		return Record{}, errors.New("spec.values is empty: the record publishes no address")
	}
	switch d.Spec.RecordType {
	case extensionsv1alpha1.DNSRecordTypeA, extensionsv1alpha1.DNSRecordTypeAAAA:
		for i, v := range d.Spec.Values {
			addr, err := literal(v, d.Spec.RecordType)
			if err != nil {
				return Record{}, fmt.Errorf("spec.values[%d]: %w", i, err)
			}
			rec.Addrs = append(rec.Addrs, addr)
		}
	case extensionsv1alpha1.DNSRecordTypeCNAME:
		if len(d.Spec.Values) != 1 {
			return Record{}, fmt.Errorf("spec.values has %d entries: a CNAME record has exactly one hostname", len(d.Spec.Values))
		}
		name := d.Spec.Values[0]
		r, ok := resolved[name]
		if !ok {
			var err error
			if r, err = s.resolve(ctx, name); err != nil {
				return Record{}, err
			}
			resolved[name] = r
		}
		rec.Addrs, rec.Chain, rec.TTL = slices.Clone(r.Addrs), slices.Clone(r.Chain), r.TTL
	default:
		return Record{}, fmt.Errorf("spec.recordType %q carries no address: the kube-apiserver records are A, AAAA or CNAME", d.Spec.RecordType)
	}
	slices.SortFunc(rec.Addrs, netip.Addr.Compare)
	rec.Addrs = slices.Compact(rec.Addrs)
	return rec, nil
}

// literal parses an A or AAAA value.
func literal(v string, t extensionsv1alpha1.DNSRecordType) (netip.Addr, error) {
	addr, err := netip.ParseAddr(v)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("%q is not an IP address, which an %s record must hold", v, t)
	}
	switch {
	case addr.Zone() != "":
		return netip.Addr{}, fmt.Errorf("%q has a zone, which a published address cannot have", v)
	case t == extensionsv1alpha1.DNSRecordTypeA && !addr.Is4():
		return netip.Addr{}, fmt.Errorf("%q is not an IPv4 address, which an A record must hold", v)
	case t == extensionsv1alpha1.DNSRecordTypeAAAA && (!addr.Is6() || addr.Is4In6()):
		return netip.Addr{}, fmt.Errorf("%q is not an IPv6 address, which an AAAA record must hold", v)
	}
	return addr, nil
}

// resolve resolves name, retrying with backoff; it returns the last error after the last attempt.
func (s *Source) resolve(ctx context.Context, name string) (Resolution, error) {
	if s.Resolver == nil {
		return Resolution{}, errors.New("no DNS resolver configured to resolve the CNAME record")
	}
	backoff := s.Retry
	if backoff.Steps == 0 && backoff.Duration == 0 {
		backoff = DefaultRetry()
	}
	attempts := max(backoff.Steps, 1)
	sleep := s.Sleep
	if sleep == nil {
		sleep = sleepTimer
	}
	var lastErr error
	for attempt := 1; ; attempt++ {
		r, err := s.Resolver.Resolve(ctx, name)
		if err == nil {
			return r, nil
		}
		lastErr = err
		if attempt >= attempts || ctx.Err() != nil {
			break
		}
		if err := sleep(ctx, backoff.Step()); err != nil {
			return Resolution{}, fmt.Errorf("resolving %s: interrupted after %d of %d attempts: %w (last error: %w)", name, attempt, attempts, err, lastErr)
		}
	}
	return Resolution{}, fmt.Errorf("resolving %s: %d of %d attempts failed, the last with: %w", name, attempts, attempts, lastErr)
}

// sleepTimer waits d or until ctx ends.
func sleepTimer(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
