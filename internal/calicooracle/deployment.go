package calicooracle

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/layout"
)

// Namespace is where Calico's components and their ServiceAccounts live in calico-pilot's default
// layout, as the tables name it (InspectLayout reads a render of another layout).
const Namespace = "kube-system"

// Deployment is what a render runs: per running component its ServiceAccount and pod, and the
// conditions rows depend on.
type Deployment struct {
	// Namespace is where the components and their ServiceAccounts run (the layout's namespace).
	Namespace string
	// Components maps a running component's name to how it runs.
	Components map[string]Running
	// Conditions are the conditions that hold for this render.
	Conditions map[Condition]bool
	// Env is calico-node's container environment (literal values; references as "<from NAME>").
	Env map[string]string
	// Pod is calico-node's pod template.
	Pod *corev1.PodSpec
	// ConfigMap is the data of calico-node's ConfigMap (calico-config in the default layout).
	ConfigMap map[string]string
}

// Running is one running component.
type Running struct {
	ServiceAccount string
	// Pod is the rendered pod spec, nil for the CNI plugin.
	Pod *corev1.PodSpec
}

// Inspect reads a render (every object calico-pilot deploys into the shoot) the way the kubelet
// would run it: which of the table's components run, under which ServiceAccount, and which
// conditions hold. It reads the default (kube-system) layout; InspectLayout reads another.
func Inspect(t *Table, objs []*unstructured.Unstructured) (*Deployment, error) {
	return InspectLayout(t, objs, layout.Layout{})
}

// InspectLayout is Inspect of a render in layout l (the zero Layout: kube-system): the table's
// components are found as the layout names their workloads (its calico-node DaemonSet, Typha and
// kube-controllers Deployments, the CNI plugin's ServiceAccount) in its namespace, calico-node's
// ConfigMap is the layout's, and the replay requests tokens of the ServiceAccounts in that namespace
// and makes the rows marked ownNamespace there. The rows name Calico's objects by the default
// layout's names (the CNI plugin's ServiceAccount, the calico-node DaemonSet, Typha's Service); a
// layout that renames one of them is refused, as its rows would ask for objects it lacks.
func InspectLayout(t *Table, objs []*unstructured.Unstructured, l layout.Layout) (*Deployment, error) {
	l = l.OrDefault()
	if err := l.Validate(); err != nil {
		return nil, err
	}
	def := layout.KubeSystem()
	if l.CNIPlugin != def.CNIPlugin || l.Node.Name != def.Node.Name || l.TyphaService != def.TyphaService {
		return nil, fmt.Errorf("layout of namespace %s: the oracle's rows name ServiceAccount %s, DaemonSet %s and Service %s, which the layout calls %s, %s and %s",
			l.Namespace, def.CNIPlugin, def.Node.Name, def.TyphaService, l.CNIPlugin, l.Node.Name, l.TyphaService)
	}
	d := &Deployment{Namespace: l.Namespace, Components: map[string]Running{}, Conditions: map[Condition]bool{}, Env: map[string]string{}}
	r, err := readNamespace(objs, l)
	if err != nil {
		return nil, err
	}
	d.ConfigMap = r.configMap
	if err := d.runComponents(t, r, l); err != nil {
		return nil, err
	}
	node, ok := d.Components["calico-node"]
	if !ok || node.Pod == nil {
		return nil, fmt.Errorf("the render has no calico-node workload")
	}
	d.Pod = node.Pod
	for _, c := range node.Pod.Containers {
		if c.Name != "calico-node" {
			continue
		}
		for _, e := range c.Env {
			d.Env[e.Name] = envValue(e)
		}
	}
	d.Conditions[CalicoIPAM] = !strings.EqualFold(d.Env["USE_POD_CIDR"], "true")
	d.Conditions[NetworkingBackend] = d.backend() != "none"
	return d, nil
}

// calicoNamespace is what Inspect reads of a render's objects in the layout's namespace: the pod
// templates of its workloads by "Kind/name", the names of its ServiceAccounts, and the data of
// calico-node's ConfigMap.
type calicoNamespace struct {
	workloads       map[string]*corev1.PodSpec
	serviceAccounts map[string]bool
	configMap       map[string]string
}

// readNamespace reads the workloads, ServiceAccounts and calico-node's ConfigMap of a render in
// layout l.
func readNamespace(objs []*unstructured.Unstructured, l layout.Layout) (calicoNamespace, error) {
	r := calicoNamespace{workloads: map[string]*corev1.PodSpec{}, serviceAccounts: map[string]bool{}}
	for _, o := range objs {
		if o.GetNamespace() != l.Namespace {
			continue
		}
		key := o.GetKind() + "/" + o.GetName()
		switch o.GetKind() {
		case "DaemonSet":
			var ds appsv1.DaemonSet
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &ds); err != nil {
				return r, fmt.Errorf("decoding %s: %w", key, err)
			}
			r.workloads[key] = &ds.Spec.Template.Spec
		case "Deployment":
			var dep appsv1.Deployment
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &dep); err != nil {
				return r, fmt.Errorf("decoding %s: %w", key, err)
			}
			r.workloads[key] = &dep.Spec.Template.Spec
		case "ServiceAccount":
			r.serviceAccounts[o.GetName()] = true
		case "ConfigMap":
			if o.GetName() != l.ConfigMap {
				continue
			}
			data, _, err := unstructured.NestedStringMap(o.Object, "data")
			if err != nil {
				return r, fmt.Errorf("decoding %s: %w", key, err)
			}
			r.configMap = data
		}
	}
	return r, nil
}

// runComponents records the table's components the render runs in layout l, each with its
// ServiceAccount (which the render must contain) and, for a workload, its pod.
func (d *Deployment) runComponents(t *Table, r calicoNamespace, l layout.Layout) error {
	for _, c := range t.Components {
		if c.ServiceAccount != "" {
			sa := c.ServiceAccount
			if sa == layout.KubeSystem().CNIPlugin {
				sa = l.CNIPlugin
			}
			if !r.serviceAccounts[sa] {
				return fmt.Errorf("component %s runs as ServiceAccount %s/%s, which the render does not contain", c.Name, l.Namespace, sa)
			}
			d.Components[c.Name] = Running{ServiceAccount: sa}
			continue
		}
		workload, err := workloadIn(c.Workload, l)
		if err != nil {
			return fmt.Errorf("component %s: %w", c.Name, err)
		}
		pod, ok := r.workloads[workload]
		if !ok {
			continue
		}
		sa := cmp.Or(pod.ServiceAccountName, "default")
		if !r.serviceAccounts[sa] {
			return fmt.Errorf("component %s (%s) runs as ServiceAccount %s/%s, which the render does not contain", c.Name, workload, l.Namespace, sa)
		}
		d.Components[c.Name] = Running{ServiceAccount: sa, Pod: pod}
	}
	return nil
}

// workloadIn is the "Kind/name" of layout l's workload of the component whose workload the table
// names (a workload of the default layout).
func workloadIn(tableWorkload string, l layout.Layout) (string, error) {
	kind, name, _ := strings.Cut(tableWorkload, "/")
	for _, c := range calicoversion.AllComponents() {
		if w := layout.KubeSystem().Workload(c); w.Kind == kind && w.Name == name {
			w = l.Workload(c)
			return w.Kind + "/" + w.Name, nil
		}
	}
	return "", fmt.Errorf("workload %s is no Calico component's in the default layout", tableWorkload)
}

// namespace is where the components run: Namespace unless Inspected in another layout.
func (d *Deployment) namespace() string { return cmp.Or(d.Namespace, Namespace) }

// backend is CALICO_NETWORKING_BACKEND as calico-node sees it.
func (d *Deployment) backend() string {
	v := d.Env["CALICO_NETWORKING_BACKEND"]
	if from, ok := strings.CutPrefix(v, "<from "); ok {
		return d.ConfigMap[strings.TrimSuffix(from, ">")]
	}
	return v
}

func envValue(e corev1.EnvVar) string {
	switch {
	case e.ValueFrom == nil:
		return e.Value
	case e.ValueFrom.ConfigMapKeyRef != nil:
		return "<from " + e.ValueFrom.ConfigMapKeyRef.Key + ">"
	default:
		return "<from reference>"
	}
}

// Applies reports whether a row is made in this deployment by component c.
func (d *Deployment) Applies(r *Request, component string) bool {
	if _, ok := d.Components[component]; !ok || !slices.Contains(r.Components, component) {
		return false
	}
	for _, c := range r.When {
		if !d.Conditions[c] {
			return false
		}
	}
	return true
}

// ReadRender reads a render written as YAML files (every *.yaml file of dir, e.g. a scenario's
// golden files or `calico-pilot render --output-dir`), in file order.
func ReadRender(dir string) ([]*unstructured.Unstructured, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no *.yaml files in %s", dir)
	}
	var objs []*unstructured.Unstructured
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			u := &unstructured.Unstructured{}
			if err := dec.Decode(&u.Object); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return nil, fmt.Errorf("decoding %s: %w", f, err)
			}
			if len(u.Object) > 0 {
				objs = append(objs, u)
			}
		}
	}
	return objs, nil
}
