package render

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	vpav1 "k8s.io/autoscaler/vertical-pod-autoscaler/pkg/apis/autoscaling.k8s.io/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// The ports typha serves on, each stated once for the setting that chooses it, the container port
// and the Services and NetworkPolicy that reach it.
const (
	// typhaPort is where typha serves felix.
	typhaPort = 5473
	// typhaMetricsPort is typha's Prometheus endpoint (TYPHA_PROMETHEUSMETRICSPORT).
	typhaMetricsPort = 9093
)

// typhaCPALadder scales typha replicas with the node count; cores are not considered.
const typhaCPALadder = `{"coresToReplicas":[],"nodesToReplicas":[[1,1],[2,2],[100,3],[250,4],[500,5],[1000,6],[1500,7],[2000,8]]}`

// typhaCPVAConfig sizes typha's requests with the node count (cpvpa linear steps).
const typhaCPVAConfig = `{"calico-typha":{"requests":{"cpu":{"base":"180m","step":"140m","nodesPerStep":17,"max":"1000m"},"memory":{"base":"180Mi","step":"70Mi","nodesPerStep":17,"max":"2000Mi"}}}}`

// typhaCPVA is typha's cluster-proportional vertical autoscaler in layout l.
func typhaCPVA(l layout.Layout) cpva {
	return cpva{
		name: NameTyphaCPVA, app: NameTyphaCPVA, rbacName: NameTyphaCPVARBAC,
		// Gardener's priority-class rules: typha's autoscalers are shoot system components (800).
		priorityClass: "gardener-shoot-system-800",
		targetKind:    "deployment", targetName: l.Typha.Name, key: "typha-autoscaler", config: typhaCPVAConfig,
	}
}

// typha returns calico-typha's objects that depend on the options: the Deployment and its
// autoscalers (the horizontal one whenever typha runs; the VerticalPodAutoscaler in vpa mode or
// the cluster-proportional vertical one). Its other objects do not depend on the options
// (typhaConstants, typhaCPAConstants, typhaCPVAConstants in GroupTypha, GroupTyphaCPA and
// GroupTyphaCPVA; see constants.go). Typha reads the datastore with calico-node's ClusterRole;
// calico-node's binding names it (nodeRoleBinding).
func typha(o *values.Options) (part, error) {
	l := layoutOf(o)
	objs := make([]client.Object, 0, 4) // every object below, without reallocating
	var groups []Constant
	if o.Typha {
		objs = append(objs, typhaDeployment(o))
		groups = append(groups, constantOf(GroupTypha, o))
	}
	a := o.AutoScaling
	if a.TyphaVPA {
		objs = append(objs, vpa(l, NameTypha, "Deployment", l.Typha.Name, []vpav1.ContainerResourcePolicy{{
			ContainerName: "*", ControlledValues: ptr.To(vpav1.ContainerControlledValuesRequestsOnly),
			MinAllowed: resourceList(a.TyphaMinAllowed),
		}}))
	}
	if a.TyphaCPA {
		objs = append(objs,
			autoscalerDeployment(o, autoscaler{
				name: NameTyphaCPA, app: NameTyphaCPA, serviceAccount: NameTyphaCPARBAC, image: o.Images.CPA,
				priorityClass: "gardener-shoot-system-800",
				command: []string{
					"/cluster-proportional-autoscaler",
					"--namespace=" + l.Namespace,
					"--configmap=" + NameTyphaCPA,
					"--target=deployment/" + l.Typha.Name,
					"--logtostderr=true",
					"--v=2",
				},
				config: typhaCPAData(),
			}),
		)
		groups = append(groups, constantOf(GroupTyphaCPA, o))
	}
	if a.TyphaCPVA {
		objs = append(objs, cpvaDeployment(o, typhaCPVA(l)))
		groups = append(groups, constantOf(GroupTyphaCPVA, o))
	}
	return part{objects: objs, groups: groups}, nil
}

// typhaConstants returns typha's Service, PodDisruptionBudget, ServiceAccount, metrics Service
// and NetworkPolicy in layout l, which do not depend on the options (see constants.go).
func typhaConstants(l layout.Layout) []client.Object {
	labels := systemComponent(selectorOf(l.Typha))
	return []client.Object{
		&corev1.Service{
			TypeMeta:   typeMeta("v1", "Service"),
			ObjectMeta: meta(l.TyphaService, l.Namespace, labels),
			Spec: corev1.ServiceSpec{
				Ports:    []corev1.ServicePort{{Name: NameTypha, Port: typhaPort, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromString(NameTypha)}},
				Selector: selectorOf(l.Typha),
			},
		},
		&policyv1.PodDisruptionBudget{
			TypeMeta:   typeMeta("policy/v1", "PodDisruptionBudget"),
			ObjectMeta: meta(NameTypha, l.Namespace, labels),
			Spec: policyv1.PodDisruptionBudgetSpec{
				MaxUnavailable: intOrInt(1),
				Selector:       &metav1.LabelSelector{MatchLabels: selectorOf(l.Typha)},
				// A crash-looping typha must not block node drains.
				UnhealthyPodEvictionPolicy: ptr.To(policyv1.AlwaysAllow),
			},
		},
		serviceAccount(l, l.Typha.ServiceAccount),
		monitoringService(l, NameTyphaMonitoring, l.Typha, typhaMetricsPort, "metrics"),
		typhaNetworkPolicy(l),
	}
}

func typhaDeployment(o *values.Options) *appsv1.Deployment {
	l := layoutOf(o)
	var e []corev1.EnvVar
	if o.IPAM.UsePodCIDR {
		e = append(e, env("USE_POD_CIDR", "true"))
	}
	e = append(e,
		env("TYPHA_PROMETHEUSMETRICSENABLED", "true"),
		env("TYPHA_PROMETHEUSMETRICSPORT", strconv.Itoa(typhaMetricsPort)),
		env("TYPHA_LOGSEVERITYSCREEN", "info"),
		env("TYPHA_LOGFILEPATH", "none"),
		env("TYPHA_LOGSEVERITYSYS", "none"),
		env("TYPHA_CONNECTIONREBALANCINGMODE", "kubernetes"),
		env("TYPHA_DATASTORETYPE", "kubernetes"),
		env("TYPHA_HEALTHENABLED", "true"),
		// Matches terminationGracePeriodSeconds: clients are moved off gradually.
		env("TYPHA_SHUTDOWNTIMEOUTSECS", "300"),
	)
	if l.Namespace != calicoDefaultNamespace {
		// Typha counts its peers in kube-system for connection rebalancing unless told otherwise.
		e = append(e, env("TYPHA_K8SNAMESPACE", l.Namespace))
	}
	e = append(e, typhaServerTLSEnv(o.TyphaTLS)...)
	var volumes []corev1.Volume
	var mounts []corev1.VolumeMount
	if t := o.TyphaTLS; t != nil {
		volumes = typhaTLSVolumes(t, t.TyphaSecret)
		mounts = typhaTLSMounts(t, t.TyphaSecret, t.TyphaMountPath)
	}
	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler:   corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromInt32(9098), Host: "localhost"}},
			PeriodSeconds:  10,
			TimeoutSeconds: 10,
		}
	}
	liveness := probe("/liveness")
	envFrom, nodeSelector := kubeServicesEndpoint(), map[string]string{"kubernetes.io/os": "linux"}
	if o.ReferenceTemplates {
		// The reference's (Calico's manifest's): liveness every 30 s after 30 s; no optional
		// kubernetes-services-endpoint ConfigMap (nothing creates it) and no OS node selector (typha's
		// image is Linux-only, and Gardener's shoots have Linux nodes).
		liveness.PeriodSeconds, liveness.InitialDelaySeconds = 30, 30
		envFrom, nodeSelector = nil, nil
	}
	d := &appsv1.Deployment{
		TypeMeta:   typeMeta("apps/v1", "Deployment"),
		ObjectMeta: meta(l.Typha.Name, l.Namespace, systemComponent(appLabels(l, l.Typha, nil))),
		Spec: appsv1.DeploymentSpec{
			// No replicas: the cluster-proportional autoscaler owns them.
			RevisionHistoryLimit: ptr.To[int32](2),
			Selector:             &metav1.LabelSelector{MatchLabels: selectorOf(l.Typha)},
			Strategy: appsv1.DeploymentStrategy{
				Type:          appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: intOrInt(1), MaxSurge: intOrPercent("100%")},
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels:      gardenerPodLabels(appLabels(l, l.Typha, nil)),
					Annotations: withTyphaTLSChecksum(map[string]string{"cluster-autoscaler.kubernetes.io/safe-to-evict": "true"}, o.TyphaTLS),
				},
				Spec: corev1.PodSpec{
					NodeSelector:                  nodeSelector,
					HostNetwork:                   true,
					Tolerations:                   tolerations(),
					TerminationGracePeriodSeconds: ptr.To[int64](300),
					PriorityClassName:             "system-cluster-critical",
					ServiceAccountName:            l.Typha.ServiceAccount,
					SecurityContext: &corev1.PodSecurityContext{
						RunAsUser: ptr.To[int64](65534), FSGroup: ptr.To[int64](65534),
						SupplementalGroups: []int64{1}, SeccompProfile: seccompRuntimeDefault(),
					},
					Containers: []corev1.Container{{
						Name:  NameTypha,
						Image: o.Images.CalicoTypha,
						Ports: []corev1.ContainerPort{
							{Name: NameTypha, ContainerPort: typhaPort, Protocol: corev1.ProtocolTCP},
							{Name: "metrics", ContainerPort: typhaMetricsPort, Protocol: corev1.ProtocolTCP},
						},
						EnvFrom:        envFrom,
						Env:            e,
						Resources:      requestsOf(o.AutoScaling.TyphaRequests),
						LivenessProbe:  liveness,
						ReadinessProbe: probe("/readiness"),
						SecurityContext: &corev1.SecurityContext{
							RunAsNonRoot: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false),
						},
						VolumeMounts: mounts,
					}},
					Volumes: volumes,
				},
			},
		},
	}
	if o.AutoScaling.PreserveResources {
		d.Annotations = map[string]string{resourcesv1alpha1.AnnotationPreserveResources: "true"}
	}
	return d
}

// typhaNetworkPolicy lets calico-node reach typha in a namespace (kube-system) that denies by default.
func typhaNetworkPolicy(l layout.Layout) client.Object {
	return &networkingv1.NetworkPolicy{
		TypeMeta:   typeMeta("networking.k8s.io/v1", "NetworkPolicy"),
		ObjectMeta: meta(NameAllowFromCalicoNode, l.Namespace, nil),
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: selectorOf(l.Typha)},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			Ingress: []networkingv1.NetworkPolicyIngressRule{{
				From:  []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: selectorOf(l.Node)}}},
				Ports: []networkingv1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(typhaPort))}},
			}},
		},
	}
}

func typhaCPAData() map[string]string { return map[string]string{"ladder": typhaCPALadder} }

// typhaCPAConstants returns typha's horizontal autoscaler's RBAC and ConfigMap in layout l, which do
// not depend on the options (see constants.go).
func typhaCPAConstants(l layout.Layout) []client.Object {
	return []client.Object{
		clusterRole(NameTyphaCPARBAC, nil, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get", "list", "watch"}}),
		clusterRoleBinding(NameTyphaCPARBAC, NameTyphaCPARBAC, nil, saSubject(l, NameTyphaCPARBAC)),
		&rbacv1.Role{
			TypeMeta: typeMeta("rbac.authorization.k8s.io/v1", "Role"), ObjectMeta: meta(NameTyphaCPARBAC, l.Namespace, nil),
			Rules: []rbacv1.PolicyRule{
				// Reads its ladder.
				{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}, ResourceNames: []string{NameTyphaCPA}},
				// Scales typha.
				{APIGroups: []string{"apps"}, Resources: []string{"deployments/scale"}, Verbs: []string{"get", "update"}, ResourceNames: []string{l.Typha.Name}},
			},
		},
		&rbacv1.RoleBinding{
			TypeMeta: typeMeta("rbac.authorization.k8s.io/v1", "RoleBinding"), ObjectMeta: meta(NameTyphaCPARBAC, l.Namespace, nil),
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: NameTyphaCPARBAC},
			Subjects: []rbacv1.Subject{saSubject(l, NameTyphaCPARBAC)},
		},
		serviceAccount(l, NameTyphaCPARBAC),
		autoscalerConfigMap(l, NameTyphaCPA, typhaCPAData()),
	}
}

// typhaCPVAConstants returns typha's vertical autoscaler's RBAC and ConfigMap in layout l, which do
// not depend on the options (see constants.go).
func typhaCPVAConstants(l layout.Layout) []client.Object {
	return cpvaConstants(l, typhaCPVA(l))
}
