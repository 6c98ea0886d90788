package render

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/values"
)

// typhaCPALadder scales typha replicas with the node count; cores are not considered.
const typhaCPALadder = `{"coresToReplicas":[],"nodesToReplicas":[[1,1],[2,2],[100,3],[250,4],[500,5],[1000,6],[1500,7],[2000,8]]}`

// typhaCPVAConfig sizes typha's requests with the node count (cpvpa linear steps).
const typhaCPVAConfig = `{"calico-typha":{"requests":{"cpu":{"base":"180m","step":"140m","nodesPerStep":17,"max":"1000m"},"memory":{"base":"180Mi","step":"70Mi","nodesPerStep":17,"max":"2000Mi"}}}}`

// nodeCPVAConfig sizes calico-node's memory with the node count; CPU stays at its request.
const nodeCPVAConfig = `{"calico-node":{"requests":{"memory":{"base":"50Mi","step":"50Mi","nodesPerStep":10,"max":"1400Mi"}}}}`

// autoscalers returns the cluster-proportional autoscalers: typha's horizontal one whenever
// typha runs, and the vertical ones in cluster-proportional mode.
func autoscalers(o *values.Options) []client.Object {
	a := o.AutoScaling
	var objs []client.Object
	if a.TyphaCPA {
		objs = append(objs,
			autoscalerDeployment(o, NameTyphaCPA, NameTyphaCPARBAC, o.Images.CPA, "gardener-shoot-system-800", []string{
				"/cluster-proportional-autoscaler",
				"--namespace=" + Namespace,
				"--configmap=" + NameTyphaCPA,
				"--target=deployment/" + NameTyphaDeployment,
				"--logtostderr=true",
				"--v=2",
			}, typhaCPAData(), false),
		)
	}
	if a.TyphaCPVA {
		objs = append(objs, cpvaDeployment(o, NameTyphaCPVA, NameTyphaCPVARBAC, "deployment", NameTyphaDeployment, "typha-autoscaler", typhaCPVAConfig))
	}
	if a.NodeCPVA {
		objs = append(objs, cpvaDeployment(o, NameNodeCPVA, NameNodeCPVARBAC, "daemonset", NameCalicoNode, "node-autoscaler", nodeCPVAConfig))
	}
	return objs
}

func typhaCPAData() map[string]string { return map[string]string{"ladder": typhaCPALadder} }

// typhaCPAConstants returns typha's horizontal autoscaler's RBAC and ConfigMap, which do not
// depend on the options (see ConstantGroup).
func typhaCPAConstants() []client.Object {
	return []client.Object{
		clusterRole(NameTyphaCPARBAC, nil, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get", "list", "watch"}}),
		clusterRoleBinding(NameTyphaCPARBAC, NameTyphaCPARBAC, nil, saSubject(NameTyphaCPARBAC)),
		&rbacv1.Role{
			TypeMeta: typeMeta("rbac.authorization.k8s.io/v1", "Role"), ObjectMeta: meta(NameTyphaCPARBAC, Namespace, nil),
			Rules: []rbacv1.PolicyRule{
				// Reads its ladder.
				{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}, ResourceNames: []string{NameTyphaCPA}},
				// Scales typha.
				{APIGroups: []string{"apps"}, Resources: []string{"deployments/scale"}, Verbs: []string{"get", "update"}, ResourceNames: []string{NameTyphaDeployment}},
			},
		},
		&rbacv1.RoleBinding{
			TypeMeta: typeMeta("rbac.authorization.k8s.io/v1", "RoleBinding"), ObjectMeta: meta(NameTyphaCPARBAC, Namespace, nil),
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: NameTyphaCPARBAC},
			Subjects: []rbacv1.Subject{saSubject(NameTyphaCPARBAC)},
		},
		serviceAccount(NameTyphaCPARBAC),
		autoscalerConfigMap(NameTyphaCPA, typhaCPAData()),
	}
}

// typhaCPVAConstants and nodeCPVAConstants return the vertical autoscalers' RBAC and ConfigMaps,
// which do not depend on the options (see ConstantGroup).
func typhaCPVAConstants() []client.Object {
	return cpvaConstants(NameTyphaCPVA, NameTyphaCPVARBAC, "deployment", NameTyphaDeployment, "typha-autoscaler", typhaCPVAConfig)
}

func nodeCPVAConstants() []client.Object {
	return cpvaConstants(NameNodeCPVA, NameNodeCPVARBAC, "daemonset", NameCalicoNode, "node-autoscaler", nodeCPVAConfig)
}

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
					NodeSelector:                 map[string]string{"kubernetes.io/os": "linux"},
					PriorityClassName:            priority,
					ServiceAccountName:           sa,
					AutomountServiceAccountToken: ptr.To(false),
					DNSPolicy:                    corev1.DNSDefault,
					Tolerations:                  []corev1.Toleration{{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists}},
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
