package render

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// layoutOf is the layout options o render in: o.Layout, or kube-system's when it is zero.
func layoutOf(o *values.Options) layout.Layout { return o.Layout.OrDefault() }

// selectorOf is the matchLabels of workload w's immutable selector, which its pods carry and every
// object that selects them uses.
func selectorOf(w layout.Workload) map[string]string {
	return map[string]string{w.Selector.Key: w.Selector.Value}
}

// appLabels are the labels by which layout l names workload w: its selector label and, in a layout
// with AppNameLabel, app.kubernetes.io/name with the same value; extra are added.
func appLabels(l layout.Layout, w layout.Workload, extra map[string]string) map[string]string {
	labels := selectorOf(w)
	if l.AppNameLabel {
		labels[layout.LabelAppName] = w.Selector.Value
	}
	for k, v := range extra {
		labels[k] = v
	}
	return labels
}

func typeMeta(apiVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
}

func meta(name, namespace string, labels map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels}
}

func systemComponent(extra map[string]string) map[string]string {
	l := map[string]string{extensionsv1alpha1.LabelGardenerRole: "system-component"}
	for k, v := range extra {
		l[k] = v
	}
	return l
}

func env(name, value string) corev1.EnvVar { return corev1.EnvVar{Name: name, Value: value} }

// envFromConfigMap is variable name read from key of calico-node's configuration ConfigMap in layout l.
func envFromConfigMap(l layout.Layout, name, key string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: l.ConfigMap}, Key: key,
	}}}
}

func envNodeName(name string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
		APIVersion: "v1", FieldPath: "spec.nodeName",
	}}}
}

// kubeServicesEndpoint lets the operator (or Gardener) point Calico at the API server directly;
// optional because nothing creates it by default.
func kubeServicesEndpoint() []corev1.EnvFromSource {
	return []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: NameKubeServicesEndpoint}, Optional: ptr.To(true),
	}}}
}

func requests(cpu, memory string) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory),
	}}
}

func requestsOf(r values.Resources) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: r.CPU.DeepCopy(), corev1.ResourceMemory: r.Memory.DeepCopy(),
	}}
}

func resourceList(r values.Resources) corev1.ResourceList {
	l := corev1.ResourceList{}
	if !r.CPU.IsZero() {
		l[corev1.ResourceCPU] = r.CPU.DeepCopy()
	}
	if !r.Memory.IsZero() {
		l[corev1.ResourceMemory] = r.Memory.DeepCopy()
	}
	if len(l) == 0 {
		return nil
	}
	return l
}

func hostPathVolume(name, path string, typ *corev1.HostPathType) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: path, Type: typ}}}
}

func configMapVolume(name, configMap string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: configMap},
	}}}
}

func privileged() *corev1.SecurityContext {
	return &corev1.SecurityContext{Privileged: ptr.To(true)}
}

func intOrPercent(s string) *intstr.IntOrString { v := intstr.FromString(s); return &v }
func intOrInt(i int) *intstr.IntOrString        { v := intstr.FromInt32(int32(i)); return &v }

var tolerateAll = []corev1.Toleration{
	{Effect: corev1.TaintEffectNoSchedule, Operator: corev1.TolerationOpExists},
	{Effect: corev1.TaintEffectNoExecute, Operator: corev1.TolerationOpExists},
}

func tolerations() []corev1.Toleration { return append([]corev1.Toleration(nil), tolerateAll...) }

// checksum is a stable hash of a ConfigMap's data: pods that mount it roll when it changes.
func checksum(data map[string]string) string {
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{0})
		h.Write([]byte(data[k]))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func seccompRuntimeDefault() *corev1.SeccompProfile {
	return &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func serviceAccount(l layout.Layout, name string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{
		TypeMeta:   typeMeta("v1", "ServiceAccount"),
		ObjectMeta: meta(name, l.Namespace, nil),
		// False on the ServiceAccount and unset on the pods: that is the combination on which the shoot
		// resource manager's projected-token-mount webhook injects a short-lived projected token
		// (docs/render.md, "Under Gardener's resource manager"). A pod that set the field itself
		// would get no token at all.
		AutomountServiceAccountToken: ptr.To(false),
	}
}

// monitoringService returns a Service Prometheus discovers one of calico's metrics endpoints
// by. There is one per running component, none for a component that is switched off: felix's
// and bird's are calico-node's (node.go), typha's is typha's (typha.go). It selects the pods of
// workload w in layout l.
func monitoringService(l layout.Layout, name string, w layout.Workload, port int32, portName string) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   typeMeta("v1", "Service"),
		ObjectMeta: meta(name, l.Namespace, map[string]string{"k8s-app": name}),
		Spec: corev1.ServiceSpec{
			Ports:    []corev1.ServicePort{{Name: portName, Port: port, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(port)}},
			Selector: selectorOf(w),
		},
	}
}

const crdGroup = "crd.projectcalico.org"

func clusterRole(name string, labels map[string]string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta:   typeMeta("rbac.authorization.k8s.io/v1", "ClusterRole"),
		ObjectMeta: meta(name, "", labels),
		Rules:      rules,
	}
}

func clusterRoleBinding(name, role string, labels map[string]string, subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   typeMeta("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
		ObjectMeta: meta(name, "", labels),
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role},
		Subjects:   subjects,
	}
}

func saSubject(l layout.Layout, name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: l.Namespace}
}

func rule(groups, resources, verbs []string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: groups, Resources: resources, Verbs: verbs}
}

var (
	core    = []string{""}
	calico  = []string{crdGroup}
	read    = []string{"get", "list", "watch"}
	ipamRes = []string{"blockaffinities", "ipamblocks", "ipamhandles"}
)
