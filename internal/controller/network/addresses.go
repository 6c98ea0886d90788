package network

import (
	"context"

	"github.com/calico-pilot/calico-pilot/internal/apiserverendpoints"
)

// endpointsSource adapts apiserverendpoints.Source (DNSRecords + CNAME resolution) to AddressSource.
type endpointsSource struct{ src *apiserverendpoints.Source }

// NewAddressSource returns the production AddressSource: the kube-apiserver DNSRecords of the
// control-plane namespace, CNAME values resolved by src's resolver (retried within the call).
func NewAddressSource(src *apiserverendpoints.Source) AddressSource {
	return endpointsSource{src: src}
}

// KubeAPIServerAddresses implements AddressSource.
func (s endpointsSource) KubeAPIServerAddresses(ctx context.Context, namespace string) (KubeAPIServerAddresses, error) {
	res, err := s.src.Lookup(ctx, namespace)
	if err != nil {
		return KubeAPIServerAddresses{}, err
	}
	return KubeAPIServerAddresses{Addrs: res.Addrs, Resolved: res.Resolved, TTL: res.TTL}, nil
}
