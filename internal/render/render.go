package render

import (
	"errors"
	"fmt"
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// component is one part of a shoot. Its file (node.go, typha.go, ...) builds all of its objects,
// and its name names its golden files (testdata/shoot/<scenario>/<name>.yaml).
type component struct {
	name string
	// render builds the component's part of a shoot with options o.
	render func(o *values.Options) (part, error)
}

// part is what one component renders for a shoot: its objects that depend on the options, and the
// constant groups (constants.go) holding its objects that do not. A component decides both from
// the same conditions, in one function: "does calico-node get a cluster-proportional vertical
// autoscaler?" is answered once, in node.go, for the Deployment and for its RBAC and ConfigMap.
type part struct {
	objects []client.Object
	groups  []Constant
}

// components are the shoot's components, in render order; the static CRDs (CRDs) and the seed's
// monitoring objects (SeedMonitoring) are rendered on their own.
var components = [...]component{
	{name: "node", render: calicoNode},
	{name: "typha", render: typha},
	{name: "kubecontrollers", render: kubeControllers},
	{name: "ippools", render: objectsOnly(ipPools)},
	{name: "multus", render: objectsOnly(multus)},
	{name: "globalnetworkset", render: objectsOnly(kubeAPIServerNetworkSet)},
	{name: "policyadmission", render: objectsOnly(policyAdmission)},
	// The optional components (values.Components; none for a Gardener shoot).
	{name: "apiserver", render: objectsOnly(apiServer)},
	{name: "goldmane", render: objectsOnly(goldmane)},
	{name: "whisker", render: objectsOnly(whisker)},
	{name: "csi", render: objectsOnly(csiDriver)},
}

// objectsOnly is the render function of a component without constant groups.
func objectsOnly(objects func(*values.Options) ([]client.Object, error)) func(*values.Options) (part, error) {
	return func(o *values.Options) (part, error) {
		objs, err := objects(o)
		return part{objects: objs}, err
	}
}

// ShootParts renders every shoot object except the static CRDs (see CRDs): RBAC, calico-config,
// calico-node, typha, kube-controllers, autoscalers, VPAs, monitoring Services, the typha
// NetworkPolicy, IP pools, multus and the gardener-kube-apiserver GlobalNetworkSet. It returns them
// in two parts: the objects that depend on the options, component by component, and the constant
// groups the components selected (whose objects are the same for every shoot with the same Calico
// releases, see Constant), in ConstantGroup order. The shoot's objects are objs followed by each
// group's Objects().
func ShootParts(o *values.Options) (objs []client.Object, groups []Constant, err error) {
	if err := check(o); err != nil {
		return nil, nil, fmt.Errorf("rendering shoot objects: %w", err)
	}
	objs = make([]client.Object, 0, 48)
	groups = make([]Constant, 0, numConstantGroups)
	for i := range components {
		p, err := components[i].render(o)
		if err != nil {
			return nil, nil, fmt.Errorf("rendering shoot objects: %w", err)
		}
		objs = append(objs, p.objects...)
		groups = append(groups, p.groups...)
	}
	// The constant objects follow all the others in the order of their groups, whichever
	// component selected them.
	slices.SortFunc(groups, func(a, b Constant) int { return int(a.Group - b.Group) })
	return objs, groups, nil
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
	if !slices.Contains(calicov1alpha1.Backends(), o.Backend) {
		errs = append(errs, fmt.Errorf("unknown backend %q", o.Backend))
	}
	if o.Calico.Node.IsZero() || o.Calico.Typha.IsZero() || o.Calico.KubeControllers.IsZero() {
		// Every difference between Calico releases (RBAC, env, CNI config) is chosen by them: without
		// them the roles would grant what no release needs.
		errs = append(errs, errors.New("a Calico component has no release (values.Options.Calico)"))
	}
	if err := o.Layout.Validate(); err != nil {
		errs = append(errs, err)
	}
	if o.TyphaTLS != nil {
		if !o.Typha {
			errs = append(errs, errors.New("typha TLS is set but typha is off"))
		}
		if err := o.TyphaTLS.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := checkComponents(o); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
