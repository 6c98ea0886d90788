package render

import (
	"errors"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
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

// component is one part of a shoot. Its file (node.go, typha.go, ...) builds all of its objects,
// and its name names its golden files (testdata/shoot/<scenario>/<name>.yaml).
type component struct {
	name string
	// objects builds the component's objects that depend on the options.
	objects func(*values.Options) ([]client.Object, error)
	// groups hold the component's objects that do not (see constants.go); constantGroups
	// chooses which of them a shoot gets.
	groups []ConstantGroup
}

// components are the shoot's components, in render order; the static CRDs (CRDs) and the seed's
// monitoring objects (SeedMonitoring) are rendered on their own.
var components = [...]component{
	{name: "node", objects: calicoNode, groups: []ConstantGroup{GroupAlways, GroupNodeCPVA}},
	{name: "typha", objects: typha, groups: []ConstantGroup{GroupTypha, GroupTyphaCPA, GroupTyphaCPVA}},
	{name: "kubecontrollers", objects: kubeControllers, groups: []ConstantGroup{GroupKubeControllers}},
	{name: "ippools", objects: ipPools},
	{name: "multus", objects: multus},
	{name: "globalnetworkset", objects: kubeAPIServerNetworkSet},
	{name: "policyadmission", objects: policyAdmission},
}

// ShootParts renders what Shoot renders in two parts: the objects that depend on the options,
// component by component, and the constant groups the options select (whose objects are the same
// for every shoot, see ConstantGroup). Shoot's objects are objs followed by each group's Objects().
func ShootParts(o *values.Options) (objs []client.Object, groups []ConstantGroup, err error) {
	if err := check(o); err != nil {
		return nil, nil, fmt.Errorf("rendering shoot objects: %w", err)
	}
	objs = make([]client.Object, 0, 48)
	for i := range components {
		cobjs, err := components[i].objects(o)
		if err != nil {
			return nil, nil, fmt.Errorf("rendering shoot objects: %w", err)
		}
		objs = append(objs, cobjs...)
	}
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
	case calicov1alpha1.BackendBird, calicov1alpha1.BackendNone, calicov1alpha1.BackendVXLAN:
	default:
		errs = append(errs, fmt.Errorf("unknown backend %q", o.Backend))
	}
	return errors.Join(errs...)
}
