package render

import (
	"fmt"
	"path"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// whisker is Calico's flow UI: an nginx serving the web app (container whisker) and whisker-backend,
// which the app reaches through nginx and which reads the flows from goldmane over mutual TLS
// (docs/components/whisker.md). Neither asks the Kubernetes API for anything: no RBAC.

// The ports of whisker's nginx (its Service) and of whisker-backend (localhost only, behind nginx).
const (
	whiskerPort        int32 = 8081
	whiskerBackendPort int32 = 3002
)

// The nginx configuration whisker's container reads from its directory.
const (
	whiskerNginxDir  = "/etc/nginx/conf.d"
	whiskerNginxFile = "default.conf"
)

// whisker returns whisker's objects when it is on: ServiceAccount, nginx ConfigMap, Deployment,
// Service and NetworkPolicy.
func whisker(o *values.Options) ([]client.Object, error) {
	if !o.Components.Whisker {
		return nil, nil
	}
	l := layoutOf(o)
	cs := l.ComponentsOf()
	n := cs.Whisker
	return []client.Object{
		componentServiceAccount(l, n.Workload.ServiceAccount),
		&corev1.ConfigMap{
			TypeMeta:   typeMeta("v1", "ConfigMap"),
			ObjectMeta: meta(n.NginxConfig, l.Namespace, nil),
			Data:       map[string]string{whiskerNginxFile: whiskerNginxConfig(o.IPv6)},
		},
		whiskerDeployment(o, l, n),
		&corev1.Service{
			TypeMeta:   typeMeta("v1", "Service"),
			ObjectMeta: meta(n.Service, l.Namespace, nil),
			Spec: corev1.ServiceSpec{
				Ports:    []corev1.ServicePort{{Port: whiskerPort, Protocol: corev1.ProtocolTCP}},
				Selector: selectorOf(n.Workload),
			},
		},
		whiskerNetworkPolicy(l, n, cs.Goldmane),
	}, nil
}

// whiskerNginxConfig is nginx's server: the web app's files, the configuration file the container's
// start script writes to /etc/config, and whisker-backend behind /whisker-backend/ (streamed: no
// buffering, no timeouts). With IPv6 it listens on both families.
func whiskerNginxConfig(ipv6 bool) string {
	listen := fmt.Sprintf("    listen 0.0.0.0:%d;\n", whiskerPort)
	if ipv6 {
		listen += fmt.Sprintf("    listen [::]:%d ipv6only=on;\n", whiskerPort)
	}
	return "# whisker's web app and whisker-backend (rendered by calico-pilot).\n" +
		"server {\n" + listen +
		"    server_tokens off;\n" +
		"    add_header X-Frame-Options sameorigin;\n" +
		"    add_header Strict-Transport-Security \"max-age=31536000; includeSubDomains\" always;\n" +
		"    add_header Cache-Control \"private, no-cache, must-revalidate\" always;\n" +
		"\n" +
		"    location / {\n" +
		"        root /usr/share/nginx/html;\n" +
		"        index index.html;\n" +
		"        try_files $uri $uri/ /index.html;\n" +
		"    }\n" +
		"\n" +
		"    location /config/config.json {\n" +
		"        root /etc;\n" +
		"        default_type application/json;\n" +
		"    }\n" +
		"\n" +
		"    location /whisker-backend/ {\n" +
		"        rewrite ^/whisker-backend/(.*)$ /$1 break;\n" +
		fmt.Sprintf("        proxy_pass http://localhost:%d;\n", whiskerBackendPort) +
		"        proxy_http_version 1.1;\n" +
		"        proxy_set_header Connection \"\";\n" +
		"        proxy_buffering off;\n" +
		"        proxy_request_buffering off;\n" +
		"        proxy_cache off;\n" +
		"        proxy_connect_timeout 1d;\n" +
		"        proxy_read_timeout 1d;\n" +
		"        proxy_send_timeout 1d;\n" +
		"        send_timeout 1d;\n" +
		"        keepalive_timeout 1d;\n" +
		"    }\n" +
		"\n" +
		"    error_page 404 =200 /index.html;\n" +
		"    error_page 500 502 503 504 /50x.html;\n" +
		"    location = /50x.html {\n" +
		"        root /usr/share/nginx/html;\n" +
		"    }\n" +
		"}\n"
}

func whiskerDeployment(o *values.Options, l layout.Layout, n layout.Whisker) *appsv1.Deployment {
	labels := componentLabels(n.Workload)
	return &appsv1.Deployment{
		TypeMeta:   typeMeta("apps/v1", "Deployment"),
		ObjectMeta: meta(n.Workload.Name, l.Namespace, labels),
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: selectorOf(n.Workload)},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: checksumAnnotations(o.Components, n.KeyPair, n.CABundle, n.NginxConfig)},
				Spec: corev1.PodSpec{
					ServiceAccountName: n.Workload.ServiceAccount,
					NodeSelector:       map[string]string{"kubernetes.io/os": "linux"},
					Tolerations:        controlPlaneTolerations(true),
					Containers: []corev1.Container{
						{
							Name:  "whisker",
							Image: o.Images.CalicoWhisker,
							Env: []corev1.EnvVar{
								env("LOG_LEVEL", "INFO"),
								// Shown in the UI.
								env("CALICO_VERSION", o.Calico.Of(calicoversion.Whisker).Name()),
								// The UI fetches its notification banner from Calico's service (the operator's default).
								env("NOTIFICATIONS", "Enabled"),
							},
							VolumeMounts:    []corev1.VolumeMount{{Name: "nginx-config", MountPath: whiskerNginxDir, ReadOnly: true}},
							SecurityContext: nonRootContext(),
						},
						{
							Name:  "whisker-backend",
							Image: o.Images.CalicoWhiskerBackend,
							Env: []corev1.EnvVar{
								env("LOG_LEVEL", "INFO"),
								env("PORT", strconv.Itoa(int(whiskerBackendPort))),
								env("GOLDMANE_HOST", goldmaneHost(l)),
								env("TLS_CERT_PATH", keyPairFile(n.KeyPair, corev1.TLSCertKey)),
								env("TLS_KEY_PATH", keyPairFile(n.KeyPair, corev1.TLSPrivateKeyKey)),
								// The CAs goldmane's certificate is checked with.
								env("CA_CERT_PATH", path.Join(caBundleMountPath, caBundleKey)),
							},
							VolumeMounts:    []corev1.VolumeMount{caBundleMount(n.CABundle), keyPairMount(n.KeyPair)},
							SecurityContext: nonRootContext(),
						},
					},
					Volumes: []corev1.Volume{
						configMapVolume(n.CABundle, n.CABundle),
						keyPairVolume(n.KeyPair),
						configMapVolume("nginx-config", n.NginxConfig),
					},
				},
			},
		},
	}
}

// whiskerNetworkPolicy admits nothing to whisker (the UI is reached by port-forward, which no
// NetworkPolicy sees) and lets it reach only goldmane and the cluster DNS.
func whiskerNetworkPolicy(l layout.Layout, n layout.Whisker, g layout.Goldmane) *networkingv1.NetworkPolicy {
	udp := networkingv1.NetworkPolicyPort{Protocol: ptr.To(corev1.ProtocolUDP), Port: tcpPort(53).Port}
	return &networkingv1.NetworkPolicy{
		TypeMeta:   typeMeta("networking.k8s.io/v1", "NetworkPolicy"),
		ObjectMeta: meta(n.NetworkPolicy, l.Namespace, nil),
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{layout.LabelAppName: n.Workload.Name}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
			Egress: []networkingv1.NetworkPolicyEgressRule{
				{
					To:    []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{layout.LabelAppName: g.Workload.Name}}}},
					Ports: []networkingv1.NetworkPolicyPort{tcpPort(goldmanePort)},
				},
				{
					// kube-dns in kube-system: Calico, which enforces the policy, gives each namespace the label
					// projectcalico.org/name.
					To: []networkingv1.NetworkPolicyPeer{{
						PodSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "kube-dns"}},
						NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"projectcalico.org/name": "kube-system"}},
					}},
					Ports: []networkingv1.NetworkPolicyPort{tcpPort(53), udp},
				},
			},
		},
	}
}
