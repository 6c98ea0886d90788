package render

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/values"
)

// typha returns calico-typha's Deployment; its other objects are in typhaConstants.
func typha(o *values.Options) []client.Object {
	if !o.Typha {
		return nil
	}
	return []client.Object{typhaDeployment(o)}
}

// typhaConstants returns typha's Service, PodDisruptionBudget, ServiceAccount, metrics Service
// and NetworkPolicy, which do not depend on the options (see ConstantGroup).
func typhaConstants() []client.Object {
	labels := systemComponent(map[string]string{"k8s-app": NameTypha})
	return []client.Object{
		&corev1.Service{
			TypeMeta:   typeMeta("v1", "Service"),
			ObjectMeta: meta(NameTypha, Namespace, labels),
			Spec: corev1.ServiceSpec{
				Ports:    []corev1.ServicePort{{Name: NameTypha, Port: 5473, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromString(NameTypha)}},
				Selector: map[string]string{"k8s-app": NameTypha},
			},
		},
		&policyv1.PodDisruptionBudget{
			TypeMeta:   typeMeta("policy/v1", "PodDisruptionBudget"),
			ObjectMeta: meta(NameTypha, Namespace, labels),
			Spec: policyv1.PodDisruptionBudgetSpec{
				MaxUnavailable: intOrInt(1),
				Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": NameTypha}},
				// A crash-looping typha must not block node drains.
				UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow),
			},
		},
		serviceAccount(NameTypha),
		monitoringService(NameTyphaMonitoring, NameTypha, 9093, "metrics"),
		typhaNetworkPolicy(),
	}
}

func typhaDeployment(o *values.Options) *appsv1.Deployment {
	var e []corev1.EnvVar
	if o.IPAM.UsePodCIDR {
		e = append(e, env("USE_POD_CIDR", "true"))
	}
	e = append(e,
		env("TYPHA_PROMETHEUSMETRICSENABLED", "true"),
		env("TYPHA_PROMETHEUSMETRICSPORT", "9093"),
		env("TYPHA_LOGSEVERITYSCREEN", "info"),
		env("TYPHA_LOGFILEPATH", "none"),
		env("TYPHA_LOGSEVERITYSYS", "none"),
		env("TYPHA_CONNECTIONREBALANCINGMODE", "kubernetes"),
		env("TYPHA_DATASTORETYPE", "kubernetes"),
		env("TYPHA_HEALTHENABLED", "true"),
		// Matches terminationGracePeriodSeconds: clients are moved off gradually.
		env("TYPHA_SHUTDOWNTIMEOUTSECS", "300"),
	)
	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler:   corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(9098), Host: "localhost"}},
			PeriodSeconds:  10,
			TimeoutSeconds: 10,
		}
	}
	d := &appsv1.Deployment{
		TypeMeta:   typeMeta("apps/v1", "Deployment"),
		ObjectMeta: meta(NameTyphaDeployment, Namespace, systemComponent(map[string]string{"k8s-app": NameTypha})),
		Spec: appsv1.DeploymentSpec{
			// No replicas: the cluster-proportional autoscaler owns them.
			RevisionHistoryLimit: ptr.To[int32](2),
			Selector:             &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": NameTypha}},
			Strategy: appsv1.DeploymentStrategy{
				Type:          appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: intOrInt(1), MaxSurge: intOrPercent("100%")},
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels: systemComponent(map[string]string{
						"k8s-app": NameTypha, "origin": "gardener",
						"networking.gardener.cloud/to-apiserver": "allowed",
						"networking.gardener.cloud/to-dns":       "allowed",
					}),
					Annotations: map[string]string{"cluster-autoscaler.kubernetes.io/safe-to-evict": "true"},
				},
				Spec: corev1.PodSpec{
					NodeSelector:                  map[string]string{"kubernetes.io/os": "linux"},
					HostNetwork:                   true,
					Tolerations:                   tolerations(),
					TerminationGracePeriodSeconds: ptr.To[int64](300),
					PriorityClassName:             "system-cluster-critical",
					ServiceAccountName:            NameTypha,
					AutomountServiceAccountToken:  ptr.To(false),
					SecurityContext: &corev1.PodSecurityContext{
						RunAsUser: ptr.To[int64](65534), FSGroup: ptr.To[int64](65534),
						SupplementalGroups: []int64{1}, SeccompProfile: seccompRuntimeDefault(),
					},
					Containers: []corev1.Container{{
						Name:  NameTypha,
						Image: o.Images.CalicoTypha,
						Ports: []corev1.ContainerPort{
							{Name: NameTypha, ContainerPort: 5473, Protocol: corev1.ProtocolTCP},
							{Name: "metrics", ContainerPort: 9093, Protocol: corev1.ProtocolTCP},
						},
						EnvFrom:        kubeServicesEndpoint(),
						Env:            e,
						Resources:      requestsOf(o.AutoScaling.TyphaRequests),
						LivenessProbe:  probe("/liveness"),
						ReadinessProbe: probe("/readiness"),
						SecurityContext: &corev1.SecurityContext{
							RunAsNonRoot: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false),
						},
					}},
				},
			},
		},
	}
	if o.AutoScaling.PreserveResources {
		d.Annotations = map[string]string{AnnotationPreserveResource: "true"}
	}
	return d
}

func serviceAccount(name string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{
		TypeMeta:   typeMeta("v1", "ServiceAccount"),
		ObjectMeta: meta(name, Namespace, nil),
		// Gardener's resource manager projects tokens into the pods.
		AutomountServiceAccountToken: ptr.To(false),
	}
}
