package apiserverendpoints

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Options are the command-line settings of the address source: where the nameservers come from,
// how long one query may take, how often a hostname is tried, and the bounds of the TTL-driven
// requeue.
type Options struct {
	// Nameservers, when set, are asked instead of those of ResolvConf.
	Nameservers []string
	// ResolvConf is the resolv.conf file to read nameservers (and the query timeout) from.
	ResolvConf string
	// QueryTimeout bounds one query to one server; zero means resolv.conf's or DefaultQueryTimeout.
	QueryTimeout time.Duration
	// Attempts is the number of times a hostname is tried within one lookup.
	Attempts int
	// RequeueMin and RequeueMax bound the requeue interval derived from the TTL.
	RequeueMin, RequeueMax time.Duration
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{
		ResolvConf: DefaultResolvConf,
		Attempts:   DefaultRetry().Steps,
		RequeueMin: time.Minute,
		RequeueMax: time.Hour,
	}
}

// AddFlags registers the options as flags on fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringSliceVar(&o.Nameservers, "kube-apiserver-dns-nameservers", o.Nameservers,
		"DNS servers (IP or host:port) that resolve CNAME kube-apiserver DNSRecords; default: those of --kube-apiserver-dns-resolv-conf")
	fs.StringVar(&o.ResolvConf, "kube-apiserver-dns-resolv-conf", o.ResolvConf,
		"resolv.conf file to read the DNS servers from when --kube-apiserver-dns-nameservers is not set")
	fs.DurationVar(&o.QueryTimeout, "kube-apiserver-dns-timeout", o.QueryTimeout,
		"timeout of one DNS query to one server; 0 means the resolv.conf timeout, else 2s")
	fs.IntVar(&o.Attempts, "kube-apiserver-dns-attempts", o.Attempts,
		"attempts to resolve a kube-apiserver hostname within one reconcile (1s, 2s, 4s ... apart)")
	fs.DurationVar(&o.RequeueMin, "kube-apiserver-dns-requeue-min", o.RequeueMin,
		"shortest requeue after resolving a kube-apiserver hostname, whatever its TTL")
	fs.DurationVar(&o.RequeueMax, "kube-apiserver-dns-requeue-max", o.RequeueMax,
		"longest requeue after resolving a kube-apiserver hostname, whatever its TTL")
}

// Validate checks the options and names the flag at fault.
func (o *Options) Validate() error {
	var errs []error
	if o.Attempts < 1 {
		errs = append(errs, fmt.Errorf("--kube-apiserver-dns-attempts is %d: it must be at least 1", o.Attempts))
	}
	if o.QueryTimeout < 0 {
		errs = append(errs, fmt.Errorf("--kube-apiserver-dns-timeout is %s: it must not be negative", o.QueryTimeout))
	}
	if o.RequeueMin < 0 || o.RequeueMax < 0 {
		errs = append(errs, fmt.Errorf("--kube-apiserver-dns-requeue-min/-max are %s/%s: they must not be negative", o.RequeueMin, o.RequeueMax))
	}
	if o.RequeueMax > 0 && o.RequeueMin > o.RequeueMax {
		errs = append(errs, fmt.Errorf("--kube-apiserver-dns-requeue-min %s is above --kube-apiserver-dns-requeue-max %s", o.RequeueMin, o.RequeueMax))
	}
	if len(o.Nameservers) == 0 && o.ResolvConf == "" {
		errs = append(errs, errors.New("neither --kube-apiserver-dns-nameservers nor --kube-apiserver-dns-resolv-conf is set: one is needed"))
	}
	return errors.Join(errs...)
}

// Resolver builds the DNS resolver the options describe.
func (o *Options) Resolver() (*DNSResolver, error) {
	if len(o.Nameservers) > 0 {
		r, err := NewDNSResolver(DNSResolverConfig{Servers: o.Nameservers, Timeout: o.QueryTimeout})
		if err != nil {
			return nil, fmt.Errorf("--kube-apiserver-dns-nameservers: %w", err)
		}
		return r, nil
	}
	return NewDNSResolverFromResolvConf(o.ResolvConf, o.QueryTimeout)
}

// Backoff returns the retry backoff: Attempts attempts, 1s apart at first, doubling, at most 10s.
func (o *Options) Backoff() wait.Backoff {
	b := DefaultRetry()
	b.Steps = o.Attempts
	return b
}

// Source builds the address source the options describe, reading DNSRecords through reader.
func (o *Options) Source(reader client.Reader) (*Source, error) {
	r, err := o.Resolver()
	if err != nil {
		return nil, err
	}
	return &Source{Reader: reader, Resolver: r, Retry: o.Backoff()}, nil
}
