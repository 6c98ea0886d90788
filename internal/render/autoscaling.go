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

	"github.com/calico-pilot/calico-pilot/internal/values"
)

// Builders the components share for their autoscalers: the cluster-proportional autoscalers
// (cluster-proportional-autoscaler for typha's replicas, cpvpa for calico-node's and typha's
// requests) and VerticalPodAutoscalers. Which autoscalers a shoot gets is decided in
// values.Resolve; each component adds its own (node.go, typha.go, kubecontrollers.go).

// cpvaConstants returns a cpvpa's RBAC, ServiceAccount and ConfigMap: they depend only on what
// it scales, not on the options.
func cpvaConstants(name, rbacName, targetKind, targetName, key, config string) []client.Object {
	return []client.Object{
		clusterRole(rbacName, nil,
			// Counts nodes.
			rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"list", "watch"}},
			// Reads and patches the target's resource requests.
			rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{targetKind + "s"}, Verbs: []string{"get", "patch"}, ResourceNames: []string{targetName}},
		),
		clusterRoleBinding(rbacName, rbacName, nil, saSubject(rbacName)),
		serviceAccount(rbacName),
		autoscalerConfigMap(name, map[string]string{key: config}),
	}
}

func cpvaDeployment(o *values.Options, name, rbacName, targetKind, targetName, key, config string) client.Object {
	return autoscalerDeployment(o, name, rbacName, o.Images.CPVA, "system-cluster-critical", []string{
		"/cpvpa",
		"--target=" + targetKind + "/" + targetName,
		"--namespace=" + Namespace,
		"--logtostderr=true",
		"--poll-period-seconds=30",
		"--v=2",
		"--config-file=/etc/config/" + key,
	}, map[string]string{key: config}, true)
}

func autoscalerConfigMap(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta:   typeMeta("v1", "ConfigMap"),
		ObjectMeta: meta(name, Namespace, nil),
		Data:       data,
	}
}

func autoscalerDeployment(o *values.Options, name, sa, image, priority string, command []string, config map[string]string, mountConfig bool) *appsv1.Deployment {
	labels := systemComponent(map[string]string{"k8s-app": name})
	d := &appsv1.Deployment{
		TypeMeta: typeMeta("apps/v1", "Deployment"),
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: Namespace, Labels: labels,
			// A selector change cannot be applied in place; let the resource manager re-create it.
			Annotations: map[string]string{"resources.gardener.cloud/delete-on-invalid-update": "true"},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To[int32](1),
			RevisionHistoryLimit: ptr.To[int32](2),
			Selector:             &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels: systemComponent(map[string]string{
						"k8s-app": name, "networking.gardener.cloud/to-apiserver": "allowed", "networking.gardener.cloud/to-dns": "allowed",
					}),
					Annotations: map[string]string{fmt.Sprintf("checksum/configmap-%s", name): checksum(config)},
				},
				Spec: corev1.PodSpec{
					NodeSelector:       map[string]string{"kubernetes.io/os": "linux"},
					PriorityClassName:  priority,
					ServiceAccountName: sa,
					DNSPolicy:          corev1.DNSDefault,
					Tolerations:        []corev1.Toleration{{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists}},
					SecurityContext: &corev1.PodSecurityContext{
						RunAsUser: ptr.To[int64](65532), RunAsNonRoot: ptr.To(true), SupplementalGroups: []int64{65532},
						FSGroup: ptr.To[int64](65532), SeccompProfile: seccompRuntimeDefault(),
					},
					Containers: []corev1.Container{{
						Name:            "autoscaler",
						Image:           image,
						Command:         command,
						Resources:       requests("10m", "50Mi"),
						SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false)},
					}},
				},
			},
		},
	}
	if mountConfig {
		spec := &d.Spec.Template.Spec
		spec.Volumes = []corev1.Volume{configMapVolume("config", name)}
		spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/etc/config"}}
	}
	return d
}

func vpa(name, kind, target string, policies []vpav1.ContainerResourcePolicy) *vpav1.VerticalPodAutoscaler {
	return &vpav1.VerticalPodAutoscaler{
		TypeMeta:   typeMeta("autoscaling.k8s.io/v1", "VerticalPodAutoscaler"),
		ObjectMeta: meta(name, Namespace, nil),
		Spec: vpav1.VerticalPodAutoscalerSpec{
			TargetRef:      &autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: kind, Name: target},
			UpdatePolicy:   &vpav1.PodUpdatePolicy{UpdateMode: ptr.To(vpav1.UpdateModeInPlaceOrRecreate)},
			ResourcePolicy: &vpav1.PodResourcePolicy{ContainerPolicies: policies},
		},
	}
}
