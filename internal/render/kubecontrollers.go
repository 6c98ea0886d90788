package render

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// kubeControllers returns calico-kube-controllers' objects that depend on the options: the
// Deployment (when a routing backend runs) and its VerticalPodAutoscaler (when it runs and the
// shoot runs a VPA). Its PodDisruptionBudget, ServiceAccount and RBAC do not depend on the options
// (kubeControllersConstants in GroupKubeControllers; see constants.go).
func kubeControllers(o *values.Options) (part, error) {
	objs := make([]client.Object, 0, 2) // every object below, without reallocating
	var groups []Constant
	if o.KubeControllers {
		objs = append(objs, kubeControllersDeployment(o))
		groups = append(groups, constantOf(GroupKubeControllers, o))
	}
	if o.AutoScaling.KubeControllersVPA {
		objs = append(objs, vpa(layoutOf(o), NameKubeControllers, "Deployment", layoutOf(o).KubeControllers.Name, []vpav1.ContainerResourcePolicy{{
			ContainerName: "*", ControlledValues: ptr.To(vpav1.ContainerControlledValuesRequestsOnly),
		}}))
	}
	return part{objects: objs, groups: groups}, nil
}

// kubeControllersDeployment builds kube-controllers' Deployment. It runs in calico-node's namespace
// (the layout's): v3.32's policy-name migrator waits for the calico-node DaemonSet of its own
// namespace, which it knows from its ServiceAccount (docs/calico-lines.md).
func kubeControllersDeployment(o *values.Options) *appsv1.Deployment {
	l := layoutOf(o)
	labels := systemComponent(appLabels(l, l.KubeControllers, nil))
	probe := func(flag string) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler:   corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"/usr/bin/check-status", flag}}},
			PeriodSeconds:  10,
			TimeoutSeconds: 10,
		}
	}
	d := &appsv1.Deployment{
		TypeMeta:   typeMeta("apps/v1", "Deployment"),
		ObjectMeta: meta(l.KubeControllers.Name, l.Namespace, labels),
		Spec: appsv1.DeploymentSpec{
			Replicas:             ptr.To[int32](1),
			RevisionHistoryLimit: ptr.To[int32](2),
			Selector:             &metav1.LabelSelector{MatchLabels: selectorOf(l.KubeControllers)},
			// Only one instance may run at a time.
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: gardenerPodLabels(appLabels(l, l.KubeControllers, nil))},
				Spec: corev1.PodSpec{
					NodeSelector:       map[string]string{"kubernetes.io/os": "linux"},
					Tolerations:        []corev1.Toleration{{Effect: corev1.TaintEffectNoSchedule, Operator: corev1.TolerationOpExists}},
					ServiceAccountName: l.KubeControllers.ServiceAccount,
					PriorityClassName:  "system-cluster-critical",
					DNSPolicy:          corev1.DNSDefault,
					SecurityContext:    &corev1.PodSecurityContext{SeccompProfile: seccompRuntimeDefault()},
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
	return d
}

// kubeControllersConstants returns kube-controllers' PodDisruptionBudget, ServiceAccount and
// RBAC in layout l, which do not depend on the options (see constants.go).
func kubeControllersConstants(l layout.Layout, served Served) []client.Object {
	labels := systemComponent(selectorOf(l.KubeControllers))
	return append([]client.Object{
		&policyv1.PodDisruptionBudget{
			TypeMeta:   typeMeta("policy/v1", "PodDisruptionBudget"),
			ObjectMeta: meta(l.KubeControllers.Name, l.Namespace, labels),
			Spec: policyv1.PodDisruptionBudgetSpec{
				MaxUnavailable:             intOrInt(1),
				Selector:                   &metav1.LabelSelector{MatchLabels: selectorOf(l.KubeControllers)},
				UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow),
			},
		},
		serviceAccount(l, l.KubeControllers.ServiceAccount),
	}, kubeControllersRBAC(l, served)...)
}

// kubeControllersRBAC returns kube-controllers' RBAC (part of kubeControllersConstants): Calico
// v3.31.6's rules for the node and loadbalancer controllers it runs (ENABLED_CONTROLLERS), minus what
// its code never asks for (docs/calico-rbac.md), and the differences of later releases (rbac_lines.go)
// of every release it serves (every release that may run in the shoot's step: Served).
func kubeControllersRBAC(l layout.Layout, served Served) []client.Object {
	crud := []string{"get", "list", "create", "update", "delete", "watch"}
	return []client.Object{
		clusterRole(l.KubeControllers.ServiceAccount, nil, append([]rbacv1.PolicyRule{
			// The node controller watches node deletions and checks pods' existence for IPAM GC.
			rule(core, []string{"nodes", "pods"}, []string{"watch", "list", "get"}),
			// The loadbalancer controller's namespace informer (pool namespaceSelectors); without list
			// and watch its cache never syncs and no Service gets an address.
			rule(core, []string{"namespaces"}, []string{"get", "list", "watch"}),
			// The loadbalancer controller watches Services and writes their addresses with UpdateStatus (PUT).
			rule(core, []string{"services"}, []string{"get", "list", "watch"}),
			rule(core, []string{"services/status"}, []string{"update"}),
			// The IPAM client lists reservations when assigning.
			rule(calico, []string{"ipreservations"}, []string{"list"}),
			// IPAM GC and assignment; the IPAM client gets or creates IPAMConfiguration default;
			// EnsureInitialized (at start and every ~10 s) creates the default tiers.
			rule(calico, []string{"blockaffinities", "ipamblocks", "ipamhandles", "ipamconfigs", "tiers"}, crud),
			// Pools map blocks to pools.
			rule(calico, []string{"ippools"}, []string{"list", "watch"}),
			// kube-controllers manages (automatic) host endpoints.
			rule(calico, []string{"hostendpoints"}, crud),
			// EnsureInitialized keeps ClusterInformation; the controllers read, create and report on their configuration.
			rule(calico, []string{"clusterinformations", "kubecontrollersconfigurations"}, []string{"get", "list", "create", "update", "watch"}),
		}, served.kubeControllersRules()...)...,
		),
		clusterRoleBinding(l.KubeControllers.ServiceAccount, l.KubeControllers.ServiceAccount, nil, saSubject(l, l.KubeControllers.ServiceAccount)),
	}
}
