package render_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	monitoringv1alpha1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1alpha1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/render"
)

func seedObjects(t *testing.T, name string) []client.Object {
	t.Helper()
	opts := scenarioOptions(t, scenarioByName(t, name))
	objs, err := render.SeedMonitoring(&opts)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// strictScrapeConfig round-trips a rendered ScrapeConfig through JSON into the prometheus-operator
// type with unknown fields rejected: what we render is exactly what the operator's API reads.
func strictScrapeConfig(t *testing.T, obj client.Object) *monitoringv1alpha1.ScrapeConfig {
	t.Helper()
	raw, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var sc monitoringv1alpha1.ScrapeConfig
	if err := dec.Decode(&sc); err != nil {
		t.Fatalf("%s does not decode strictly into monitoringv1alpha1.ScrapeConfig: %v", obj.GetName(), err)
	}
	again, _ := json.Marshal(&sc)
	if !bytes.Equal(raw, again) {
		t.Errorf("%s changes in a round trip through the API type:\n%s", obj.GetName(), cmp.Diff(string(raw), string(again)))
	}
	return &sc
}

// relabel applies Prometheus relabel rules of the actions we use (replace, keep) to a target's
// labels, with Prometheus' semantics: source values joined by the separator, regex anchored,
// replacement "$1" by default, a "keep" that does not match drops the target.
func relabel(t *testing.T, in map[string]string, rules []monitoringv1.RelabelConfig) (map[string]string, bool) {
	t.Helper()
	out := map[string]string{}
	for k, v := range in {
		out[k] = v
	}
	for _, r := range rules {
		sep := ";"
		if r.Separator != nil {
			sep = *r.Separator
		}
		var vals []string
		for _, l := range r.SourceLabels {
			vals = append(vals, out[string(l)])
		}
		value := strings.Join(vals, sep)
		regex := r.Regex
		if regex == "" {
			regex = "(.*)"
		}
		re := regexp.MustCompile("^(?:" + regex + ")$")
		switch strings.ToLower(r.Action) {
		case "keep":
			if !re.MatchString(value) {
				return nil, false
			}
		case "replace", "":
			m := re.FindStringSubmatchIndex(value)
			if m == nil {
				continue
			}
			repl := "$1"
			if r.Replacement != nil {
				repl = *r.Replacement
			}
			out[r.TargetLabel] = string(re.ExpandString(nil, repl, value, m))
		default:
			t.Fatalf("relabel action %q not simulated", r.Action)
		}
	}
	return out, true
}

func TestScrapeConfigs(t *testing.T) {
	want := map[string]struct{ job, service, port, keep string }{
		"shoot-calico-felix": {"felix-metrics", "calico-felix-monitoring", "metrics", "felix_.+"},
		"shoot-calico-typha": {"typha-metrics", "calico-typha-monitoring", "metrics", "typha_.+"},
		"shoot-calico-bird":  {"bird-metrics", "calico-bird-monitoring", "bird-metrics", "bird_protocol_up.*|bird_protocol_prefix_export_count|bird_protocol_prefix_import_count"},
	}
	// The shoot side of the largest scenario (bird exporter on): container ports and Services the
	// ScrapeConfigs select.
	shoot := ids(renderScenario(t, scenarioByName(t, "largest")))
	typhaObjs := ids(renderScenario(t, scenarioByName(t, "default")))
	for k, v := range typhaObjs {
		if _, ok := shoot[k]; !ok {
			shoot[k] = v
		}
	}
	seen := 0
	for _, obj := range seedObjects(t, "default") {
		if _, ok := obj.(*monitoringv1alpha1.ScrapeConfig); !ok {
			continue
		}
		seen++
		sc := strictScrapeConfig(t, obj)
		w, ok := want[sc.Name]
		if !ok {
			t.Errorf("unexpected ScrapeConfig %s", sc.Name)
			continue
		}
		if sc.Namespace != "shoot--dev--test" || !cmp.Equal(sc.Labels, map[string]string{"prometheus": "shoot"}) {
			t.Errorf("%s: namespace %q labels %v, want the control-plane namespace and only prometheus: shoot", sc.Name, sc.Namespace, sc.Labels)
		}
		access := &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "shoot-access-prometheus-shoot"}, Key: "token"}
		checkAccess := func(where string, auth *monitoringv1.SafeAuthorization, tls *monitoringv1.SafeTLSConfig) {
			if auth == nil || auth.Credentials == nil || !cmp.Equal(auth.Credentials, access) {
				t.Errorf("%s %s: authorization %+v, want shoot-access-prometheus-shoot/token", sc.Name, where, auth)
			}
			if tls == nil || tls.InsecureSkipVerify == nil || !*tls.InsecureSkipVerify || tls.CA.Secret != nil || tls.CA.ConfigMap != nil {
				t.Errorf("%s %s: tls %+v, want insecureSkipVerify and no CA", sc.Name, where, tls)
			}
		}
		checkAccess("scrape", sc.Spec.Authorization, sc.Spec.TLSConfig)
		if sc.Spec.Scheme == nil || *sc.Spec.Scheme != monitoringv1.SchemeHTTPS {
			t.Errorf("%s: scheme %v, want HTTPS", sc.Name, sc.Spec.Scheme)
		}
		if len(sc.Spec.KubernetesSDConfigs) != 1 {
			t.Fatalf("%s: %d Kubernetes SD configs, want 1", sc.Name, len(sc.Spec.KubernetesSDConfigs))
		}
		sd := sc.Spec.KubernetesSDConfigs[0]
		checkAccess("kubernetes SD", sd.Authorization, sd.TLSConfig)
		if sd.APIServer == nil || *sd.APIServer != "https://kube-apiserver" || sd.Role != monitoringv1alpha1.KubernetesRoleEndpoint ||
			sd.Namespaces == nil || !cmp.Equal(sd.Namespaces.Names, []string{"kube-system"}) || sd.FollowRedirects == nil || !*sd.FollowRedirects {
			t.Errorf("%s: kubernetes SD %+v, want https://kube-apiserver, Endpoints in kube-system, followRedirects", sc.Name, sd)
		}
		if n := len(sc.Spec.MetricRelabelConfigs); n != 1 || sc.Spec.MetricRelabelConfigs[0].Action != "keep" || sc.Spec.MetricRelabelConfigs[0].Regex != w.keep {
			t.Errorf("%s: metric relabelings %+v, want keep %s", sc.Name, sc.Spec.MetricRelabelConfigs, w.keep)
		}

		// The Service and the container port the ScrapeConfig keeps exist in the shoot.
		svc, ok := shoot[id{"Service", w.service}].(*corev1.Service)
		if !ok {
			t.Fatalf("%s: no Service %s in the shoot", sc.Name, w.service)
		}
		var owner *corev1.PodTemplateSpec
		for _, o := range shoot {
			switch x := o.(type) {
			case *appsv1.DaemonSet:
				if x.Spec.Template.Labels["k8s-app"] == svc.Spec.Selector["k8s-app"] {
					owner = &x.Spec.Template
				}
			case *appsv1.Deployment:
				if x.Spec.Template.Labels["k8s-app"] == svc.Spec.Selector["k8s-app"] {
					owner = &x.Spec.Template
				}
			}
		}
		if owner == nil {
			t.Fatalf("%s: Service %s selects no rendered pods", sc.Name, w.service)
		}
		var port *corev1.ContainerPort
		for _, c := range owner.Spec.Containers {
			for i := range c.Ports {
				if c.Ports[i].Name == w.port {
					port = &c.Ports[i]
				}
			}
		}
		if port == nil || svc.Spec.Ports[0].TargetPort.IntValue() != int(port.ContainerPort) {
			t.Fatalf("%s: Service %s does not target a container port named %s (%+v)", sc.Name, w.service, w.port, port)
		}

		// A discovered endpoint of that Service and port becomes a pod-proxy scrape with the
		// reference's labels; the same pod's other ports and other Services are dropped.
		target := map[string]string{
			"__address__":                    "10.250.0.5:" + port.Name,
			"job":                            sc.Name,
			"__meta_kubernetes_service_name": w.service,
			"__meta_kubernetes_pod_name":     "pod-1",
			"__meta_kubernetes_pod_container_port_name":   w.port,
			"__meta_kubernetes_pod_container_port_number": "9999",
			"__meta_kubernetes_endpoint_node_name":        "node-a",
			"__metrics_path__":                            "/metrics",
		}
		got, kept := relabel(t, target, sc.Spec.RelabelConfigs)
		if !kept {
			t.Fatalf("%s: drops its own target", sc.Name)
		}
		for k, v := range map[string]string{
			"job": w.job, "node": "node-a", "pod": "pod-1", "__address__": "kube-apiserver:443",
			"__metrics_path__": "/api/v1/namespaces/kube-system/pods/pod-1:9999/proxy/metrics",
		} {
			if got[k] != v {
				t.Errorf("%s: %s = %q, want %q", sc.Name, k, got[k], v)
			}
		}
		for _, other := range []map[string]string{
			{"__meta_kubernetes_service_name": w.service, "__meta_kubernetes_pod_container_port_name": "other"},
			{"__meta_kubernetes_service_name": "kube-dns", "__meta_kubernetes_pod_container_port_name": w.port},
		} {
			if _, kept := relabel(t, other, sc.Spec.RelabelConfigs); kept {
				t.Errorf("%s: keeps %v", sc.Name, other)
			}
		}
	}
	if seen != 3 {
		t.Errorf("%d ScrapeConfigs, want 3", seen)
	}
}

// TestSeedMonitoringDoesNotDependOnConfig: as in the reference, every shoot gets the three
// ScrapeConfigs and the three dashboards.
func TestSeedMonitoringDoesNotDependOnConfig(t *testing.T) {
	base := yamlOf(t, seedObjects(t, "default"))
	for _, sc := range scenarios {
		if got := yamlOf(t, seedObjects(t, sc.Name)); !bytes.Equal(got, base) {
			t.Errorf("%s: seed objects differ from default's", sc.Name)
		}
	}
}

// metricName finds the metric names in a PromQL expression: identifiers of the components'
// prefixes that are not label names (not followed by "=", "!=", "=~" or "!~").
var metricName = regexp.MustCompile(`\b((?:felix|typha|bird)_[a-z0-9_]+)\b\s*([=!]~?)?`)

func TestDashboards(t *testing.T) {
	var cm *corev1.ConfigMap
	for _, o := range seedObjects(t, "default") {
		if c, ok := o.(*corev1.ConfigMap); ok {
			cm = c
		}
	}
	if cm == nil || cm.Name != "calico-dashboards" || cm.Labels["dashboard.monitoring.gardener.cloud/shoot"] != "true" {
		t.Fatalf("dashboards ConfigMap %+v", cm)
	}
	type want struct {
		uid, job, keep string
		// covers are metric names (or prefixes ending in "_") the dashboard must query.
		covers []string
	}
	wants := map[string]want{
		"calico-felix-dashboard.json": {"calico-felix-dashboard", "felix-metrics", render.KeepFelix, []string{
			"felix_active_local_endpoints", "felix_iptables_", "felix_ipsets_", "felix_int_dataplane_apply_time_seconds",
			"felix_active_local_policies", "felix_route_table_", "felix_int_dataplane_failures", "felix_iptables_restore_errors", "felix_ipset_errors",
		}},
		"calico-typha-dashboard.json": {"calico-typha-dashboard", "typha-metrics", render.KeepTypha, []string{
			"typha_connections_active", "typha_ping_latency", "typha_snapshot_", "typha_client_snapshot_send_secs", "typha_updates_",
		}},
		"calico-bird-dashboard.json": {"ZFX1vGuHk", "bird-metrics", render.KeepBird, []string{
			"bird_protocol_up", "bird_protocol_prefix_import_count", "bird_protocol_prefix_export_count",
		}},
	}
	keys := make([]string, 0, len(cm.Data))
	for k := range cm.Data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if !cmp.Equal(keys, []string{"calico-bird-dashboard.json", "calico-felix-dashboard.json", "calico-typha-dashboard.json"}) {
		t.Errorf("dashboard keys %v", keys)
	}
	for key, w := range wants {
		t.Run(key, func(t *testing.T) {
			var d struct {
				UID        string `json:"uid"`
				Title      string `json:"title"`
				Templating struct {
					List []struct {
						Datasource string `json:"datasource"`
						Query      string `json:"query"`
					} `json:"list"`
				} `json:"templating"`
				Panels []struct {
					Type       string `json:"type"`
					Title      string `json:"title"`
					Datasource string `json:"datasource"`
					Targets    []struct {
						Expr string `json:"expr"`
					} `json:"targets"`
				} `json:"panels"`
			}
			if err := json.Unmarshal([]byte(cm.Data[key]), &d); err != nil {
				t.Fatalf("not valid JSON: %v", err)
			}
			if d.UID != w.uid || d.Title == "" {
				t.Errorf("uid %q title %q, want uid %q", d.UID, d.Title, w.uid)
			}
			keep := regexp.MustCompile("^(?:" + w.keep + ")$")
			var exprs []string
			for _, v := range d.Templating.List {
				if v.Datasource != render.DataSource {
					t.Errorf("variable data source %q, want %q", v.Datasource, render.DataSource)
				}
				exprs = append(exprs, v.Query)
			}
			graphs := 0
			for _, p := range d.Panels {
				if p.Type == "row" {
					continue
				}
				graphs++
				if p.Datasource != render.DataSource {
					t.Errorf("panel %q: data source %q, want %q", p.Title, p.Datasource, render.DataSource)
				}
				if len(p.Targets) == 0 {
					t.Errorf("panel %q has no query", p.Title)
				}
				for _, q := range p.Targets {
					if !strings.Contains(q.Expr, `job="`+w.job+`"`) {
						t.Errorf("panel %q: query %s does not select job %s", p.Title, q.Expr, w.job)
					}
					exprs = append(exprs, q.Expr)
				}
			}
			queried := map[string]bool{}
			for _, e := range exprs {
				found := false
				for _, m := range metricName.FindAllStringSubmatch(e, -1) {
					if m[2] != "" {
						continue // a label name
					}
					found = true
					queried[m[1]] = true
					if !keep.MatchString(m[1]) {
						t.Errorf("query %s uses %s, which the ScrapeConfig's keep-list %s drops", e, m[1], w.keep)
					}
				}
				if !found {
					t.Errorf("query %s names no metric of the component", e)
				}
			}
			for _, c := range w.covers {
				ok := false
				for m := range queried {
					if m == c || (strings.HasSuffix(c, "_") && strings.HasPrefix(m, c)) {
						ok = true
					}
				}
				if !ok {
					t.Errorf("no panel queries %s", c)
				}
			}
			t.Logf("%d panels, %d queried metrics", graphs, len(queried))
		})
	}
}
