package render

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/values"
)

// kubeControllers returns the calico-kube-controllers Deployment (when a routing backend runs);
// its PodDisruptionBudget, ServiceAccount and RBAC are constant (kubeControllersConstants).
func kubeControllers(o *values.Options) []client.Object {
	if !o.KubeControllers {
		return nil
	}
	labels := systemComponent(map[string]string{"k8s-app": NameKubeControllers})
	probe := func(flag string) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler:   corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"/usr/bin/check-status", flag}}},
			PeriodSeconds:  10,
			TimeoutSeconds: 10,
		}
	}
	d := &appsv1.Deployment{
		TypeMeta:   typeMeta("apps/v1", "Deployment"),
		ObjectMeta: meta(NameKubeControllers, Namespace, labels),
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To[int32](1),
			RevisionHistoryLimit: ptr.To[int32](2),
			Selector:             &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": NameKubeControllers}},
			// Only one instance may run at a time.
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: systemComponent(map[string]string{
					"k8s-app":                                NameKubeControllers,
					"networking.gardener.cloud/to-apiserver": "allowed",
					"networking.gardener.cloud/to-dns":       "allowed",
				})},
				Spec: corev1.PodSpec{
					NodeSelector:                 map[string]string{"kubernetes.io/os": "linux"},
					Tolerations:                  []corev1.Toleration{{Effect: corev1.TaintEffectNoSchedule, Operator: corev1.TolerationOpExists}},
					ServiceAccountName:           NameKubeControllers,
					AutomountServiceAccountToken: ptr.To(false),
					PriorityClassName:            "system-cluster-critical",
					DNSPolicy:                    corev1.DNSDefault,
					SecurityContext:              &corev1.PodSecurityContext{SeccompProfile: seccompRuntimeDefault()},
					Containers: []corev1.Container{{
						Name:  NameKubeControllers,
						Image: o.Images.CalicoKubeControllers,
						Env: []corev1.EnvVar{
							env("ENABLED_CONTROLLERS", "node,loadbalancer"),
							env("DATASTORE_TYPE", "kubernetes"),
						},
						EnvFrom:        kubeServicesEndpoint(),
						Resources:      requests("10m", "50Mi"),
						LivenessProbe:  probe("-l"),
						ReadinessProbe: probe("-r"),
						SecurityContext: &corev1.SecurityContext{
							RunAsNonRoot: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false),
						},
					}},
				},
			},
		},
	}
	return []client.Object{d}
}

// kubeControllersConstants returns kube-controllers' PodDisruptionBudget, ServiceAccount and
// RBAC, which do not depend on the options (see ConstantGroup).
func kubeControllersConstants() []client.Object {
	labels := systemComponent(map[string]string{"k8s-app": NameKubeControllers})
	return append([]client.Object{
		&policyv1.PodDisruptionBudget{
			TypeMeta:   typeMeta("policy/v1", "PodDisruptionBudget"),
			ObjectMeta: meta(NameKubeControllers, Namespace, labels),
			Spec: policyv1.PodDisruptionBudgetSpec{
				MaxUnavailable:             intOrInt(1),
				Selector:                   &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": NameKubeControllers}},
				UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow),
			},
		},
		serviceAccount(NameKubeControllers),
	}, kubeControllersRBAC()...)
}
