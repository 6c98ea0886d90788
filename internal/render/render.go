package render

import (
	"errors"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/values"
)

// Shoot renders every shoot object except the static CRDs (see CRDs): RBAC, calico-config,
// calico-node, typha, kube-controllers, autoscalers, VPAs, monitoring Services, the typha
// NetworkPolicy, IP pools, multus and the gardener-kube-apiserver GlobalNetworkSet.
func Shoot(o *values.Options) ([]client.Object, error) {
	objs, err := shoot(o)
	if err != nil {
		return nil, err
	}
	for _, g := range selectGroups(o) {
		objs = append(objs, g.objects()...)
	}
	return objs, nil
}

// shoot renders the shoot objects that depend on the options; the constant ones are in the
// groups selectGroups chooses (see Constants).
func shoot(o *values.Options) ([]client.Object, error) {
	if err := check(o); err != nil {
		return nil, fmt.Errorf("rendering shoot objects: %w", err)
	}
	cm := configMap(o)
	objs := make([]client.Object, 0, 48)
	objs = append(objs, nodeRoleBinding(o))
	objs = append(objs, cm, nodeDaemonSet(o, checksum(cm.Data)))
	objs = append(objs, typha(o)...)
	objs = append(objs, kubeControllers(o)...)
	objs = append(objs, autoscalers(o)...)
	objs = append(objs, vpas(o)...)
	objs = append(objs, monitoringServices(o)...)
	objs = append(objs, ipPools(o)...)
	objs = append(objs, multus(o)...)
	objs = append(objs, kubeAPIServerNetworkSet(o)...)
	return objs, nil
}

// check rejects Options that values.Resolve can never produce, so a caller that builds Options
// by hand gets an error instead of a broken manifest.
func check(o *values.Options) error {
	var errs []error
	if !o.IPv4 && !o.IPv6 {
		errs = append(errs, errors.New("no IP family is enabled"))
	}
	if o.IPv4 && o.PodCIDRv4 == "" {
		errs = append(errs, errors.New("IPv4 is enabled without an IPv4 pod CIDR"))
	}
	if o.IPv6 && o.PodCIDRv6 == "" {
		errs = append(errs, errors.New("IPv6 is enabled without an IPv6 pod CIDR"))
	}
	if o.Images.CalicoNode == "" || o.Images.CalicoCNI == "" {
		errs = append(errs, errors.New("the calico-node and calico-cni images are not set"))
	}
	switch o.Backend {
	case values.BackendBird, values.BackendNone, values.BackendVXLAN:
	default:
		errs = append(errs, fmt.Errorf("unknown backend %q", o.Backend))
	}
	return errors.Join(errs...)
}
