package render

import (
	"fmt"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	monitoringv1alpha1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/values"
)

// SeedMonitoring returns the objects for the shoot's control-plane namespace in the seed: the
// Grafana dashboards and one ScrapeConfig per running component. Delete must remove all three
// ScrapeConfig names whatever is rendered now (see SeedMonitoringNames).
func SeedMonitoring(o *values.Options) ([]client.Object, error) {
	if o.SeedNamespace == "" {
		return nil, fmt.Errorf("rendering seed monitoring objects: the shoot's control-plane namespace is not set")
	}
	objs := []client.Object{&corev1.ConfigMap{
		TypeMeta:   typeMeta("v1", "ConfigMap"),
		ObjectMeta: meta(NameDashboards, o.SeedNamespace, map[string]string{"dashboard.monitoring.gardener.cloud/shoot": "true"}),
		Data:       dashboards(o),
	}}
	objs = append(objs, scrapeConfig(o.SeedNamespace, NameScrapeFelix, NameFelixMonitoring, "felix_.+"))
	if o.Typha {
		objs = append(objs, scrapeConfig(o.SeedNamespace, NameScrapeTypha, NameTyphaMonitoring, "typha_.+"))
	}
	if o.BirdExporter && !o.NonPrivileged {
		objs = append(objs, scrapeConfig(o.SeedNamespace, NameScrapeBird, NameBirdMonitoring,
			"bird_protocol_up.*|bird_protocol_prefix_export_count|bird_protocol_prefix_import_count"))
	}
	return objs, nil
}

// SeedMonitoringNames lists every seed object SeedMonitoring may ever create, for deletion.
func SeedMonitoringNames() []client.Object {
	return []client.Object{
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: NameDashboards}},
		&monitoringv1alpha1.ScrapeConfig{ObjectMeta: metav1.ObjectMeta{Name: NameScrapeFelix}},
		&monitoringv1alpha1.ScrapeConfig{ObjectMeta: metav1.ObjectMeta{Name: NameScrapeTypha}},
		&monitoringv1alpha1.ScrapeConfig{ObjectMeta: metav1.ObjectMeta{Name: NameScrapeBird}},
	}
}

// scrapeConfig scrapes the pods behind a shoot monitoring Service through the shoot's
// kube-apiserver pod proxy: the seed's Prometheus cannot reach shoot pods directly.
func scrapeConfig(namespace, name, service, keep string) *monitoringv1alpha1.ScrapeConfig {
	access := &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "shoot-access-prometheus-shoot"}, Key: "token"}
	auth := &monitoringv1.SafeAuthorization{Type: "Bearer", Credentials: access}
	tls := &monitoringv1.SafeTLSConfig{CA: monitoringv1.SecretOrConfigMap{Secret: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: "ca"}, Key: "bundle.crt",
	}}}
	return &monitoringv1alpha1.ScrapeConfig{
		TypeMeta:   typeMeta("monitoring.coreos.com/v1alpha1", "ScrapeConfig"),
		ObjectMeta: meta(name, namespace, map[string]string{"prometheus": "shoot"}),
		Spec: monitoringv1alpha1.ScrapeConfigSpec{
			HonorLabels:   ptr.To(false),
			Scheme:        ptr.To(monitoringv1.SchemeHTTPS),
			Authorization: auth,
			TLSConfig:     tls,
			KubernetesSDConfigs: []monitoringv1alpha1.KubernetesSDConfig{{
				APIServer:     ptr.To("https://kube-apiserver"),
				Role:          monitoringv1alpha1.KubernetesRoleEndpoint,
				Namespaces:    &monitoringv1alpha1.NamespaceDiscovery{Names: []string{Namespace}},
				Authorization: auth,
				TLSConfig:     tls,
			}},
			RelabelConfigs: []monitoringv1.RelabelConfig{
				{SourceLabels: []monitoringv1.LabelName{"__meta_kubernetes_service_name"}, Action: "keep", Regex: service},
				{TargetLabel: "__address__", Replacement: ptr.To("kube-apiserver:443"), Action: "replace"},
				{
					SourceLabels: []monitoringv1.LabelName{"__meta_kubernetes_pod_name", "__meta_kubernetes_endpoint_port_number"},
					Separator:    ptr.To(";"), Regex: "(.+);(.+)", TargetLabel: "__metrics_path__",
					Replacement: ptr.To("/api/v1/namespaces/" + Namespace + "/pods/${1}:${2}/proxy/metrics"), Action: "replace",
				},
				{SourceLabels: []monitoringv1.LabelName{"__meta_kubernetes_pod_name"}, TargetLabel: "pod", Action: "replace"},
				{SourceLabels: []monitoringv1.LabelName{"__meta_kubernetes_pod_node_name"}, TargetLabel: "node", Action: "replace"},
			},
			MetricRelabelConfigs: []monitoringv1.RelabelConfig{{SourceLabels: []monitoringv1.LabelName{"__name__"}, Action: "keep", Regex: keep}},
		},
	}
}
