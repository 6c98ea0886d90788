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

// component is one part of a shoot. Its file (node.go, typha.go, ...) builds all of its objects,
// and its name names its golden files (testdata/shoot/<scenario>/<name>.yaml).
type component struct {
	name string
	// objects builds the component's objects that depend on the options.
	objects func(*values.Options) ([]client.Object, error)
	// groups hold the component's objects that do not (see constants.go); selectGroups
	// chooses which of them a shoot gets.
	groups []group
}

// components are the shoot's components, in render order; the static CRDs (CRDs) and the seed's
// monitoring objects (SeedMonitoring) are rendered on their own.
var components = [...]component{
	{name: "node", objects: calicoNode, groups: []group{groupAlways, groupNodeCPVA}},
	{name: "typha", objects: typha, groups: []group{groupTypha, groupTyphaCPA, groupTyphaCPVA}},
	{name: "kubecontrollers", objects: kubeControllers, groups: []group{groupKubeControllers}},
	{name: "ippools", objects: ipPools},
	{name: "multus", objects: multus},
	{name: "globalnetworkset", objects: kubeAPIServerNetworkSet},
}

// shoot renders the shoot objects that depend on the options, component by component; the
// constant ones are in the groups selectGroups chooses.
func shoot(o *values.Options) ([]client.Object, error) {
	if err := check(o); err != nil {
		return nil, fmt.Errorf("rendering shoot objects: %w", err)
	}
	objs := make([]client.Object, 0, 48)
	for i := range components {
		cobjs, err := components[i].objects(o)
		if err != nil {
			return nil, fmt.Errorf("rendering shoot objects: %w", err)
		}
		objs = append(objs, cobjs...)
	}
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
