package render

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// Builders the components share for their autoscalers: the cluster-proportional autoscalers
// (cluster-proportional-autoscaler for typha's replicas, cpvpa for calico-node's and typha's
// requests) and VerticalPodAutoscalers. Which autoscalers a shoot gets is decided in
// values.Resolve; each component adds its own (node.go, typha.go, kubecontrollers.go).

// cpvaConstants returns a cpvpa's RBAC, ServiceAccount and ConfigMap: they depend only on what
// it scales, not on the options.
func cpvaConstants(l layout.Layout, c cpva) []client.Object {
	return []client.Object{
		clusterRole(c.rbacName, nil,
			// Counts nodes.
			rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"list", "watch"}},
			// Reads and patches the target's resource requests.
			rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{c.targetKind + "s"}, Verbs: []string{"get", "patch"}, ResourceNames: []string{c.targetName}},
		),
		clusterRoleBinding(c.rbacName, c.rbacName, nil, saSubject(l, c.rbacName)),
		serviceAccount(l, c.rbacName),
		autoscalerConfigMap(l, c.name, map[string]string{c.key: c.config}),
	}
}

// cpva describes a cluster-proportional vertical autoscaler (cpvpa): its Deployment (cpvaDeployment)
// and the objects that do not depend on the options (cpvaConstants) are built from the one value.
type cpva struct {
	// name of the Deployment and its ConfigMap; app is its k8s-app label (selector), the
	// reference's, which differs from the name for calico-node's.
	name, app string
	// rbacName is its ServiceAccount and RBAC; priorityClass its pods' priority class.
	rbacName, priorityClass string
	// targetKind and targetName are what it scales; key and config its ConfigMap entry.
	targetKind, targetName, key, config string
}

func cpvaDeployment(o *values.Options, c cpva) client.Object {
	return autoscalerDeployment(o, autoscaler{
		name: c.name, app: c.app, serviceAccount: c.rbacName, image: o.Images.CPVA, priorityClass: c.priorityClass,
		command: []string{
			"/cpvpa",
			"--target=" + c.targetKind + "/" + c.targetName,
			"--namespace=" + layoutOf(o).Namespace,
			"--logtostderr=true",
			"--poll-period-seconds=30",
			"--v=2",
			"--config-file=/etc/config/" + c.key,
		},
		config: map[string]string{c.key: c.config}, mountConfig: true,
	})
}

func autoscalerConfigMap(l layout.Layout, name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   typeMeta("v1", "ConfigMap"),
		ObjectMeta: meta(name, l.Namespace, nil),
		Data:       data,
	}
}

// autoscaler describes an autoscaler Deployment (cluster-proportional-autoscaler or cpvpa).
type autoscaler struct {
	// name of the Deployment and its ConfigMap; app is its k8s-app label (selector).
	name, app                            string
	serviceAccount, image, priorityClass string
	command                              []string
	// config is the ConfigMap's data (its checksum rolls the pods); mountConfig mounts it at /etc/config.
	config      map[string]string
	mountConfig bool
}

func autoscalerDeployment(o *values.Options, a autoscaler) *appsv1.Deployment {
	name := a.name
	labels := systemComponent(map[string]string{"k8s-app": a.app})
	d := &appsv1.Deployment{
		TypeMeta: typeMeta("apps/v1", "Deployment"),
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: layoutOf(o).Namespace, Labels: labels,
			// A selector change cannot be applied in place; let the resource manager re-create it.
			Annotations: map[string]string{resourcesv1alpha1.AnnotationDeleteOnInvalidUpdate: "true"},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To[int32](1),
			RevisionHistoryLimit: ptr.To[int32](2),
			Selector:             &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": a.app}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels:      gardenerPodLabels(map[string]string{"k8s-app": a.app}),
					Annotations: map[string]string{fmt.Sprintf("checksum/configmap-%s", name): checksum(a.config)},
				},
				Spec: corev1.PodSpec{
					NodeSelector:       map[string]string{"kubernetes.io/os": "linux"},
					PriorityClassName:  a.priorityClass,
					ServiceAccountName: a.serviceAccount,
					DNSPolicy:          corev1.DNSDefault,
					Tolerations:        []corev1.Toleration{{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists}},
					SecurityContext: &corev1.PodSecurityContext{
						RunAsUser: ptr.To[int64](65532), RunAsNonRoot: ptr.To(true), SupplementalGroups: []int64{65532},
						FSGroup: ptr.To[int64](65532), SeccompProfile: seccompRuntimeDefault(),
					},
					Containers: []corev1.Container{{
						Name:            "autoscaler",
						Image:           a.image,
						Command:         a.command,
						Resources:       requests("10m", "50Mi"),
						SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)},
					}},
				},
			},
		},
	}
	if a.mountConfig {
		spec := &d.Spec.Template.Spec
		spec.Volumes = []corev1.Volume{configMapVolume("config", name)}
		spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/config"}}
	}
	return d
}

func vpa(l layout.Layout, name, kind, target string, policies []vpav1.ContainerResourcePolicy) *vpav1.VerticalPodAutoscaler {
	return &vpav1.VerticalPodAutoscaler{
		TypeMeta:   typeMeta("autoscaling.k8s.io/v1", "VerticalPodAutoscaler"),
		ObjectMeta: meta(name, l.Namespace, nil),
		Spec: vpav1.VerticalPodAutoscalerSpec{
			TargetRef:      &autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: kind, Name: target},
			UpdatePolicy:   &vpav1.PodUpdatePolicy{UpdateMode: ptr.To(vpav1.UpdateModeInPlaceOrRecreate)},
			ResourcePolicy: &vpav1.PodResourcePolicy{ContainerPolicies: policies},
		},
	}
}

// gardenerPodLabels adds to the labels of a Deployment's pods what the reference's carry and the
// shoot's network policies select on: origin gardener, and egress to the API server, DNS and public
// networks (gardenlet's gardener.cloud--allow-* policies in kube-system).
func gardenerPodLabels(labels map[string]string) map[string]string {
	labels["origin"] = "gardener"
	labels["networking.gardener.cloud/to-apiserver"] = "allowed"
	labels["networking.gardener.cloud/to-dns"] = "allowed"
	labels["networking.gardener.cloud/to-public-networks"] = "allowed"
	return systemComponent(labels)
}
