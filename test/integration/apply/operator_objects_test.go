package apply

import (
	"encoding/base64"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/typhatls"
)

// The objects of an operator-run cluster (operatorInstall). Names, labels, owners, finalizers,
// selectors, containers, environment and volumes are the measured ones. Where this file shortens or
// leaves something out, a comment says so; the RBAC rules are the measured rules' gist, not their
// full lists (the takeover replaces them with calico-pilot's).

const (
	cniProtector = "tigera.io/cni-protector"
	signerLabel  = "certificates.operator.tigera.io/signer"
	signerName   = "tigera-operator-signer"
	// The kubelet injects the kubeadm Service's address into the operator; it copies it into
	// calico-node, Typha, kube-controllers, the API server and the CNI configuration.
	k8sServiceHost = "10.96.0.1"
	k8sServicePort = "443"
)

// ownedObject is an object and the kind of the custom resource that owns it ("" for none); status,
// when set, is written after the create (through the status subresource).
type ownedObject struct {
	obj    client.Object
	owner  string
	status map[string]any
}

// operatorFacts builds the objects the operator created.
type operatorFacts struct {
	opts   operatorOptions
	owners map[string]types.UID
	ca     typhatls.KeyPair
	now    time.Time
	// goldmaneIP is the goldmane Service's ClusterIP (for calico-node's hostAliases).
	goldmaneIP string
}

func (f *operatorFacts) gw() bool { return !f.opts.WithoutGoldmaneWhisker }

func meta(ns, name string, labels map[string]string, finalizers ...string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels, Finalizers: finalizers}
}

func rule(groups, resources, verbs []string, names ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: groups, Resources: resources, Verbs: verbs, ResourceNames: names}
}

var (
	core   = []string{""}
	crd    = []string{"crd.projectcalico.org"}
	read   = []string{"get", "list", "watch"}
	lw     = []string{"list", "watch"}
	write  = []string{"get", "list", "watch", "create", "update", "delete"}
	cu     = []string{"create", "update"}
	ipam   = []string{"blockaffinities", "ipamblocks", "ipamconfigs", "ipamhandles"}
	saKind = rbacv1.ServiceAccountKind
)

func saSubject(ns, name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: saKind, Namespace: ns, Name: name}
}

func clusterRoleBinding(name, role string, finalizers []string, subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{ObjectMeta: meta("", name, nil, finalizers...),
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects: subjects}
}

func clusterRole(name string, finalizers []string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{ObjectMeta: meta("", name, nil, finalizers...), Rules: rules}
}

// operatorManifest is what tigera-operator.yaml creates besides the CRDs: the operator's namespace,
// ServiceAccount, RBAC and Deployment. The rules of its two ClusterRoles were not measured: these are
// short stand-ins (the operator may do anything; it may write Secrets).
func operatorManifest() []client.Object {
	labels := map[string]string{"name": "tigera-operator"}
	return []client.Object{
		&corev1.Namespace{ObjectMeta: meta("", "tigera-operator", nil)},
		&corev1.ServiceAccount{ObjectMeta: meta("tigera-operator", "tigera-operator", nil)},
		clusterRole("tigera-operator", nil, rule([]string{"*"}, []string{"*"}, []string{"*"})),
		clusterRole("tigera-operator-secrets", nil, rule(core, []string{"secrets"}, []string{"get", "list", "watch", "create", "update", "patch", "delete"})),
		clusterRoleBinding("tigera-operator", "tigera-operator", nil, saSubject("tigera-operator", "tigera-operator")),
		&rbacv1.RoleBinding{ObjectMeta: meta("tigera-operator", "tigera-operator-secrets", nil),
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "tigera-operator-secrets"},
			Subjects: []rbacv1.Subject{saSubject("tigera-operator", "tigera-operator")}},
		&appsv1.Deployment{ObjectMeta: meta("tigera-operator", "tigera-operator", labels), Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
				ServiceAccountName: "tigera-operator",
				// calico-node inherits its dnsPolicy from this Deployment.
				DNSPolicy: corev1.DNSClusterFirstWithHostNet,
				Containers: []corev1.Container{{
					Name: "tigera-operator", Image: operatorImage, ImagePullPolicy: corev1.PullIfNotPresent,
					Args: []string{"-manage-crds=true"},
					Env: []corev1.EnvVar{
						{Name: "WATCH_NAMESPACE", Value: ""},
						{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
						{Name: "OPERATOR_NAME", Value: "tigera-operator"},
						{Name: "TIGERA_OPERATOR_INIT_IMAGE_VERSION", Value: "v1.40.15"},
					},
				}},
			}},
		}},
	}
}

// beforeWorkloads are the operator's objects but the DaemonSets and Deployments, in an order the
// API server accepts (the namespace first).
func (f *operatorFacts) beforeWorkloads(t *testing.T) []ownedObject {
	t.Helper()
	const ns = "calico-system"
	var out []ownedObject
	add := func(owner string, objs ...client.Object) {
		for _, o := range objs {
			out = append(out, ownedObject{obj: o, owner: owner})
		}
	}
	gw := func(owner string, objs ...client.Object) {
		if f.gw() {
			add(owner, objs...)
		}
	}
	add("Installation", &corev1.Namespace{ObjectMeta: meta("", ns, map[string]string{
		"name": ns, "pod-security.kubernetes.io/enforce": "privileged", "pod-security.kubernetes.io/enforce-version": "latest"})})

	// ServiceAccounts: the CNI plugin's and calico-node's are protected until the operator removes Calico.
	add("APIServer", &corev1.ServiceAccount{ObjectMeta: meta(ns, "calico-apiserver", nil)})
	add("Installation",
		&corev1.ServiceAccount{ObjectMeta: meta(ns, "calico-cni-plugin", nil, cniProtector)},
		&corev1.ServiceAccount{ObjectMeta: meta(ns, "calico-kube-controllers", nil)},
		&corev1.ServiceAccount{ObjectMeta: meta(ns, "calico-node", nil, cniProtector)},
		&corev1.ServiceAccount{ObjectMeta: meta(ns, "calico-typha", nil)},
		&corev1.ServiceAccount{ObjectMeta: meta(ns, "csi-node-driver", nil)})
	gw("Goldmane", &corev1.ServiceAccount{ObjectMeta: meta(ns, "goldmane", nil)})
	gw("Whisker", &corev1.ServiceAccount{ObjectMeta: meta(ns, "whisker", nil)})

	// ClusterRoles (rules shortened to the measured gist).
	nodeReads := []rbacv1.PolicyRule{
		rule(core, []string{"pods", "nodes", "namespaces"}, []string{"get"}),
		rule(core, []string{"endpoints", "services", "pods", "namespaces", "serviceaccounts"}, lw),
		rule([]string{"discovery.k8s.io"}, []string{"endpointslices"}, lw),
		rule([]string{"networking.k8s.io"}, []string{"networkpolicies"}, lw),
		rule([]string{"policy.networking.k8s.io"}, []string{"adminnetworkpolicies", "baselineadminnetworkpolicies"}, lw),
		rule(core, []string{"nodes/status", "pods/status"}, []string{"patch", "update"}),
		rule(crd, []string{"*"}, read),
		rule(crd, []string{"clusterinformations", "felixconfigurations", "ippools"}, cu),
		rule(crd, []string{"tiers"}, []string{"create"}),
	}
	cniFin := []string{cniProtector}
	add("Installation", clusterRole("calico-cni-plugin", cniFin,
		rule(core, []string{"pods", "nodes", "namespaces"}, []string{"get"}),
		rule(core, []string{"pods/status"}, []string{"patch"}),
		rule(crd, append(append([]string{}, ipam...), "clusterinformations", "ippools", "ipreservations"), write)))
	add("APIServer",
		clusterRole("calico-crds", nil, rule(crd, []string{"*"}, []string{"*"}),
			rule(core, []string{"pods", "namespaces", "serviceaccounts", "nodes"}, read),
			rule([]string{"networking.k8s.io"}, []string{"networkpolicies"}, read)),
		clusterRole("calico-extension-apiserver-auth-access", nil,
			rule(core, []string{"configmaps"}, read, "extension-apiserver-authentication"),
			rule([]string{"rbac.authorization.k8s.io"}, []string{"clusterroles", "clusterrolebindings", "roles", "rolebindings"}, read)))
	add("Installation", clusterRole("calico-kube-controllers", nil,
		rule(core, []string{"nodes", "endpoints", "services", "pods", "namespaces"}, read),
		rule(core, []string{"services", "services/status"}, []string{"update"}),
		rule(crd, ipam, write),
		rule(crd, []string{"networksets", "hostendpoints"}, write),
		rule(crd, []string{"ippools"}, lw),
		rule(crd, []string{"ipreservations"}, []string{"list"}),
		rule(crd, []string{"clusterinformations", "kubecontrollersconfigurations"}, []string{"get", "list", "watch", "create", "update"}),
		rule(crd, []string{"tiers"}, []string{"create"})))
	add("Installation", clusterRole("calico-node", cniFin, append(append([]rbacv1.PolicyRule{}, nodeReads...),
		rule(core, []string{"serviceaccounts/token"}, []string{"create"}, "calico-cni-plugin"),
		rule(core, []string{"configmaps"}, []string{"get"}),
		rule(crd, []string{"caliconodestatuses"}, []string{"update"}),
		rule(crd, ipam, write))...))
	add("APIServer", clusterRole("calico-tier-getter", nil, rule([]string{"projectcalico.org"}, []string{"tiers"}, []string{"get"})),
		clusterRole("calico-tiered-policy-passthrough", nil, rule([]string{"projectcalico.org"}, []string{"networkpolicies", "globalnetworkpolicies"}, []string{"*"})))
	add("Installation", clusterRole("calico-typha", nil, append(append([]rbacv1.PolicyRule{}, nodeReads...),
		rule(crd, []string{"blockaffinities", "ipamblocks", "ipamhandles"}, write))...))
	add("APIServer", clusterRole("calico-webhook-reader", nil,
		rule([]string{"admissionregistration.k8s.io"}, []string{"mutatingwebhookconfigurations", "validatingwebhookconfigurations"}, read)))

	// ClusterRoleBindings.
	apiSA := saSubject(ns, "calico-apiserver")
	add("APIServer",
		clusterRoleBinding("calico-apiserver-access-calico-crds", "calico-crds", nil, apiSA),
		clusterRoleBinding("calico-apiserver-delegate-auth", "system:auth-delegator", nil, apiSA),
		clusterRoleBinding("calico-apiserver-webhook-reader", "calico-webhook-reader", nil, apiSA))
	add("Installation", clusterRoleBinding("calico-cni-plugin", "calico-cni-plugin", cniFin, saSubject(ns, "calico-cni-plugin")))
	add("APIServer", clusterRoleBinding("calico-extension-apiserver-auth-access", "calico-extension-apiserver-auth-access", nil, apiSA))
	add("Installation", clusterRoleBinding("calico-kube-controllers", "calico-kube-controllers", nil, saSubject(ns, "calico-kube-controllers")),
		clusterRoleBinding("calico-node", "calico-node", cniFin, saSubject(ns, "calico-node")))
	add("APIServer",
		clusterRoleBinding("calico-tier-getter", "calico-tier-getter", nil, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "system:kube-controller-manager"}),
		clusterRoleBinding("calico-tiered-policy-passthrough", "calico-tiered-policy-passthrough", nil, rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "system:authenticated"}))
	add("Installation", clusterRoleBinding("calico-typha", "calico-typha", nil, saSubject(ns, "calico-typha")))

	// Roles and RoleBindings.
	gw("Goldmane",
		&rbacv1.Role{ObjectMeta: meta(ns, "goldmane", nil), Rules: []rbacv1.PolicyRule{
			rule(core, []string{"configmaps"}, []string{"get", "list", "watch", "create", "update", "patch"})}},
		&rbacv1.RoleBinding{ObjectMeta: meta(ns, "goldmane", nil), RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "goldmane"},
			Subjects: []rbacv1.Subject{saSubject(ns, "goldmane")}})
	add("Installation", &rbacv1.RoleBinding{ObjectMeta: meta(ns, "tigera-operator-secrets", nil),
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "tigera-operator-secrets"},
		Subjects: []rbacv1.Subject{saSubject("tigera-operator", "tigera-operator")}})
	add("APIServer", &rbacv1.RoleBinding{ObjectMeta: meta("kube-system", "calico-apiserver-auth-reader", nil),
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "extension-apiserver-authentication-reader"},
		Subjects: []rbacv1.Subject{apiSA}})

	// TLS: the CA (only in tigera-operator) and each key pair, whose master copy is in tigera-operator
	// and an identical copy in calico-system.
	ip := []net.IP{net.ParseIP("127.0.0.1")}
	svcNames := func(name string) []string {
		return []string{name, name + "." + ns, name + "." + ns + ".svc", name + "." + ns + ".svc.cluster.local"}
	}
	apiPair := operatorLeaf(t, f.ca, "calico-api", svcNames("calico-api"), nil, f.now)
	pairs := []struct {
		name, owner string
		pair        typhatls.KeyPair
		dnsNames    []string
	}{
		{"calico-apiserver-certs", "APIServer", apiPair, svcNames("calico-api")},
		{"goldmane-key-pair", "Goldmane", operatorLeaf(t, f.ca, "goldmane", []string{"goldmane"}, nil, f.now), []string{"goldmane"}},
		{"node-certs", "Installation", operatorLeaf(t, f.ca, "typha-client", []string{"typha-client"}, nil, f.now), []string{"typha-client"}},
		{"typha-certs", "Installation", operatorLeaf(t, f.ca, "typha-server", []string{"typha-server"}, nil, f.now), []string{"typha-server"}},
		{"typha-certs-noncluster-host", "Installation", operatorLeaf(t, f.ca, "typha-server-noncluster-host", []string{"typha-server-noncluster-host"}, nil, f.now), []string{"typha-server-noncluster-host"}},
		{"whisker-backend-key-pair", "Whisker", operatorLeaf(t, f.ca, "127.0.0.1", append([]string{"localhost"}, svcNames("whisker-backend")...), ip, f.now), append([]string{"localhost"}, svcNames("whisker-backend")...)},
	}
	secret := func(namespace, name string, pair typhatls.KeyPair, dnsNames []string, notAfter time.Time) *corev1.Secret {
		return &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{signerLabel: signerName},
				// The measured annotation keys; their values here are derived from the certificate.
				Annotations: map[string]string{
					"certificates.operator.tigera.io/issuer":    signerName,
					"certificates.operator.tigera.io/signer":    signerName,
					"certificates.operator.tigera.io/dns-names": strings.Join(dnsNames, ","),
					"certificates.operator.tigera.io/expiry":    notAfter.UTC().Format(time.RFC3339),
				}},
			Type: corev1.SecretTypeTLS,
			Data: map[string][]byte{corev1.TLSCertKey: pair.CertPEM, corev1.TLSPrivateKeyKey: pair.KeyPEM},
		}
	}
	leafExpiry := f.now.AddDate(0, 27, 0)
	for _, namespace := range []string{ns, "tigera-operator"} {
		for _, p := range pairs {
			if p.owner == "Goldmane" || p.owner == "Whisker" {
				gw(p.owner, secret(namespace, p.name, p.pair, p.dnsNames, leafExpiry))
				continue
			}
			add(p.owner, secret(namespace, p.name, p.pair, p.dnsNames, leafExpiry))
		}
		if namespace == "tigera-operator" {
			add("Installation", secret(namespace, "tigera-ca-private", f.ca, nil, f.now.Add(100*365*24*time.Hour)))
		}
	}

	// ConfigMaps. The operator's ca-bundle.crt also holds the system's roots; here it holds the CA
	// only. active-operator's data and whisker-nginx-config's were not measured: both are empty here.
	caPEM := string(f.ca.CertPEM)
	bundle := func(name string, withRoots bool) *corev1.ConfigMap {
		all := ""
		if withRoots {
			all = caPEM
		}
		return &corev1.ConfigMap{ObjectMeta: meta(ns, name, nil),
			Data: map[string]string{"tigera-ca-bundle.crt": caPEM, "ca.crt": caPEM, "ca-bundle.crt": all}}
	}
	add("Installation", &corev1.ConfigMap{ObjectMeta: meta(ns, "active-operator", nil)},
		&corev1.ConfigMap{ObjectMeta: meta(ns, "cni-config", nil), Data: map[string]string{"config": cniConfig()}})
	gw("Goldmane", &corev1.ConfigMap{ObjectMeta: meta(ns, "goldmane", nil), Data: map[string]string{"config.json": `{"emitFlows":false}`}},
		bundle("goldmane-ca-bundle", false))
	add("Installation", bundle("tigera-ca-bundle", true))
	gw("Whisker", bundle("whisker-ca-bundle", false), &corev1.ConfigMap{ObjectMeta: meta(ns, "whisker-nginx-config", nil)})

	// Services.
	tcp := corev1.ProtocolTCP
	add("APIServer", &corev1.Service{ObjectMeta: meta(ns, "calico-api", map[string]string{"k8s-app": "calico-api"}), Spec: corev1.ServiceSpec{
		Selector: map[string]string{"apiserver": "true"},
		Ports:    []corev1.ServicePort{{Name: "apiserver", Port: 443, TargetPort: intstr.FromInt32(5443), Protocol: tcp}}}})
	add("Installation", &corev1.Service{ObjectMeta: meta(ns, "calico-typha", map[string]string{"k8s-app": "calico-typha"}), Spec: corev1.ServiceSpec{
		Selector: map[string]string{"k8s-app": "calico-typha"},
		Ports:    []corev1.ServicePort{{Name: "calico-typha", Port: 5473, TargetPort: intstr.FromString("calico-typha"), Protocol: tcp}}}})
	gw("Goldmane", &corev1.Service{ObjectMeta: meta(ns, "goldmane", nil), Spec: corev1.ServiceSpec{
		Selector: map[string]string{"k8s-app": "goldmane"}, Ports: []corev1.ServicePort{{Port: 7443, TargetPort: intstr.FromInt32(7443), Protocol: tcp}}}})
	gw("Whisker", &corev1.Service{ObjectMeta: meta(ns, "whisker", nil), Spec: corev1.ServiceSpec{
		Selector: map[string]string{"k8s-app": "whisker"}, Ports: []corev1.ServicePort{{Port: 8081, TargetPort: intstr.FromInt32(8081), Protocol: tcp}}}})

	// PodDisruptionBudgets.
	one := intstr.FromInt32(1)
	add("APIServer", &policyv1.PodDisruptionBudget{ObjectMeta: meta(ns, "calico-apiserver", nil), Spec: policyv1.PodDisruptionBudgetSpec{
		MaxUnavailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"apiserver": "true"}}}})
	add("Installation", &policyv1.PodDisruptionBudget{ObjectMeta: meta(ns, "calico-typha", nil), Spec: policyv1.PodDisruptionBudgetSpec{
		MaxUnavailable: &one, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "calico-typha"}}}})

	// NetworkPolicies (networking.k8s.io). whisker's pod selector was not measured; it selects as
	// goldmane's does.
	port := func(p int32, proto corev1.Protocol) networkingv1.NetworkPolicyPort {
		v := intstr.FromInt32(p)
		return networkingv1.NetworkPolicyPort{Protocol: &proto, Port: &v}
	}
	ingressOnly := []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
	add("APIServer", &networkingv1.NetworkPolicy{ObjectMeta: meta(ns, "allow-apiserver", nil), Spec: networkingv1.NetworkPolicySpec{
		PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"apiserver": "true"}}, PolicyTypes: ingressOnly,
		Ingress: []networkingv1.NetworkPolicyIngressRule{{Ports: []networkingv1.NetworkPolicyPort{port(5443, tcp)}}}}})
	goldmanePods := metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": "goldmane"}}
	gw("Goldmane", &networkingv1.NetworkPolicy{ObjectMeta: meta(ns, "goldmane", nil), Spec: networkingv1.NetworkPolicySpec{
		PodSelector: goldmanePods, PolicyTypes: ingressOnly,
		Ingress: []networkingv1.NetworkPolicyIngressRule{{Ports: []networkingv1.NetworkPolicyPort{port(7443, tcp)}}}}})
	gw("Whisker", &networkingv1.NetworkPolicy{ObjectMeta: meta(ns, "whisker", nil), Spec: networkingv1.NetworkPolicySpec{
		PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": "whisker"}},
		PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
		Egress: []networkingv1.NetworkPolicyEgressRule{
			{To: []networkingv1.NetworkPolicyPeer{{PodSelector: &goldmanePods}}, Ports: []networkingv1.NetworkPolicyPort{port(7443, tcp)}},
			{To: []networkingv1.NetworkPolicyPeer{{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"projectcalico.org/name": "kube-system"}},
				PodSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "kube-dns"}},
			}}, Ports: []networkingv1.NetworkPolicyPort{port(53, tcp), port(53, corev1.ProtocolUDP)}},
		}}})

	// The APIService of the v3 API, which nothing serves here. Its priorities were not measured.
	apiService := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": "v3.projectcalico.org"},
		"spec": map[string]any{
			"group": "projectcalico.org", "version": "v3", "groupPriorityMinimum": int64(1500), "versionPriority": int64(200),
			"service":  map[string]any{"name": "calico-api", "namespace": ns, "port": int64(443)},
			"caBundle": base64.StdEncoding.EncodeToString(append(append([]byte{}, apiPair.CertPEM...), f.ca.CertPEM...)),
		},
	}}
	add("APIServer", apiService)
	add("Installation", &storagev1.CSIDriver{ObjectMeta: meta("", "csi.tigera.io", nil), Spec: storagev1.CSIDriverSpec{
		AttachRequired: ptr.To(true), PodInfoOnMount: ptr.To(true),
		VolumeLifecycleModes: []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecycleEphemeral},
		FSGroupPolicy:        ptr.To(storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy)}})

	// Unowned: the pool (the operator never owns pools), FelixConfiguration and TigeraStatus.
	if !f.opts.PoolDeleted {
		spec := map[string]any{
			"cidr": "10.244.0.0/16", "blockSize": int64(26), "vxlanMode": "CrossSubnet", "ipipMode": "Never", "natOutgoing": true,
			"nodeSelector": "all()", "allowedUses": []any{"Workload", "Tunnel"}, "assignmentMode": "Automatic",
		}
		if f.opts.PoolDisabled {
			spec["disabled"] = true
		}
		add("", calicoObject("IPPool", "default-ipv4-ippool", map[string]string{"app.kubernetes.io/managed-by": "tigera-operator"}, nil, spec))
	}
	add("", calicoObject("FelixConfiguration", "default", nil, map[string]string{"operator.tigera.io/bpfEnabled": "false"}, map[string]any{
		"bpfEnabled": false, "bpfLogLevel": "", "healthPort": int64(9099), "nftablesMode": "Disabled", "vxlanPort": int64(4789), "vxlanVNI": int64(4096),
	}))
	statuses := []string{"apiserver", "calico", "ippools"}
	if f.gw() {
		statuses = []string{"apiserver", "calico", "goldmane", "ippools", "whisker"}
	}
	for _, name := range statuses {
		// ippools is Degraded: the operator cannot reach the v3 API it writes pools through.
		cond := map[string]any{"type": "Available", "status": "True"}
		if name == "ippools" {
			cond = map[string]any{"type": "Degraded", "status": "True"}
		}
		ts := operatorCR("TigeraStatus")
		ts.SetName(name)
		out = append(out, ownedObject{obj: ts, status: map[string]any{"conditions": []any{cond}}})
	}
	return out
}

func calicoObject(kind, name string, labels, annotations map[string]string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetAPIVersion("crd.projectcalico.org/v1")
	u.SetKind(kind)
	u.SetName(name)
	u.SetLabels(labels)
	u.SetAnnotations(annotations)
	return u
}

// cniConfig is cni-config's key config: the conflist install-cni writes.
func cniConfig() string {
	conf := map[string]any{
		"name": "k8s-pod-network", "cniVersion": "1.0.0",
		"plugins": []any{
			map[string]any{
				"type": "calico", "datastore_type": "kubernetes", "mtu": 0,
				"ipam":   map[string]any{"type": "calico-ipam", "assign_ipv4": "true", "assign_ipv6": "false"},
				"policy": map[string]any{"type": "k8s"},
				"kubernetes": map[string]any{
					"k8s_api_root": "https://" + k8sServiceHost + ":" + k8sServicePort, "kubeconfig": "__KUBECONFIG_FILEPATH__",
				},
				"log_level": "Info", "log_file_path": "/var/log/calico/cni/cni.log",
				"log_file_max_size": 100, "log_file_max_count": 10, "log_file_max_age": 30,
			},
			map[string]any{"type": "portmap", "snat": true, "capabilities": map[string]any{"portMappings": true}},
		},
	}
	b, err := json.MarshalIndent(conf, "", "  ")
	if err != nil {
		panic(err) // a literal map always encodes
	}
	return string(b)
}

// Pod-level pieces the operator's workloads share.
var (
	linux          = map[string]string{"kubernetes.io/os": "linux"}
	anyTaint       = []corev1.Toleration{{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists}, {Effect: corev1.TaintEffectNoSchedule, Operator: corev1.TolerationOpExists}, {Effect: corev1.TaintEffectNoExecute, Operator: corev1.TolerationOpExists}}
	k8sServiceEnv  = []corev1.EnvVar{{Name: "KUBERNETES_SERVICE_HOST", Value: k8sServiceHost}, {Name: "KUBERNETES_SERVICE_PORT", Value: k8sServicePort}}
	runtimeDefault = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}
	dropAll        = &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}
)

// privileged is the securityContext of calico-node's and the CSI driver's containers.
func privileged() *corev1.SecurityContext {
	return &corev1.SecurityContext{Privileged: ptr.To(true), AllowPrivilegeEscalation: ptr.To(true), RunAsUser: ptr.To[int64](0),
		RunAsGroup: ptr.To[int64](0), RunAsNonRoot: ptr.To(false), Capabilities: dropAll, SeccompProfile: runtimeDefault}
}

func nonRoot(uid, gid int64) *corev1.SecurityContext {
	return &corev1.SecurityContext{RunAsUser: ptr.To(uid), RunAsGroup: ptr.To(gid), RunAsNonRoot: ptr.To(true), Privileged: ptr.To(false),
		AllowPrivilegeEscalation: ptr.To(false), Capabilities: dropAll, SeccompProfile: runtimeDefault}
}

func image(name string) string { return "quay.io/calico/" + name + ":" + operatorCalico }

func hostPath(name, p string, typ corev1.HostPathType) corev1.Volume {
	hp := &corev1.HostPathVolumeSource{Path: p}
	if typ != "" {
		hp.Type = &typ
	}
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{HostPath: hp}}
}

func mount(name, p string, readOnly bool) corev1.VolumeMount {
	return corev1.VolumeMount{Name: name, MountPath: p, ReadOnly: readOnly}
}

func bidirectional(name, p string) corev1.VolumeMount {
	m := mount(name, p, false)
	m.MountPropagation = ptr.To(corev1.MountPropagationBidirectional)
	return m
}

func field(name, p string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: p}}}
}

func env(pairs ...string) []corev1.EnvVar {
	out := make([]corev1.EnvVar, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, corev1.EnvVar{Name: pairs[i], Value: pairs[i+1]})
	}
	return out
}

// caBundleVolume and its mounts: the directory and its ca-bundle.crt as the system's cert.pem.
func caBundleVolume(name string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}}
}

func caBundleMounts() []corev1.VolumeMount {
	return []corev1.VolumeMount{mount("tigera-ca-bundle", "/etc/pki/tls/certs", true),
		{Name: "tigera-ca-bundle", MountPath: "/etc/pki/tls/cert.pem", SubPath: "ca-bundle.crt", ReadOnly: true}}
}

func secretVolume(name string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: name}}}
}

func appLabels(app string, extra ...string) map[string]string {
	l := map[string]string{"k8s-app": app, "app.kubernetes.io/name": app}
	for i := 0; i+1 < len(extra); i += 2 {
		l[extra[i]] = extra[i+1]
	}
	return l
}

func rollingDaemonSet() appsv1.DaemonSetUpdateStrategy {
	zero, one := intstr.FromInt32(0), intstr.FromInt32(1)
	return appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &one, MaxSurge: &zero}}
}

func execProbe(period int32, cmd ...string) *corev1.Probe {
	return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: cmd}}, PeriodSeconds: period}
}

func httpProbe(port int32, p string, period int32) *corev1.Probe {
	return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Host: "localhost", Port: intstr.FromInt32(port), Path: p}}, PeriodSeconds: period}
}

// workloads are the operator's DaemonSets and Deployments.
func (f *operatorFacts) workloads() []ownedObject {
	const ns = "calico-system"
	out := []ownedObject{
		{obj: f.calicoNode(), owner: "Installation"},
		{obj: f.csiNodeDriver(), owner: "Installation"},
		{obj: f.calicoTypha(), owner: "Installation"},
		{obj: f.kubeControllers(), owner: "Installation"},
		{obj: f.apiServer(), owner: "APIServer"},
	}
	if !f.gw() {
		return out
	}
	goldmane := &appsv1.Deployment{ObjectMeta: meta(ns, "goldmane", appLabels("goldmane")), Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](1), Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "goldmane"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: appLabels("goldmane")}, Spec: corev1.PodSpec{
			ServiceAccountName: "goldmane", NodeSelector: linux,
			// The key pair's mount path and the container's environment were not measured.
			Containers: []corev1.Container{{Name: "goldmane", Image: image("goldmane"), ImagePullPolicy: corev1.PullIfNotPresent,
				Ports:        []corev1.ContainerPort{{ContainerPort: 7443, Protocol: corev1.ProtocolTCP}},
				VolumeMounts: []corev1.VolumeMount{mount("goldmane-ca-bundle", "/etc/pki/tls/certs", true)}}},
			Volumes: []corev1.Volume{secretVolume("goldmane-key-pair"), caBundleVolume("goldmane-ca-bundle"), caBundleVolume("goldmane")},
		}},
	}}
	whisker := &appsv1.Deployment{ObjectMeta: meta(ns, "whisker", appLabels("whisker")), Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](1), Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "whisker"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: appLabels("whisker")}, Spec: corev1.PodSpec{
			ServiceAccountName: "whisker", NodeSelector: linux,
			Containers: []corev1.Container{
				{Name: "whisker", Image: image("whisker"), ImagePullPolicy: corev1.PullIfNotPresent,
					Ports: []corev1.ContainerPort{{ContainerPort: 8081, Protocol: corev1.ProtocolTCP}}},
				{Name: "whisker-backend", Image: image("whisker-backend"), ImagePullPolicy: corev1.PullIfNotPresent,
					Ports:        []corev1.ContainerPort{{ContainerPort: 3002, Protocol: corev1.ProtocolTCP}},
					Env:          env("GOLDMANE_HOST", "goldmane.calico-system.svc.cluster.local:7443"),
					VolumeMounts: []corev1.VolumeMount{mount("whisker-ca-bundle", "/etc/pki/tls/certs", true)}},
			},
			Volumes: []corev1.Volume{secretVolume("whisker-backend-key-pair"), caBundleVolume("whisker-ca-bundle")},
		}},
	}}
	return append(out, ownedObject{obj: goldmane, owner: "Goldmane"}, ownedObject{obj: whisker, owner: "Whisker"})
}

func (f *operatorFacts) calicoNode() *appsv1.DaemonSet {
	nodeEnv := append(env(
		"DATASTORE_TYPE", "kubernetes", "WAIT_FOR_DATASTORE", "true", "CLUSTER_TYPE", "k8s,operator,bgp",
		"CALICO_DISABLE_FILE_LOGGING", "false", "FELIX_DEFAULTENDPOINTTOHOSTACTION", "ACCEPT",
		"FELIX_HEALTHENABLED", "true", "FELIX_HEALTHPORT", "9099"),
		field("NODENAME", "spec.nodeName"), field("NAMESPACE", "metadata.namespace"))
	nodeEnv = append(nodeEnv, env(
		"FELIX_TYPHAK8SNAMESPACE", "calico-system", "FELIX_TYPHAK8SSERVICENAME", "calico-typha",
		"FELIX_TYPHACAFILE", "/etc/pki/tls/certs/tigera-ca-bundle.crt", "FELIX_TYPHACERTFILE", "/node-certs/tls.crt",
		"FELIX_TYPHAKEYFILE", "/node-certs/tls.key", "FELIX_TYPHACN", "typha-server", "NO_DEFAULT_POOLS", "true")...)
	var hostAliases []corev1.HostAlias
	if f.gw() {
		nodeEnv = append(nodeEnv, env("FELIX_FLOWLOGSGOLDMANESERVER", "goldmane.calico-system.svc:7443", "FELIX_FLOWLOGSFLUSHINTERVAL", "15")...)
		hostAliases = []corev1.HostAlias{{IP: f.goldmaneIP, Hostnames: []string{"goldmane.calico-system.svc"}}}
	}
	nodeEnv = append(nodeEnv, env("CALICO_MANAGE_CNI", "true", "CALICO_NETWORKING_BACKEND", "bird", "IP", "autodetect",
		"IP_AUTODETECTION_METHOD", "first-found", "IP6", "none", "FELIX_IPV6SUPPORT", "false")...)
	nodeEnv = append(nodeEnv, k8sServiceEnv...)
	installEnv := append(env("CNI_CONF_NAME", "10-calico.conflist", "SLEEP", "false", "CNI_NET_DIR", "/etc/cni/net.d"),
		corev1.EnvVar{Name: "CNI_NETWORK_CONFIG", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: "cni-config"}, Key: "config"}}})
	installEnv = append(installEnv, k8sServiceEnv...)
	doc := corev1.HostPathDirectoryOrCreate
	labels := appLabels("calico-node")
	return &appsv1.DaemonSet{ObjectMeta: meta("calico-system", "calico-node", nil), Spec: appsv1.DaemonSetSpec{
		Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "calico-node"}},
		UpdateStrategy: rollingDaemonSet(),
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{
				"hash.operator.tigera.io/cni-config":                        hashOf(cniConfig()),
				"hash.operator.tigera.io/system":                            hashOf("system", operatorCalico),
				"tigera-operator.hash.operator.tigera.io/tigera-ca-private": hashOf(string(f.ca.CertPEM)),
			}},
			Spec: corev1.PodSpec{
				ServiceAccountName: "calico-node", HostNetwork: true, DNSPolicy: corev1.DNSClusterFirstWithHostNet,
				PriorityClassName: "system-node-critical", NodeSelector: linux, Tolerations: anyTaint,
				TerminationGracePeriodSeconds: ptr.To[int64](5), SecurityContext: &corev1.PodSecurityContext{},
				HostAliases: hostAliases,
				InitContainers: []corev1.Container{
					{Name: "flexvol-driver", Image: image("pod2daemon-flexvol"), ImagePullPolicy: corev1.PullIfNotPresent, SecurityContext: privileged(),
						VolumeMounts: []corev1.VolumeMount{mount("flexvol-driver-host", "/host/driver", false)}},
					{Name: "ebpf-bootstrap", Image: image("node"), ImagePullPolicy: corev1.PullIfNotPresent, SecurityContext: privileged(),
						Command: []string{"calico-node", "-init", "-best-effort"},
						VolumeMounts: []corev1.VolumeMount{mount("nodeproc", "/nodeproc", true), bidirectional("sys-fs", "/sys/fs"),
							bidirectional("var-run-calico", "/var/run/calico")}},
					{Name: "install-cni", Image: image("cni"), ImagePullPolicy: corev1.PullIfNotPresent, SecurityContext: privileged(),
						Command: []string{"/opt/cni/bin/install"}, Env: installEnv,
						VolumeMounts: []corev1.VolumeMount{mount("cni-bin-dir", "/host/opt/cni/bin", false), mount("cni-net-dir", "/host/etc/cni/net.d", false)}},
				},
				Containers: []corev1.Container{{
					Name: "calico-node", Image: image("node"), ImagePullPolicy: corev1.PullIfNotPresent, SecurityContext: privileged(),
					Env:            nodeEnv,
					LivenessProbe:  httpProbe(9099, "/liveness", 60),
					ReadinessProbe: execProbe(30, "calico-node", "-bird-ready", "-felix-ready"),
					Lifecycle:      &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"calico-node", "-shutdown"}}}},
					VolumeMounts: append([]corev1.VolumeMount{
						mount("bpffs", "/sys/fs/bpf", false), mount("cni-log-dir", "/var/log/calico/cni", false),
						mount("cni-net-dir", "/host/etc/cni/net.d", false), mount("lib-modules", "/lib/modules", true),
						mount("node-certs", "/node-certs", true), mount("policysync", "/var/run/nodeagent", false),
						mount("sys-kernel-security", "/sys/kernel/security", true),
					}, append(caBundleMounts(),
						mount("var-lib-calico", "/var/lib/calico", false), mount("var-run-calico", "/var/run/calico", false),
						mount("xtables-lock", "/run/xtables.lock", false))...),
				}},
				Volumes: []corev1.Volume{
					hostPath("bpffs", "/sys/fs/bpf", corev1.HostPathDirectory),
					hostPath("cni-bin-dir", "/opt/cni/bin", doc),
					hostPath("cni-log-dir", "/var/log/calico/cni", ""),
					hostPath("cni-net-dir", "/etc/cni/net.d", ""),
					hostPath("flexvol-driver-host", "/usr/libexec/kubernetes/kubelet-plugins/volume/exec/nodeagent~uds", doc),
					hostPath("lib-modules", "/lib/modules", ""),
					secretVolume("node-certs"),
					hostPath("nodeproc", "/proc", ""),
					hostPath("policysync", "/var/run/nodeagent", doc),
					hostPath("sys-fs", "/sys/fs", doc),
					hostPath("sys-kernel-security", "/sys/kernel/security", ""),
					caBundleVolume("tigera-ca-bundle"),
					hostPath("var-lib-calico", "/var/lib/calico", doc),
					hostPath("var-run-calico", "/var/run/calico", doc),
					hostPath("xtables-lock", "/run/xtables.lock", corev1.HostPathFileOrCreate),
				},
			},
		},
	}}
}

func (f *operatorFacts) csiNodeDriver() *appsv1.DaemonSet {
	labels := appLabels("csi-node-driver", "name", "csi-node-driver")
	node := field("KUBE_NODE_NAME", "spec.nodeName")
	doc := corev1.HostPathDirectoryOrCreate
	return &appsv1.DaemonSet{ObjectMeta: meta("calico-system", "csi-node-driver", nil), Spec: appsv1.DaemonSetSpec{
		Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "csi-node-driver"}},
		UpdateStrategy: rollingDaemonSet(),
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
			ServiceAccountName: "csi-node-driver", PriorityClassName: "system-node-critical", NodeSelector: linux, Tolerations: anyTaint,
			TerminationGracePeriodSeconds: ptr.To[int64](30),
			Containers: []corev1.Container{
				{Name: "calico-csi", Image: image("csi"), ImagePullPolicy: corev1.PullIfNotPresent, SecurityContext: privileged(),
					Args: []string{"--nodeid=$(KUBE_NODE_NAME)", "--loglevel=$(LOG_LEVEL)"},
					Env:  append(env("LOG_LEVEL", "warn"), node),
					VolumeMounts: []corev1.VolumeMount{bidirectional("kubelet-dir", "/var/lib/kubelet"), mount("socket-dir", "/csi", false),
						mount("varrun", "/var/run", false)}},
				{Name: "csi-node-driver-registrar", Image: image("node-driver-registrar"), ImagePullPolicy: corev1.PullIfNotPresent, SecurityContext: privileged(),
					Args:         []string{"--v=5", "--csi-address=$(ADDRESS)", "--kubelet-registration-path=$(DRIVER_REG_SOCK_PATH)"},
					Env:          append(env("ADDRESS", "/csi/csi.sock", "DRIVER_REG_SOCK_PATH", "/var/lib/kubelet/plugins/csi.tigera.io/csi.sock"), node),
					VolumeMounts: []corev1.VolumeMount{mount("registration-dir", "/registration", false), mount("socket-dir", "/csi", false)}},
			},
			Volumes: []corev1.Volume{
				hostPath("kubelet-dir", "/var/lib/kubelet", corev1.HostPathDirectory),
				hostPath("registration-dir", "/var/lib/kubelet/plugins_registry", corev1.HostPathDirectory),
				hostPath("socket-dir", "/var/lib/kubelet/plugins/csi.tigera.io", doc),
				hostPath("varrun", "/var/run", ""),
			},
		}},
	}}
}

func (f *operatorFacts) calicoTypha() *appsv1.Deployment {
	labels := appLabels("calico-typha")
	one, all := intstr.FromInt32(1), intstr.FromString("100%")
	typhaEnv := append(env(
		"TYPHA_LOGSEVERITYSCREEN", "info", "TYPHA_LOGFILEPATH", "none", "TYPHA_LOGSEVERITYSYS", "none",
		"TYPHA_CONNECTIONREBALANCINGMODE", "kubernetes", "TYPHA_DATASTORETYPE", "kubernetes",
		"TYPHA_HEALTHENABLED", "true", "TYPHA_HEALTHPORT", "9098", "TYPHA_K8SNAMESPACE", "calico-system",
		"TYPHA_CAFILE", "/etc/pki/tls/certs/tigera-ca-bundle.crt", "TYPHA_SERVERCERTFILE", "/typha-certs/tls.crt",
		"TYPHA_SERVERKEYFILE", "/typha-certs/tls.key", "TYPHA_SHUTDOWNTIMEOUTSECS", "300", "TYPHA_CLIENTCN", "typha-client"),
		k8sServiceEnv...)
	return &appsv1.Deployment{ObjectMeta: meta("calico-system", "calico-typha", labels), Spec: appsv1.DeploymentSpec{
		Replicas:             ptr.To[int32](1),
		RevisionHistoryLimit: ptr.To[int32](2),
		Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: &one, MaxSurge: &all}},
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "calico-typha"}},
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{
				"hash.operator.tigera.io/system":                            hashOf("system", operatorCalico),
				"tigera-operator.hash.operator.tigera.io/tigera-ca-private": hashOf(string(f.ca.CertPEM)),
				"tigera-operator.hash.operator.tigera.io/typha-certs":       hashOf("typha-certs"),
			}},
			Spec: corev1.PodSpec{
				ServiceAccountName: "calico-typha", HostNetwork: true, DNSPolicy: corev1.DNSClusterFirst,
				PriorityClassName: "system-cluster-critical", NodeSelector: linux, Tolerations: anyTaint,
				TerminationGracePeriodSeconds: ptr.To[int64](300),
				Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
					Weight: 1, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: "topology.kubernetes.io/zone",
						LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "calico-typha"}}},
				}}}},
				Containers: []corev1.Container{{
					Name: "calico-typha", Image: image("typha"), ImagePullPolicy: corev1.PullIfNotPresent, SecurityContext: nonRoot(10001, 10001),
					Ports:          []corev1.ContainerPort{{Name: "calico-typha", ContainerPort: 5473, Protocol: corev1.ProtocolTCP}},
					Env:            typhaEnv,
					LivenessProbe:  httpProbe(9098, "/liveness", 60),
					ReadinessProbe: httpProbe(9098, "/readiness", 30),
					VolumeMounts:   append(caBundleMounts(), mount("typha-certs", "/typha-certs", true)),
				}},
				Volumes: []corev1.Volume{caBundleVolume("tigera-ca-bundle"), secretVolume("typha-certs")},
			},
		},
	}}
}

func (f *operatorFacts) kubeControllers() *appsv1.Deployment {
	labels := appLabels("calico-kube-controllers")
	probe := func(flag string, period int32) *corev1.Probe {
		return execProbe(period, "/usr/bin/check-status", flag)
	}
	live := probe("-l", 60)
	live.InitialDelaySeconds, live.FailureThreshold = 10, 6
	return &appsv1.Deployment{ObjectMeta: meta("calico-system", "calico-kube-controllers", labels), Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](1), Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "calico-kube-controllers"}},
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{
				"hash.operator.tigera.io/system":                            hashOf("system", operatorCalico),
				"tigera-operator.hash.operator.tigera.io/tigera-ca-private": hashOf(string(f.ca.CertPEM)),
			}},
			Spec: corev1.PodSpec{
				ServiceAccountName: "calico-kube-controllers", DNSPolicy: corev1.DNSClusterFirst,
				PriorityClassName: "system-cluster-critical", NodeSelector: linux,
				Tolerations: []corev1.Toleration{{Key: "node-role.kubernetes.io/master", Effect: corev1.TaintEffectNoSchedule},
					{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule},
					{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists}},
				TerminationGracePeriodSeconds: ptr.To[int64](30),
				Containers: []corev1.Container{{
					Name: "calico-kube-controllers", Image: image("kube-controllers"), ImagePullPolicy: corev1.PullIfNotPresent,
					SecurityContext: nonRoot(999, 0),
					Env: append(append(env("KUBE_CONTROLLERS_CONFIG_NAME", "default", "DATASTORE_TYPE", "kubernetes",
						"ENABLED_CONTROLLERS", "node,loadbalancer", "DISABLE_KUBE_CONTROLLERS_CONFIG_API", "false"), k8sServiceEnv...),
						corev1.EnvVar{Name: "CA_CRT_PATH", Value: "/etc/pki/tls/certs/tigera-ca-bundle.crt"}),
					LivenessProbe: live, ReadinessProbe: probe("-r", 30),
					VolumeMounts: caBundleMounts(),
				}},
				Volumes: []corev1.Volume{caBundleVolume("tigera-ca-bundle")},
			},
		},
	}}
}

func (f *operatorFacts) apiServer() *appsv1.Deployment {
	labels := appLabels("calico-apiserver", "apiserver", "true")
	quarter := intstr.FromString("25%")
	ready := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
		Path: "/readyz", Port: intstr.FromInt32(5443), Scheme: corev1.URISchemeHTTPS}}}
	return &appsv1.Deployment{ObjectMeta: meta("calico-system", "calico-apiserver", labels), Spec: appsv1.DeploymentSpec{
		Replicas: ptr.To[int32](2),
		Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: &quarter, MaxSurge: &quarter}},
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"apiserver": "true"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{
			ServiceAccountName: "calico-apiserver", NodeSelector: linux,
			Containers: []corev1.Container{{
				Name: "calico-apiserver", Image: image("apiserver"), ImagePullPolicy: corev1.PullIfNotPresent, SecurityContext: nonRoot(10001, 10001),
				Args:           []string{"--secure-port=5443", "--tls-private-key-file=/calico-apiserver-certs/tls.key", "--tls-cert-file=/calico-apiserver-certs/tls.crt"},
				Env:            append(env("DATASTORE_TYPE", "kubernetes", "LOG_LEVEL", "info", "MULTI_INTERFACE_MODE", "none"), k8sServiceEnv...),
				ReadinessProbe: ready,
				VolumeMounts:   []corev1.VolumeMount{mount("calico-apiserver-certs", "/calico-apiserver-certs", true)},
			}},
			Volumes: []corev1.Volume{secretVolume("calico-apiserver-certs")},
		}},
	}}
}
