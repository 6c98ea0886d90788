package render

import (
	"encoding/json"
	"fmt"
	"path"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// goldmane aggregates the flow logs every Felix sends it over mutual TLS and serves them to
// whisker-backend (docs/components/goldmane.md).

// goldmanePort is goldmane's gRPC port, in its pods and on its Service.
const goldmanePort int32 = 7443

// The goldmane configuration file (hot-reloaded from its ConfigMap) and where it is mounted.
const (
	goldmaneConfigDir  = "/config"
	goldmaneConfigFile = "config.json"
)

// goldmaneFlushInterval is FELIX_FLOWLOGSFLUSHINTERVAL (seconds) with goldmane: how often Felix sends
// its flows (the operator's value).
const goldmaneFlushInterval = "15"

// goldmane returns goldmane's objects when it is on: ServiceAccount, its configuration ConfigMap,
// Service, Deployment and NetworkPolicy.
func goldmane(o *values.Options) ([]client.Object, error) {
	if !o.Components.Goldmane {
		return nil, nil
	}
	l := layoutOf(o)
	n := l.ComponentsOf().Goldmane
	config, err := goldmaneConfig()
	if err != nil {
		return nil, err
	}
	return []client.Object{
		// No Role: goldmane asks the API server for nothing unless PUSH_URL names an upstream to emit
		// flows to (its emitter keeps its progress in a ConfigMap), and calico-pilot sets none
		// (docs/components/goldmane.md).
		componentServiceAccount(l, n.Workload.ServiceAccount),
		&corev1.ConfigMap{
			TypeMeta:   typeMeta("v1", "ConfigMap"),
			ObjectMeta: meta(n.ConfigMap, l.Namespace, nil),
			Data:       map[string]string{goldmaneConfigFile: config},
		},
		&corev1.Service{
			TypeMeta:   typeMeta("v1", "Service"),
			ObjectMeta: meta(n.Service, l.Namespace, nil),
			Spec: corev1.ServiceSpec{
				Ports:    []corev1.ServicePort{{Port: goldmanePort, Protocol: corev1.ProtocolTCP}},
				Selector: selectorOf(n.Workload),
			},
		},
		goldmaneDeployment(o, l, n),
		&networkingv1.NetworkPolicy{
			TypeMeta:   typeMeta("networking.k8s.io/v1", "NetworkPolicy"),
			ObjectMeta: meta(n.NetworkPolicy, l.Namespace, nil),
			Spec: networkingv1.NetworkPolicySpec{
				// Every Felix (host network) and whisker-backend reach goldmane's port.
				PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{layout.LabelAppName: n.Workload.Name}},
				PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
				Ingress:     []networkingv1.NetworkPolicyIngressRule{{Ports: []networkingv1.NetworkPolicyPort{tcpPort(goldmanePort)}}},
			},
		},
	}, nil
}

// goldmaneConfig is goldmane's hot-reloaded configuration: it emits no flows to a management
// cluster (calico-pilot connects none).
func goldmaneConfig() (string, error) {
	b, err := json.Marshal(struct {
		EmitFlows bool `json:"emitFlows"`
	}{})
	if err != nil {
		return "", fmt.Errorf("rendering goldmane's configuration: %w", err)
	}
	return string(b), nil
}

func goldmaneDeployment(o *values.Options, l layout.Layout, n layout.Goldmane) *appsv1.Deployment {
	labels := componentLabels(n.Workload)
	return &appsv1.Deployment{
		TypeMeta:   typeMeta("apps/v1", "Deployment"),
		ObjectMeta: meta(n.Workload.Name, l.Namespace, labels),
		Spec: appsv1.DeploymentSpec{
			// One goldmane holds the cluster's flows in memory; two would each hold half.
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: selectorOf(n.Workload)},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: checksumAnnotations(o.Components, n.KeyPair, n.CABundle)},
				Spec: corev1.PodSpec{
					ServiceAccountName: n.Workload.ServiceAccount,
					NodeSelector:       map[string]string{"kubernetes.io/os": "linux"},
					Tolerations:        controlPlaneTolerations(true),
					Containers: []corev1.Container{{
						Name:  n.Workload.Name,
						Image: o.Images.CalicoGoldmane,
						Env: []corev1.EnvVar{
							env("LOG_LEVEL", "INFO"),
							env("PORT", strconv.Itoa(int(goldmanePort))),
							env("SERVER_CERT_PATH", keyPairFile(n.KeyPair, corev1.TLSCertKey)),
							env("SERVER_KEY_PATH", keyPairFile(n.KeyPair, corev1.TLSPrivateKeyKey)),
							// The CAs whose client certificates goldmane accepts (Felix's).
							env("CA_CERT_PATH", path.Join(caBundleMountPath, caBundleKey)),
							env("FILE_CONFIG_PATH", path.Join(goldmaneConfigDir, goldmaneConfigFile)),
							env("HEALTH_ENABLED", "true"),
						},
						VolumeMounts: []corev1.VolumeMount{
							keyPairMount(n.KeyPair),
							caBundleMount(n.CABundle),
							{Name: "config", MountPath: goldmaneConfigDir, ReadOnly: true},
						},
						ReadinessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"/health", "-ready"}}}},
						LivenessProbe:   &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"/health", "-live"}}}},
						SecurityContext: nonRootContext(),
					}},
					Volumes: []corev1.Volume{
						keyPairVolume(n.KeyPair),
						configMapVolume(n.CABundle, n.CABundle),
						configMapVolume("config", n.ConfigMap),
					},
				},
			},
		},
	}
}

// goldmaneNodeEnv is what Felix needs to send its flows to goldmane: its address and how often. Felix
// connects with its Typha client key pair and checks goldmane's certificate with the Typha CA file
// (render requires Typha TLS with goldmane).
func goldmaneNodeEnv(o *values.Options) []corev1.EnvVar {
	if !o.Components.Goldmane {
		return nil
	}
	return []corev1.EnvVar{
		env("FELIX_FLOWLOGSGOLDMANESERVER", goldmaneHost(layoutOf(o))),
		env("FELIX_FLOWLOGSFLUSHINTERVAL", goldmaneFlushInterval),
	}
}

// goldmaneHostAliases let calico-node (host network, which may not resolve cluster names) resolve
// goldmane's Service name to its ClusterIP; none without the IP.
func goldmaneHostAliases(o *values.Options) []corev1.HostAlias {
	c := o.Components
	if !c.Goldmane || c.GoldmaneServiceIP == "" {
		return nil
	}
	l := layoutOf(o)
	return []corev1.HostAlias{{IP: c.GoldmaneServiceIP, Hostnames: []string{fmt.Sprintf("%s.%s.svc", l.ComponentsOf().Goldmane.Service, l.Namespace)}}}
}
