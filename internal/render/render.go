package render

import (
	"errors"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/values"
)

// Shoot renders every shoot object except the static CRDs (see CRDs): RBAC, calico-config,
// calico-node, typha, kube-controllers, autoscalers, VPAs, monitoring Services, the typha
// NetworkPolicy, IP pools, multus and the gardener-kube-apiserver GlobalNetworkSet. It is
// ShootParts with the constant groups' objects appended.
func Shoot(o *values.Options) ([]client.Object, error) {
	objs, groups, err := ShootParts(o)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		objs = append(objs, g.Objects()...)
	}
	return objs, nil
}

// ShootParts renders what Shoot renders in two parts: the objects that depend on the options, and
// the constant groups the options select (whose objects are the same for every shoot, see
// ConstantGroup). Shoot's objects are objs followed by each group's Objects().
func ShootParts(o *values.Options) (objs []client.Object, groups []ConstantGroup, err error) {
	if err := check(o); err != nil {
		return nil, nil, fmt.Errorf("rendering shoot objects: %w", err)
	}
	cm := configMap(o)
	objs = make([]client.Object, 0, 48)
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
	return objs, constantGroups(o), nil
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
