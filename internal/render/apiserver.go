package render

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// calico-apiserver serves Calico's projectcalico.org/v3 API, backed by the crd.projectcalico.org
// CRDs (docs/components/calico-apiserver.md). It is an aggregated API server: the kube-apiserver
// proxies the group to its Service through the APIService, and it delegates authentication and
// authorization back to the kube-apiserver.

// The API server's port in its pods and on its Service.
const (
	apiServerPort        int32 = 5443
	apiServerServicePort int32 = 443
)

// apiServer returns calico-apiserver's objects when it is on: ServiceAccount, Deployment, Service,
// PodDisruptionBudget, NetworkPolicy, APIService and its RBAC.
func apiServer(o *values.Options) ([]client.Object, error) {
	if !o.Components.APIServer {
		return nil, nil
	}
	l := layoutOf(o)
	n := l.ComponentsOf().APIServer
	apiService, err := apiServerAPIService(l, n, o.Components.APIServiceCABundle)
	if err != nil {
		return nil, err
	}
	objs := []client.Object{
		componentServiceAccount(l, n.Workload.ServiceAccount),
		apiServerDeployment(o, l, n),
		apiServerService(l, n),
		&policyv1.PodDisruptionBudget{
			TypeMeta:   typeMeta("policy/v1", "PodDisruptionBudget"),
			ObjectMeta: meta(n.PodDisruptionBudget, l.Namespace, nil),
			Spec: policyv1.PodDisruptionBudgetSpec{
				MaxUnavailable: intOrInt(1),
				Selector:       &metav1.LabelSelector{MatchLabels: selectorOf(n.Workload)},
			},
		},
		&networkingv1.NetworkPolicy{
			TypeMeta:   typeMeta("networking.k8s.io/v1", "NetworkPolicy"),
			ObjectMeta: meta(n.NetworkPolicy, l.Namespace, nil),
			Spec: networkingv1.NetworkPolicySpec{
				// The kube-apiserver (aggregator) must reach the API port whatever policy the namespace has.
				PodSelector: metav1.LabelSelector{MatchLabels: selectorOf(n.Workload)},
				PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
				Ingress:     []networkingv1.NetworkPolicyIngressRule{{Ports: []networkingv1.NetworkPolicyPort{tcpPort(apiServerPort)}}},
			},
		},
		apiService,
	}
	return append(objs, apiServerRBAC(o, l, n)...), nil
}

// componentServiceAccount is an optional component's ServiceAccount: the token is mounted as usual
// (these components do not run under Gardener's resource manager).
func componentServiceAccount(l layout.Layout, name string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{TypeMeta: typeMeta("v1", "ServiceAccount"), ObjectMeta: meta(name, l.Namespace, nil)}
}

func apiServerDeployment(o *values.Options, l layout.Layout, n layout.APIServer) *appsv1.Deployment {
	labels := componentLabels(n.Workload)
	return &appsv1.Deployment{
		TypeMeta:   typeMeta("apps/v1", "Deployment"),
		ObjectMeta: meta(n.Workload.Name, l.Namespace, labels),
		Spec: appsv1.DeploymentSpec{
			// Two replicas, as the operator's controlPlaneReplicas: the v3 API stays up through a rollout
			// and a node drain (the PodDisruptionBudget lets one go at a time).
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: selectorOf(n.Workload)},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: checksumAnnotations(o.Components, n.KeyPair)},
				Spec: corev1.PodSpec{
					ServiceAccountName: n.Workload.ServiceAccount,
					NodeSelector:       map[string]string{"kubernetes.io/os": "linux"},
					Tolerations:        controlPlaneTolerations(false),
					DNSPolicy:          corev1.DNSClusterFirst,
					// Spread the replicas over nodes where possible.
					Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
						PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
							Weight: 100,
							PodAffinityTerm: corev1.PodAffinityTerm{
								LabelSelector: &metav1.LabelSelector{MatchLabels: selectorOf(n.Workload)},
								TopologyKey:   corev1.LabelHostname,
							},
						}},
					}},
					Containers: []corev1.Container{{
						Name:  n.Workload.Name,
						Image: o.Images.CalicoAPIServer,
						Args: []string{
							fmt.Sprintf("--secure-port=%d", apiServerPort),
							"--tls-private-key-file=" + keyPairFile(n.KeyPair, corev1.TLSPrivateKeyKey),
							"--tls-cert-file=" + keyPairFile(n.KeyPair, corev1.TLSCertKey),
						},
						Env: []corev1.EnvVar{
							env("DATASTORE_TYPE", "kubernetes"),
							env("LOG_LEVEL", "info"),
							// calico-pilot never runs Calico's multi-interface mode (multus runs beside Calico).
							env("MULTI_INTERFACE_MODE", "none"),
						},
						EnvFrom:      kubeServicesEndpoint(),
						VolumeMounts: []corev1.VolumeMount{keyPairMount(n.KeyPair)},
						// /readyz asks the kube-apiserver to authorize the probe: ready means able to serve.
						ReadinessProbe: &corev1.Probe{
							ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
								Path: "/readyz", Port: intstr.FromInt32(apiServerPort), Scheme: corev1.URISchemeHTTPS,
							}},
							PeriodSeconds: 60,
						},
						SecurityContext: nonRootContext(),
					}},
					Volumes: []corev1.Volume{keyPairVolume(n.KeyPair)},
				},
			},
		},
	}
}

func apiServerService(l layout.Layout, n layout.APIServer) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   typeMeta("v1", "Service"),
		ObjectMeta: meta(n.Service, l.Namespace, map[string]string{n.ServiceLabel.Key: n.ServiceLabel.Value}),
		Spec: corev1.ServiceSpec{
			Ports: []corev1.ServicePort{{
				Name: "apiserver", Port: apiServerServicePort, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(apiServerPort),
			}},
			Selector: selectorOf(n.Workload),
		},
	}
}

// apiServerAPIService registers projectcalico.org/v3 with the aggregator. It is built unstructured:
// the apiregistration types live in a module calico-pilot does not otherwise need. The CA bundle is
// required: without it the aggregator would have to skip verifying calico-apiserver's certificate.
func apiServerAPIService(l layout.Layout, n layout.APIServer, caBundle string) (*unstructured.Unstructured, error) {
	if caBundle == "" {
		return nil, fmt.Errorf("rendering APIService %s: no CA bundle (values.Components.APIServiceCABundle)", n.APIService)
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1",
		"kind":       "APIService",
		"metadata":   map[string]any{"name": n.APIService},
		"spec": map[string]any{
			"group":   "projectcalico.org",
			"version": "v3",
			// The priorities the operator gives the group.
			"groupPriorityMinimum": int64(1500),
			"versionPriority":      int64(200),
			"service":              map[string]any{"name": n.Service, "namespace": l.Namespace, "port": int64(apiServerServicePort)},
			// caBundle is []byte in the API: base64 in JSON.
			"caBundle": base64String(caBundle),
		},
	}}
	return u, nil
}

// apiServerCRDResources are the CRDs calico-apiserver serves the v3 API from (and reads, creates,
// updates and deletes for its clients), and the IPAM blocks an IPPool's deletion releases. IPAM
// handles it never touches.
var apiServerCRDResources = []string{
	"bgpconfigurations", "bgpfilters", "bgppeers", "blockaffinities", "caliconodestatuses", "clusterinformations",
	"felixconfigurations", "globalnetworkpolicies", "globalnetworksets", "hostendpoints", "ipamblocks", "ipamconfigs",
	"ippools", "ipreservations", "kubecontrollersconfigurations", "networkpolicies", "networksets",
	"stagedglobalnetworkpolicies", "stagedkubernetesnetworkpolicies", "stagednetworkpolicies", "tiers",
}

// apiServerRBAC is calico-apiserver's RBAC (docs/components/calico-apiserver.md; the Calico oracle
// replays its requests). The tier getter (kube-controller-manager's garbage collector reading tiers)
// is rendered with calico-node's RBAC for every cluster (constantRBAC), not here.
func apiServerRBAC(o *values.Options, l layout.Layout, n layout.APIServer) []client.Object {
	sa := saSubject(l, n.Workload.ServiceAccount)
	// Every step of a move serves both of its releases, as the core roles do (docs/calico-lines.md).
	served := servedBy(o.Calico.Releases())
	crdRules := []rbacv1.PolicyRule{
		// v3 Profiles are read from Namespaces and ServiceAccounts; the NamespaceLifecycle admission
		// plugin of the generic API server watches namespaces.
		rule(core, []string{"namespaces", "serviceaccounts"}, read),
		// The storage of the v3 API (libcalico-go's Kubernetes backend: get, list, watch, create,
		// update, delete; it never patches). Deleting an IPPool releases its blocks' affinities, which
		// reads and writes blocks and affinities.
		rule(calico, apiServerCRDResources, []string{"get", "list", "watch", "create", "update", "delete"}),
		// The ValidatingAdmissionPolicy admission plugin of the generic API server watches the policies
		// and their bindings (Kubernetes 1.30+, which every carried line requires).
		rule([]string{"admissionregistration.k8s.io"}, []string{"validatingadmissionpolicies", "validatingadmissionpolicybindings"}, read),
	}
	if served.has(calicoversion.KubeControllersStatusSubresource) {
		// The v3 KubeControllersConfiguration status is written through the CRD's /status subresource.
		crdRules = append(crdRules, rule(calico, []string{"kubecontrollersconfigurations/status"}, []string{"get", "update"}))
	}
	rbac := "rbac.authorization.k8s.io"
	return []client.Object{
		clusterRole(n.CRDsRole, nil, crdRules...),
		clusterRoleBinding(n.CRDsBinding, n.CRDsRole, nil, sa),
		// The operator's role also lists and watches ConfigMap extension-apiserver-authentication; the
		// kube-system RoleBinding below grants that already (the RBAC gives no way to tell them apart).
		clusterRole(n.AuthAccessRole, nil,
			// Tiered policy authorization evaluates RBAC from informers of roles and bindings.
			rule([]string{rbac}, []string{"clusterroles", "clusterrolebindings", "roles", "rolebindings"}, read),
		),
		clusterRoleBinding(n.AuthAccessRole, n.AuthAccessRole, nil, sa),
		clusterRole(n.WebhookReaderRole, nil,
			// The generic API server's webhook admission plugins watch the webhook configurations.
			rule([]string{"admissionregistration.k8s.io"}, []string{"mutatingwebhookconfigurations", "validatingwebhookconfigurations"}, read),
		),
		clusterRoleBinding(n.WebhookReaderBinding, n.WebhookReaderRole, nil, sa),
		// Delegated authentication and authorization: TokenReviews and SubjectAccessReviews.
		clusterRoleBinding(n.DelegateAuthBinding, "system:auth-delegator", nil, sa),
		// The client CA and request-header settings of the kube-apiserver (kube-system's ConfigMap).
		&rbacv1.RoleBinding{
			TypeMeta:   typeMeta("rbac.authorization.k8s.io/v1", "RoleBinding"),
			ObjectMeta: meta(n.AuthReaderBinding, "kube-system", nil),
			RoleRef:    rbacv1.RoleRef{APIGroup: rbac, Kind: "Role", Name: "extension-apiserver-authentication-reader"},
			Subjects:   []rbacv1.Subject{sa},
		},
		// Access to tiered policies is checked per tier by calico-apiserver itself: every
		// authenticated user may reach the resources, and the tier's own RBAC decides.
		clusterRole(n.PolicyPassthrough, nil,
			rule([]string{"projectcalico.org"}, []string{"networkpolicies", "globalnetworkpolicies"},
				[]string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}),
		),
		clusterRoleBinding(n.PolicyPassthrough, n.PolicyPassthrough, nil,
			rbacv1.Subject{APIGroup: rbac, Kind: rbacv1.GroupKind, Name: "system:authenticated"}),
	}
}
