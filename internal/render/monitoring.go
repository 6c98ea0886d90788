package render

import (
	"fmt"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	monitoringv1alpha1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/values"
)

// Seed-side monitoring, as the landscape expects it (docs/gardener-integration.md §7): the shoot's
// Prometheus ("prometheus-shoot" in the control-plane namespace) selects ScrapeConfigs labelled
// prometheus: shoot, and Plutono loads the dashboards of ConfigMaps labelled
// dashboard.monitoring.gardener.cloud/shoot: "true". Names, job names and labels are the
// reference extension's, so existing queries, dashboards and alerts keep working after a swap.

// Job names of the scrape targets (the "job" label of every series).
const (
	JobFelix = "felix-metrics"
	JobTypha = "typha-metrics"
	JobBird  = "bird-metrics"
)

// Metric keep-lists: only these series are stored (Prometheus anchors the regexes).
const (
	KeepFelix = "felix_.+"
	KeepTypha = "typha_.+"
	KeepBird  = "bird_protocol_up.*|bird_protocol_prefix_export_count|bird_protocol_prefix_import_count"
)

// prometheusShootAccess is the Secret in the control-plane namespace holding prometheus-shoot's
// token for the shoot's API server (key "token"); the shoot resource manager keeps it fresh.
const prometheusShootAccess = "shoot-access-prometheus-shoot"

// SeedMonitoring returns the objects for the shoot's control-plane namespace in the seed: the
// Plutono dashboards ConfigMap and the felix, typha and bird ScrapeConfigs. All of them are
// rendered whatever the shoot runs, as the reference does: a ScrapeConfig of a component that is
// off (typha disabled, no bird exporter) discovers no target, and the objects do not come and go
// with the configuration. They are stored in the seed ManagedResource, which removes them.
func SeedMonitoring(o *values.Options) ([]client.Object, error) {
	if o.SeedNamespace == "" {
		return nil, fmt.Errorf("rendering seed monitoring objects: the shoot's control-plane namespace is not set")
	}
	return []client.Object{
		&corev1.ConfigMap{
			TypeMeta:   typeMeta("v1", "ConfigMap"),
			ObjectMeta: meta(NameDashboards, o.SeedNamespace, map[string]string{"dashboard.monitoring.gardener.cloud/shoot": "true"}),
			Data:       dashboards(),
		},
		scrapeConfig(o.SeedNamespace, layoutOf(o).Namespace, NameScrapeFelix, JobFelix, NameFelixMonitoring, "metrics", KeepFelix),
		scrapeConfig(o.SeedNamespace, layoutOf(o).Namespace, NameScrapeTypha, JobTypha, NameTyphaMonitoring, "metrics", KeepTypha),
		scrapeConfig(o.SeedNamespace, layoutOf(o).Namespace, NameScrapeBird, JobBird, NameBirdMonitoring, "bird-metrics", KeepBird),
	}, nil
}

// scrapeConfig scrapes the pods behind one shoot monitoring Service through the shoot's
// kube-apiserver pod proxy: the seed's Prometheus cannot reach shoot pods (host-network pods on
// node IPs) directly, the API server reaches them through the VPN.
//
// Credentials: prometheus-shoot's token from Secret shoot-access-prometheus-shoot, for the
// Kubernetes service discovery and for the scrapes alike. TLS: insecureSkipVerify, as the
// reference and Gardener's own helper for shoot component scrape configs do. There is no stable
// CA secret to point at: the cluster CA bundle Secret is named ca-bundle-<hash> and its name
// changes with every CA rotation step, and extensions must not rely on it; the target is the
// kube-apiserver Service of the same namespace, reached inside the seed. shootNamespace is where the
// shoot's Calico pods and monitoring Services are (the layout's namespace).
func scrapeConfig(namespace, shootNamespace, name, job, service, containerPort, keep string) *monitoringv1alpha1.ScrapeConfig {
	access := corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: prometheusShootAccess}, Key: "token"}
	auth := func() *monitoringv1.SafeAuthorization {
		return &monitoringv1.SafeAuthorization{Type: "Bearer", Credentials: access.DeepCopy()}
	}
	tls := func() *monitoringv1.SafeTLSConfig {
		return &monitoringv1.SafeTLSConfig{InsecureSkipVerify: ptr.To(true)}
	}
	labels := func(names ...string) []monitoringv1.LabelName {
		out := make([]monitoringv1.LabelName, len(names))
		for i, n := range names {
			out[i] = monitoringv1.LabelName(n)
		}
		return out
	}
	return &monitoringv1alpha1.ScrapeConfig{
		TypeMeta:   typeMeta("monitoring.coreos.com/v1alpha1", "ScrapeConfig"),
		ObjectMeta: meta(name, namespace, map[string]string{"prometheus": "shoot"}),
		Spec: monitoringv1alpha1.ScrapeConfigSpec{
			HonorLabels:   ptr.To(false),
			Scheme:        ptr.To(monitoringv1.SchemeHTTPS),
			Authorization: auth(),
			TLSConfig:     tls(),
			KubernetesSDConfigs: []monitoringv1alpha1.KubernetesSDConfig{{
				APIServer:       ptr.To("https://kube-apiserver"),
				Role:            monitoringv1alpha1.KubernetesRoleEndpoint,
				Namespaces:      &monitoringv1alpha1.NamespaceDiscovery{Names: []string{shootNamespace}},
				Authorization:   auth(),
				TLSConfig:       tls(),
				FollowRedirects: ptr.To(true),
			}},
			RelabelConfigs: []monitoringv1.RelabelConfig{
				{Action: "replace", TargetLabel: "job", Replacement: ptr.To(job)},
				{
					SourceLabels: labels("__meta_kubernetes_service_name", "__meta_kubernetes_pod_container_port_name"),
					Separator:    ptr.To(";"), Action: "keep", Regex: service + ";" + containerPort,
				},
				{SourceLabels: labels("__meta_kubernetes_endpoint_node_name"), TargetLabel: "node", Action: "replace"},
				{SourceLabels: labels("__meta_kubernetes_pod_name"), TargetLabel: "pod", Action: "replace"},
				{TargetLabel: "__address__", Replacement: ptr.To("kube-apiserver:443"), Action: "replace"},
				{
					SourceLabels: labels("__meta_kubernetes_pod_name", "__meta_kubernetes_pod_container_port_number"),
					Separator:    ptr.To(";"), Regex: "(.+);(.+)", TargetLabel: "__metrics_path__",
					Replacement: ptr.To("/api/v1/namespaces/" + shootNamespace + "/pods/${1}:${2}/proxy/metrics"), Action: "replace",
				},
			},
			MetricRelabelConfigs: []monitoringv1.RelabelConfig{{SourceLabels: labels("__name__"), Action: "keep", Regex: keep}},
		},
	}
}
