// Package apiserverendpoints finds the addresses of a shoot's kube-apiserver for the
// gardener-kube-apiserver GlobalNetworkSet.
//
// The gardenlet publishes the address of the seed's istio ingress gateway load balancer in the
// DNSRecords labelled gardener.cloud/role=controlplane and role=internal / role=external in the
// shoot's control-plane namespace. A and AAAA values are IP addresses and are used as they are. A
// CNAME value is the load balancer's hostname: it is resolved during the call through a Resolver
// (production: DNSResolver, which asks the configured nameservers with github.com/miekg/dns and
// follows CNAME chains to A and AAAA records), retried a bounded number of times with backoff.
//
// The result is complete or an error: a set that misses an address would make every policy that
// allows traffic to the set block part of it, so no records, an unusable record, or a name that
// cannot be resolved is a *LookupError (retriable) naming the namespace, the record, the DNS name
// and what the server answered. Source.Lookup never returns an empty or partial address list.
//
// The package only provides addresses (and their /32 and /128 nets); the GlobalNetworkSet object
// itself is built by internal/render.
package apiserverendpoints
