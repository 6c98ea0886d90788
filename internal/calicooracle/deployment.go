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
)

// Namespace is where Calico's components and their ServiceAccounts live.
const Namespace = "kube-system"

// Deployment is what a render runs: per running component its ServiceAccount and pod, and the
// conditions rows depend on.
type Deployment struct {
	// Components maps a running component's name to how it runs.
	Components map[string]Running
	// Conditions are the conditions that hold for this render.
	Conditions map[Condition]bool
	// Env is calico-node's container environment (literal values; references as "<from NAME>").
	Env map[string]string
	// Pod is calico-node's pod template.
	Pod *corev1.PodSpec
	// ConfigMap is calico-config's data.
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
// conditions hold.
func Inspect(t *Table, objs []*unstructured.Unstructured) (*Deployment, error) {
	d := &Deployment{Components: map[string]Running{}, Conditions: map[Condition]bool{}, Env: map[string]string{}}
	r, err := readKubeSystem(objs)
	if err != nil {
		return nil, err
	}
	d.ConfigMap = r.configMap
	if err := d.runComponents(t, r); err != nil {
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

// kubeSystem is what Inspect reads of a render's objects in Namespace: the pod templates of its
// workloads by "Kind/name", the names of its ServiceAccounts, and calico-config's data.
type kubeSystem struct {
	workloads       map[string]*corev1.PodSpec
	serviceAccounts map[string]bool
	configMap       map[string]string
}

// readKubeSystem reads the workloads, ServiceAccounts and calico-config of a render.
func readKubeSystem(objs []*unstructured.Unstructured) (kubeSystem, error) {
	r := kubeSystem{workloads: map[string]*corev1.PodSpec{}, serviceAccounts: map[string]bool{}}
	for _, o := range objs {
		if o.GetNamespace() != Namespace {
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
			if o.GetName() != "calico-config" {
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

// runComponents records the table's components the render runs, each with its ServiceAccount
// (which the render must contain) and, for a workload, its pod.
func (d *Deployment) runComponents(t *Table, r kubeSystem) error {
	for _, c := range t.Components {
		if c.ServiceAccount != "" {
			if !r.serviceAccounts[c.ServiceAccount] {
				return fmt.Errorf("component %s runs as ServiceAccount %s/%s, which the render does not contain", c.Name, Namespace, c.ServiceAccount)
			}
			d.Components[c.Name] = Running{ServiceAccount: c.ServiceAccount}
			continue
		}
		pod, ok := r.workloads[c.Workload]
		if !ok {
			continue
		}
		sa := cmp.Or(pod.ServiceAccountName, "default")
		if !r.serviceAccounts[sa] {
			return fmt.Errorf("component %s (%s) runs as ServiceAccount %s/%s, which the render does not contain", c.Name, c.Workload, Namespace, sa)
		}
		d.Components[c.Name] = Running{ServiceAccount: sa, Pod: pod}
	}
	return nil
}

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
