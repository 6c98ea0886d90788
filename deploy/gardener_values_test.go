package deploy_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/engine"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// readValues reads a values file from testdata/.
func readValues(t *testing.T, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]any{}
	if err := yaml.Unmarshal(data, &values); err != nil {
		t.Fatalf("testdata/%s: %v", name, err)
	}
	return values
}

// gardenletMerge merges gardener's values over the user's as gardenlet does (docs/gardener-integration.md
// §3.2): maps merge recursively, for any other value gardener's wins.
func gardenletMerge(user, gardener map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range user {
		out[k] = v
	}
	for k, g := range gardener {
		um, uok := out[k].(map[string]any)
		gm, gok := g.(map[string]any)
		if uok && gok {
			out[k] = gardenletMerge(um, gm)
			continue
		}
		out[k] = g
	}
	return out
}

// seedCaps are the capabilities of a seed running Kubernetes version v.
func seedCaps(t *testing.T, v string) *common.Capabilities {
	t.Helper()
	kv, err := common.ParseKubeVersion(v)
	if err != nil {
		t.Fatal(err)
	}
	caps := *common.DefaultCapabilities
	caps.KubeVersion = *kv
	return &caps
}

// checkSeedConventions asserts what a seed expects of an extension's controller pod
// (docs/gardener-integration.md §3.4–§3.8).
func checkSeedConventions(t *testing.T, objs []rendered, d *appsv1.Deployment, metricsPort string) {
	t.Helper()
	pod := d.Spec.Template
	if got := pod.Spec.PriorityClassName; got != "gardener-system-900" {
		t.Errorf("priorityClassName = %q, want gardener-system-900", got)
	}
	if got := d.Labels["high-availability-config.resources.gardener.cloud/type"]; got != "controller" {
		t.Errorf("Deployment HA type label = %q, want controller", got)
	}
	for _, l := range []string{
		"networking.gardener.cloud/to-dns",
		"networking.gardener.cloud/to-runtime-apiserver",
		"networking.resources.gardener.cloud/to-all-shoots-kube-apiserver-tcp-443",
	} {
		if got := pod.Labels[l]; got != "allowed" {
			t.Errorf("pod label %s = %q, want allowed", l, got)
		}
	}
	wantScrape := map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": metricsPort, "prometheus.io/name": "networking-calico"}
	for k, v := range wantScrape {
		if got := pod.Annotations[k]; got != v {
			t.Errorf("pod annotation %s = %q, want %q", k, got, v)
		}
	}
	c := pod.Spec.Containers[0]
	wantEnv := corev1.EnvVar{Name: "LEADER_ELECTION_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}}
	if !containsEnv(c.Env, wantEnv) {
		t.Errorf("controller env %v lacks LEADER_ELECTION_NAMESPACE from metadata.namespace", c.Env)
	}
	svc := &corev1.Service{}
	into(t, find(t, objs, "Service", "networking-calico-metrics"), svc)
	wantAnnotations := map[string]string{
		"networking.resources.gardener.cloud/from-all-seed-scrape-targets-allowed-ports": `[{"port":` + metricsPort + `,"protocol":"TCP"}]`,
		"networking.resources.gardener.cloud/namespace-selectors":                        `[{"matchLabels":{"kubernetes.io/metadata.name":"garden"}}]`,
		"networking.resources.gardener.cloud/pod-label-selector-namespace-alias":         "extensions",
	}
	for k, v := range wantAnnotations {
		if got := svc.Annotations[k]; got != v {
			t.Errorf("metrics Service annotation %s = %q, want %q", k, got, v)
		}
	}
	pdb := &policyv1.PodDisruptionBudget{}
	into(t, find(t, objs, "PodDisruptionBudget", "networking-calico"), pdb)
	if p := pdb.Spec.UnhealthyPodEvictionPolicy; p == nil || *p != policyv1.AlwaysAllow {
		t.Errorf("PDB unhealthyPodEvictionPolicy = %v, want AlwaysAllow", p)
	}
	vpa := find(t, objs, "VerticalPodAutoscaler", "networking-calico")
	if name, _, _ := unstructured.NestedString(vpa.Object, "spec", "targetRef", "name"); name != d.Name {
		t.Errorf("VPA targets %q, want %q", name, d.Name)
	}
}

func containsEnv(env []corev1.EnvVar, want corev1.EnvVar) bool {
	for _, e := range env {
		if cmp.Equal(e, want) {
			return true
		}
	}
	return false
}

// TestChartReferenceValues installs the chart with the reference chart's values file, alone and with
// everything gardenlet injects, as gardenlet does (schema enforced on the merged values), and checks that
// the reference keys keep their meaning; a server-side dry run of the output must succeed.
func TestChartReferenceValues(t *testing.T) {
	reference := readValues(t, "reference-values.yaml")
	injected := readValues(t, "gardenlet-values.yaml")
	tests := []struct {
		name         string
		values       map[string]any
		kubeVersion  string
		metricsPort  string
		healthPort   string
		gardenerArgs []string
		traffic      string
	}{
		{
			name:        "reference values alone",
			values:      reference,
			kubeVersion: "v1.33.4",
			metricsPort: "8080",
			healthPort:  "8081",
		},
		{
			name:         "reference values with gardenlet's tree and usablePorts (seed on 1.33)",
			values:       gardenletMerge(reference, injected),
			kubeVersion:  "v1.33.4",
			metricsPort:  "30011",
			healthPort:   "30013",
			gardenerArgs: []string{"--gardener-version=v1.150.0"},
			traffic:      "PreferClose",
		},
		{
			name:         "reference values with gardenlet's tree (seed on 1.37)",
			values:       gardenletMerge(reference, injected),
			kubeVersion:  "v1.37.2",
			metricsPort:  "30011",
			healthPort:   "30013",
			gardenerArgs: []string{"--gardener-version=v1.150.0"},
			traffic:      "PreferSameZone",
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Each case in its own namespace: the server-side dry run needs a live one.
			rel := release{name: "networking-calico", namespace: "extension-networking-calico-ref" + strconv.Itoa(i)}
			objs, err := renderChartWith(engine.Engine{Strict: true}, tt.values, rel, seedCaps(t, tt.kubeVersion))
			if err != nil {
				t.Fatal(err)
			}
			d := &appsv1.Deployment{}
			into(t, find(t, objs, "Deployment", "networking-calico"), d)
			checkHardened(t, d)
			checkSeedConventions(t, objs, d, tt.metricsPort)
			if got := *d.Spec.Replicas; got != 1 {
				t.Errorf("replicas = %d, want 1 (replicaCount)", got)
			}
			wantStrategy := appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxUnavailable: ptr(intstr.FromInt32(1)), MaxSurge: ptr(intstr.FromString("50%")),
			}}
			if diff := cmp.Diff(wantStrategy, d.Spec.Strategy); diff != "" {
				t.Errorf("strategy (-want +got):\n%s", diff)
			}
			c := d.Spec.Template.Spec.Containers[0]
			if want := "europe-docker.pkg.dev/gardener-project/public/gardener/extensions/networking-calico:latest"; c.Image != want {
				t.Errorf("image = %q, want %q", c.Image, want)
			}
			wantArgs := append([]string{
				"controller",
				"--config-file=/etc/calico-pilot/config/config.yaml",
				"--max-concurrent-reconciles=5",
				"--ignore-operation-annotation=false",
				"--leader-election=true",
				"--leader-election-id=networking-calico-leader-election",
				"--leader-election-namespace=" + rel.namespace,
				"--metrics-bind-address=:" + tt.metricsPort,
				"--health-bind-address=:" + tt.healthPort,
				"--heartbeat-namespace=" + rel.namespace,
				"--heartbeat-renew-interval-seconds=30",
			}, tt.gardenerArgs...)
			if diff := cmp.Diff(wantArgs, c.Args); diff != "" {
				t.Errorf("args (-want +got):\n%s", diff)
			}
			if got := c.ReadinessProbe.HTTPGet.Port.String(); got != "health" {
				t.Errorf("readiness probe port = %s, want the health port", got)
			}
			for _, p := range c.Ports {
				want := map[string]string{"metrics": tt.metricsPort, "health": tt.healthPort}[p.Name]
				if got := strconv.Itoa(int(p.ContainerPort)); got != want {
					t.Errorf("container port %s = %s, want %s", p.Name, got, want)
				}
			}

			// imageVectorOverwrite: ConfigMap, mounted file, IMAGEVECTOR_OVERWRITE, checksum annotation.
			cm := &corev1.ConfigMap{}
			into(t, find(t, objs, "ConfigMap", "networking-calico-imagevector-overwrite"), cm)
			if diff := cmp.Diff(tt.values["imageVectorOverwrite"], cm.Data["images_overwrite.yaml"]); diff != "" {
				t.Errorf("images_overwrite.yaml (-values +ConfigMap):\n%s", diff)
			}
			if !containsEnv(c.Env, corev1.EnvVar{Name: "IMAGEVECTOR_OVERWRITE", Value: "/charts_overwrite/images_overwrite.yaml"}) {
				t.Errorf("env %v lacks IMAGEVECTOR_OVERWRITE", c.Env)
			}
			mounted := false
			for _, m := range c.VolumeMounts {
				for _, v := range d.Spec.Template.Spec.Volumes {
					if m.Name == v.Name && m.MountPath == "/charts_overwrite" && v.ConfigMap != nil && v.ConfigMap.Name == cm.Name {
						mounted = true
					}
				}
			}
			if !mounted {
				t.Errorf("ConfigMap %s is not mounted at /charts_overwrite", cm.Name)
			}
			if d.Spec.Template.Annotations["checksum/configmap-network-imagevector-overwrite"] == "" {
				t.Errorf("pod template lacks the checksum/configmap-network-imagevector-overwrite annotation")
			}

			vpa := find(t, objs, "VerticalPodAutoscaler", "networking-calico")
			gotPolicy, _, _ := unstructured.NestedSlice(vpa.Object, "spec", "resourcePolicy", "containerPolicies")
			wantPolicy := []any{map[string]any{
				"containerName":    "*",
				"controlledValues": "RequestsOnly",
				"minAllowed":       map[string]any{"memory": "64Mi"},
				"maxAllowed":       map[string]any{"cpu": "2", "memory": "2Gi"},
			}}
			if diff := cmp.Diff(wantPolicy, gotPolicy); diff != "" {
				t.Errorf("VPA container policies (-want +got):\n%s", diff)
			}
			if mode, _, _ := unstructured.NestedString(vpa.Object, "spec", "updatePolicy", "updateMode"); mode != "InPlaceOrRecreate" {
				t.Errorf("VPA updateMode = %q, want InPlaceOrRecreate", mode)
			}

			svc := &corev1.Service{}
			into(t, find(t, objs, "Service", "networking-calico-metrics"), svc)
			if got := ptrValue(svc.Spec.TrafficDistribution); got != tt.traffic {
				t.Errorf("metrics Service trafficDistribution = %q, want %q", got, tt.traffic)
			}

			config := &corev1.ConfigMap{}
			into(t, find(t, objs, "ConfigMap", "networking-calico-config"), config)
			cfg := decodeConfigStrict(t, config.Data["config.yaml"])
			if diff := cmp.Diff(map[string]bool{"NonPrivilegedCalicoNode": false, "SeamlessOverlaySwitch": true}, cfg.FeatureGates); diff != "" {
				t.Errorf("feature gates (-want +got):\n%s", diff)
			}
			dryRunApply(t, objs, rel.namespace)
		})
	}
}

func ptr[T any](v T) *T { return &v }

func ptrValue(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// TestChartReferenceSwitches covers the reference keys that switch objects or annotations.
func TestChartReferenceSwitches(t *testing.T) {
	const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	t.Run("ignoreResources", func(t *testing.T) {
		objs, err := renderChart(map[string]any{"ignoreResources": true}, gardenerRelease)
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range []struct{ kind, name string }{{"Deployment", "networking-calico"}, {"Service", "networking-calico-metrics"}} {
			if got := find(t, objs, kind.kind, kind.name).GetAnnotations()["resources.gardener.cloud/ignore"]; got != "true" {
				t.Errorf("%s %s: resources.gardener.cloud/ignore = %q, want true", kind.kind, kind.name, got)
			}
		}
		if got := find(t, objs, "ConfigMap", "networking-calico-config").GetAnnotations()["resources.gardener.cloud/ignore"]; got != "" {
			t.Errorf("ignoreResources must only touch the Deployment and the Service, the ConfigMap has %q", got)
		}
	})
	t.Run("scraping off", func(t *testing.T) {
		objs, err := renderChart(map[string]any{"metrics": map[string]any{"enableScraping": false}}, gardenerRelease)
		if err != nil {
			t.Fatal(err)
		}
		d := &appsv1.Deployment{}
		into(t, find(t, objs, "Deployment", "networking-calico"), d)
		for k := range d.Spec.Template.Annotations {
			if strings.HasPrefix(k, "prometheus.io/") {
				t.Errorf("enableScraping is false but the pod has annotation %s", k)
			}
		}
	})
	t.Run("image ref and digest tag", func(t *testing.T) {
		for _, tc := range []struct {
			image map[string]any
			want  string
		}{
			{map[string]any{"ref": "mirror.example/calico-pilot@" + digest, "repository": "ignored.example/x", "tag": "v1"}, "mirror.example/calico-pilot@" + digest},
			{map[string]any{"repository": "mirror.example/calico-pilot", "tag": digest}, "mirror.example/calico-pilot@" + digest},
		} {
			objs, err := renderChart(map[string]any{"image": tc.image}, gardenerRelease)
			if err != nil {
				t.Fatal(err)
			}
			d := &appsv1.Deployment{}
			into(t, find(t, objs, "Deployment", "networking-calico"), d)
			if got := d.Spec.Template.Spec.Containers[0].Image; got != tc.want {
				t.Errorf("image %v renders %q, want %q", tc.image, got, tc.want)
			}
		}
	})
	t.Run("heartbeat off", func(t *testing.T) {
		objs, err := renderChart(map[string]any{"controller": map[string]any{"heartbeat": map[string]any{"enabled": false}}}, gardenerRelease)
		if err != nil {
			t.Fatal(err)
		}
		d := &appsv1.Deployment{}
		into(t, find(t, objs, "Deployment", "networking-calico"), d)
		args := d.Spec.Template.Spec.Containers[0].Args
		if !contains(args, "--disable-controllers=heartbeat") {
			t.Errorf("heartbeat off but args %v lack --disable-controllers=heartbeat", args)
		}
		for _, id := range ids(objs) {
			if strings.Contains(id, "heartbeat") {
				t.Errorf("heartbeat off but %s is rendered", id)
			}
		}
	})
	t.Run("own keys override derived ports and replicas", func(t *testing.T) {
		objs, err := renderChart(map[string]any{
			"controller":  map[string]any{"metricsPort": 9090, "healthPort": 9091, "replicas": 3},
			"usablePorts": []any{1, 2, 3, 4, 5},
		}, gardenerRelease)
		if err != nil {
			t.Fatal(err)
		}
		d := &appsv1.Deployment{}
		into(t, find(t, objs, "Deployment", "networking-calico"), d)
		args := d.Spec.Template.Spec.Containers[0].Args
		for _, want := range []string{"--metrics-bind-address=:9090", "--health-bind-address=:9091"} {
			if !contains(args, want) {
				t.Errorf("args %v lack %s", args, want)
			}
		}
		if *d.Spec.Replicas != 3 {
			t.Errorf("replicas = %d, want 3", *d.Spec.Replicas)
		}
	})
}
