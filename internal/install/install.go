package install

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/plan"
)

// FieldManager is the field manager of everything calico-pilot applies; an object with its entry
// in metadata.managedFields was applied by calico-pilot.
const FieldManager = "calico-pilot"

// ManifestTyphaDeployment is the name of Typha's Deployment in upstream's calico-typha.yaml
// (calico-pilot's render names it calicoversion.TyphaDeployment).
const ManifestTyphaDeployment = "calico-typha"

// Install is the Calico a cluster runs, as read by Read. Zero values mean "not found" or "the
// cluster does not say".
type Install struct {
	// Workloads are the components' workloads found, in calicoversion.Components order.
	Workloads []Workload
	// Config is calico-node's configuration (calico-config), nil when there is none.
	Config *Config
	// IPAM is the CNI IPAM the nodes run (from Config's conflist).
	IPAM IPAM
	// Backend is calico-node's networking backend (bird, vxlan, none; "" unknown) and where it was read.
	Backend, BackendSource string
	// VethMTU is the MTU Calico gives workload interfaces ("0": auto-detected; "" unknown).
	VethMTU string
	// Typha says whether Typha runs and how.
	Typha Typha
	// Pools are the IP pools as their owner has them; Blocks the IPAM blocks (allocations).
	Pools  []calicov1.IPPool
	Blocks []calicov1.IPAMBlock
	// PodNetworkPods is true when at least one pod on the pod network (not hostNetwork) exists: it
	// holds an address from the running IPAM.
	PodNetworkPods bool
	// CRDs are the cluster's Calico CRDs (crd.projectcalico.org, and the policy API's that Calico's
	// CRD sets carry), by name.
	CRDs map[string]*apiextensionsv1.CustomResourceDefinition
	// Layout is where the workloads were found: kube-system (calico-pilot's and upstream's manifest's
	// names) or the tigera operator's calico-system.
	Layout layout.Layout
	// Operator is the tigera operator's install (nil when nothing gives the operator away).
	Operator *Operator
}

// Workload is one component's workload as it runs.
type Workload struct {
	Component calicoversion.Component
	// Kind, Namespace and Name identify the object.
	Kind, Namespace, Name string
	// Image is the component's main container's image.
	Image string
	// Env is the main container's env by name: a literal value, or "configmap NAME KEY" for a value
	// taken from a ConfigMap, "field PATH" for one from the pod.
	Env map[string]string
	// Replicas is a Deployment's spec.replicas (a DaemonSet's: 0).
	Replicas int32
	// ByCalicoPilot is true when calico-pilot applied the object (its field manager).
	ByCalicoPilot bool
}

// IPAM is the CNI IPAM configuration the nodes run.
type IPAM struct {
	// Type is calico-ipam or host-local ("" when the cluster does not say).
	Type string
	// Subnet is host-local's subnet ("usePodCidr" takes the Node's spec.podCIDR).
	Subnet string
	// Source says where it was read.
	Source string
}

// Typha is Typha as it runs.
type Typha struct {
	// Known is true when the cluster says whether Typha is on (calico-config's typha_service_name or
	// calico-node's FELIX_TYPHAK8SSERVICENAME).
	Known bool
	// Enabled is true when calico-node connects to Typha; Source says where that was read.
	Enabled bool
	Source  string
	// Replicas of its Deployment (0 when not found).
	Replicas int32
	// TLS is true when calico-node's Felix connects to Typha with mTLS (FELIX_TYPHACAFILE).
	TLS bool
}

// Config is calico-node's configuration ConfigMap.
type Config struct {
	Namespace, Name string
	Data            map[string]string
}

// Found is true when any Calico workload runs.
func (in *Install) Found() bool { return in != nil && len(in.Workloads) > 0 }

// Workload returns the component's workload (nil when it does not run).
func (in *Install) Workload(c calicoversion.Component) *Workload {
	for i := range in.Workloads {
		if in.Workloads[i].Component == c {
			return &in.Workloads[i]
		}
	}
	return nil
}

// ByCalicoPilot is true when calico-pilot applied calico-node (an install it made, whatever its
// state ConfigMap says).
func (in *Install) ByCalicoPilot() bool {
	w := in.Workload(calicoversion.Node)
	return w != nil && w.ByCalicoPilot
}

// Read reads what runs in the cluster. Objects that do not exist, kinds whose CRD is not installed
// and reads RBAC forbids are "not found"; any other failure is an error naming the read.
func Read(ctx context.Context, c client.Reader) (*Install, error) {
	in := &Install{Layout: layout.KubeSystem(), CRDs: map[string]*apiextensionsv1.CustomResourceDefinition{}}
	if err := in.readOperator(ctx, c); err != nil {
		return nil, err
	}
	if in.IsOperator() {
		in.Layout = layout.TigeraOperator()
		if err := in.readOperatorInstall(ctx, c, in.Layout); err != nil {
			return nil, err
		}
	}
	for _, step := range []func(context.Context, client.Reader) error{
		in.readWorkloads, in.readConfig, in.readPools, in.readBlocks, in.readPods, in.readCRDs,
	} {
		if err := step(ctx, c); err != nil {
			return nil, err
		}
	}
	in.deriveIPAM()
	in.deriveBackend()
	in.deriveTypha()
	return in, nil
}

// absent is true for errors that mean "the cluster has none of it".
func absent(err error) bool {
	return apierrors.IsNotFound(err) || meta.IsNoMatchError(err) || apierrors.IsForbidden(err)
}

// readOperator looks for the tigera operator: an Installation resource, the calico-system
// namespace, the tigera-operator Deployment.
func (in *Install) readOperator(ctx context.Context, c client.Reader) error {
	var signs []string
	defer func() {
		if len(signs) > 0 {
			in.Operator = &Operator{Signs: signs}
		}
	}()
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion("operator.tigera.io/v1")
	list.SetKind("InstallationList")
	switch err := c.List(ctx, list); {
	case err == nil:
		for _, i := range list.Items {
			signs = append(signs, "Installation "+i.GetName())
		}
	case !absent(err):
		return fmt.Errorf("looking for the tigera operator's Installation: %w", err)
	}
	var ns corev1.Namespace
	switch err := c.Get(ctx, client.ObjectKey{Name: "calico-system"}, &ns); {
	case err == nil:
		signs = append(signs, "namespace calico-system")
	case !absent(err):
		return fmt.Errorf("looking for the calico-system namespace: %w", err)
	}
	var d appsv1.Deployment
	switch err := c.Get(ctx, client.ObjectKey{Namespace: "tigera-operator", Name: "tigera-operator"}, &d); {
	case err == nil:
		signs = append(signs, "Deployment tigera-operator/tigera-operator")
	case !absent(err):
		return fmt.Errorf("looking for the tigera-operator Deployment: %w", err)
	}
	return nil
}

// workloadNames are the names a component's workload may have in the layout: the layout's first;
// in kube-system then upstream's manifest's where it differs (Typha's).
func (in *Install) workloadNames(comp calicoversion.Component) []string {
	names := []string{in.Layout.Workload(comp).Name}
	if comp == calicoversion.Typha && !in.IsOperator() {
		names = append(names, ManifestTyphaDeployment)
	}
	return names
}

// readWorkloads reads calico-node, Typha and kube-controllers.
func (in *Install) readWorkloads(ctx context.Context, c client.Reader) error {
	for _, comp := range calicoversion.Components() {
		for _, name := range in.workloadNames(comp) {
			w, found, err := readWorkload(ctx, c, comp, in.Layout.Namespace, name)
			if err != nil {
				return err
			}
			if found {
				in.Workloads = append(in.Workloads, w)
				if comp == calicoversion.Typha && name != in.Layout.Typha.Name {
					// Upstream's calico-typha.yaml: Typha is taken over under its own name.
					in.Layout.Typha.Name = name
				}
				break
			}
		}
	}
	return nil
}

func readWorkload(ctx context.Context, c client.Reader, comp calicoversion.Component, ns, name string) (Workload, bool, error) {
	kind := comp.Workload().Kind
	w := Workload{Component: comp, Kind: kind, Namespace: ns, Name: name}
	var spec corev1.PodSpec
	var obj client.Object
	key := client.ObjectKey{Namespace: ns, Name: name}
	switch kind {
	case "DaemonSet":
		ds := &appsv1.DaemonSet{}
		if err := c.Get(ctx, key, ds); err != nil {
			return w, false, ignoreAbsent(err, kind, key)
		}
		obj, spec = ds, ds.Spec.Template.Spec
	default:
		d := &appsv1.Deployment{}
		if err := c.Get(ctx, key, d); err != nil {
			return w, false, ignoreAbsent(err, kind, key)
		}
		obj, spec = d, d.Spec.Template.Spec
		w.Replicas = 1
		if d.Spec.Replicas != nil {
			w.Replicas = *d.Spec.Replicas
		}
	}
	w.ByCalicoPilot = managedBy(obj, FieldManager)
	for _, ctr := range spec.Containers {
		if ctr.Name == string(comp) {
			w.Image = ctr.Image
			w.Env = envOf(ctr)
		}
	}
	if w.Image == "" && len(spec.Containers) > 0 {
		w.Image, w.Env = spec.Containers[0].Image, envOf(spec.Containers[0])
	}
	return w, true, nil
}

func ignoreAbsent(err error, kind string, key client.ObjectKey) error {
	if absent(err) {
		return nil
	}
	return fmt.Errorf("reading %s %s: %w", kind, key, err)
}

// envOf is a container's env by name, in the form of Workload.Env.
func envOf(ctr corev1.Container) map[string]string {
	out := make(map[string]string, len(ctr.Env))
	for _, e := range ctr.Env {
		switch {
		case e.ValueFrom == nil:
			out[e.Name] = e.Value
		case e.ValueFrom.ConfigMapKeyRef != nil:
			out[e.Name] = "configmap " + e.ValueFrom.ConfigMapKeyRef.Name + " " + e.ValueFrom.ConfigMapKeyRef.Key
		case e.ValueFrom.FieldRef != nil:
			out[e.Name] = "field " + e.ValueFrom.FieldRef.FieldPath
		default:
			out[e.Name] = "(from the pod)"
		}
	}
	return out
}

func managedBy(obj client.Object, manager string) bool {
	for _, m := range obj.GetManagedFields() {
		if m.Manager == manager {
			return true
		}
	}
	return false
}

// readConfig reads calico-config.
func (in *Install) readConfig(ctx context.Context, c client.Reader) error {
	var cm corev1.ConfigMap
	key := client.ObjectKey{Namespace: in.Layout.Namespace, Name: in.Layout.ConfigMap}
	if err := c.Get(ctx, key, &cm); err != nil {
		return ignoreAbsent(err, "ConfigMap", key)
	}
	in.Config = &Config{Namespace: cm.Namespace, Name: cm.Name, Data: cm.Data}
	return nil
}

func (in *Install) readPools(ctx context.Context, c client.Reader) error {
	var l calicov1.IPPoolList
	if err := c.List(ctx, &l); err != nil {
		if absent(err) {
			return nil
		}
		return fmt.Errorf("listing IP pools: %w", err)
	}
	in.Pools = l.Items
	return nil
}

func (in *Install) readBlocks(ctx context.Context, c client.Reader) error {
	var l calicov1.IPAMBlockList
	if err := c.List(ctx, &l); err != nil {
		if absent(err) {
			return nil
		}
		return fmt.Errorf("listing IPAM blocks: %w", err)
	}
	in.Blocks = l.Items
	return nil
}

// readPods asks whether one pod on the pod network exists (one item, whatever the cluster's size).
func (in *Install) readPods(ctx context.Context, c client.Reader) error {
	var l corev1.PodList
	err := c.List(ctx, &l, client.Limit(1), client.MatchingFieldsSelector{Selector: fields.OneTermEqualSelector("spec.hostNetwork", "false")})
	if err != nil {
		if absent(err) {
			return nil
		}
		return fmt.Errorf("listing pods on the pod network: %w", err)
	}
	in.PodNetworkPods = len(l.Items) > 0
	return nil
}

// readCRDs reads the Calico CRDs the cluster holds.
func (in *Install) readCRDs(ctx context.Context, c client.Reader) error {
	var l apiextensionsv1.CustomResourceDefinitionList
	if err := c.List(ctx, &l); err != nil {
		if absent(err) {
			return nil
		}
		return fmt.Errorf("listing CRDs: %w", err)
	}
	for i := range l.Items {
		crd := &l.Items[i]
		if strings.HasSuffix(crd.Spec.Group, "projectcalico.org") || crd.Spec.Group == "policy.networking.k8s.io" {
			in.CRDs[crd.Name] = crd
		}
	}
	return nil
}

// Allocations counts the addresses IPAM blocks hand out.
func (in *Install) Allocations() int {
	n := 0
	for _, b := range in.Blocks {
		for _, a := range b.Spec.Allocations {
			if a != nil {
				n++
			}
		}
	}
	return n
}

// Live is what plan's live checks read (internal/plan): the pools and IPAM blocks as read, the
// Calico CRDs with their stored versions, and for the CRDs named in count (those a plan changes) the
// number of stored objects and of each spec field they set.
func (in *Install) Live(ctx context.Context, c client.Reader, count []string) (*plan.Live, error) {
	live := &plan.Live{Pools: in.Pools, Blocks: in.Blocks, CRDs: map[string]plan.CRDState{}}
	for name, crd := range in.CRDs {
		live.CRDs[name] = plan.CRDState{StoredVersions: crd.Status.StoredVersions, FieldUse: map[string]int{}}
	}
	for _, name := range count {
		crd, ok := in.CRDs[name]
		if !ok {
			// A CRD of another group the plan changes (multus's): read it on its own.
			crd = &apiextensionsv1.CustomResourceDefinition{}
			if err := c.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
				if absent(err) {
					continue
				}
				return nil, fmt.Errorf("reading CRD %s: %w", name, err)
			}
		}
		st := plan.CRDState{StoredVersions: crd.Status.StoredVersions, FieldUse: map[string]int{}}
		var list unstructured.UnstructuredList
		list.SetAPIVersion(crd.Spec.Group + "/" + storageVersion(crd))
		list.SetKind(crd.Spec.Names.ListKind)
		if err := c.List(ctx, &list); err != nil {
			return nil, fmt.Errorf("listing %s: %w", crd.Name, err)
		}
		st.Objects = len(list.Items)
		for _, item := range list.Items {
			countFields(item.Object, "", st.FieldUse)
		}
		live.CRDs[name] = st
	}
	return live, nil
}

func storageVersion(crd *apiextensionsv1.CustomResourceDefinition) string {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return crd.Spec.Versions[0].Name
}

// countFields counts the set fields of spec (nested maps as dotted paths).
func countFields(obj map[string]any, prefix string, into map[string]int) {
	for k, v := range obj {
		if prefix == "" && k != "spec" {
			continue
		}
		path := k
		if prefix != "" {
			path = prefix + "." + k
		}
		into[path]++
		if m, ok := v.(map[string]any); ok {
			countFields(m, path, into)
		}
	}
}
