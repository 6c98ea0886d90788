package deploy_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/loader"
	"helm.sh/helm/v4/pkg/engine"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/calico-pilot/calico-pilot/internal/cmd"
)

// renderAdmissionChart renders deploy/calico-pilot-admission as gardener-operator does (schema enforced).
func renderAdmissionChart(t *testing.T, values map[string]any, rel release) ([]rendered, error) {
	t.Helper()
	chrt, err := loader.Load("calico-pilot-admission")
	if err != nil {
		t.Fatal(err)
	}
	rv, err := util.ToRenderValuesWithSchemaValidation(chrt, values, common.ReleaseOptions{Name: rel.name, Namespace: rel.namespace, IsInstall: true}, nil, false)
	if err != nil {
		return nil, err
	}
	files, err := engine.Engine{Strict: true}.Render(chrt, rv)
	if err != nil {
		return nil, err
	}
	var out []rendered
	for name, content := range files {
		if !strings.HasSuffix(name, ".yaml") {
			continue
		}
		for _, doc := range strings.Split("\n"+content, "\n---") {
			if strings.TrimSpace(stripComments(doc)) == "" {
				continue
			}
			u := &unstructured.Unstructured{}
			if err := yaml.UnmarshalStrict([]byte(doc), &u.Object); err != nil {
				t.Fatalf("%s: %v\n%s", name, err, doc)
			}
			out = append(out, rendered{source: name, obj: u})
		}
	}
	return out, nil
}

// The values gardener-operator injects (docs/gardener-integration.md §4.2) for the Extension
// networking-calico.
var (
	operatorRuntimeValues = map[string]any{"gardener": map[string]any{
		"runtimeCluster": map[string]any{"priorityClassName": "gardener-garden-system-400"},
		"virtualCluster": map[string]any{"enabled": true, "namespace": "extension-networking-calico"},
	}}
	operatorVirtualValues = map[string]any{"gardener": map[string]any{
		"virtualCluster": map[string]any{"enabled": true, "serviceAccount": map[string]any{"name": "extension-admission-networking-calico", "namespace": "kube-system"}},
	}}
)

func TestAdmissionChartRuntimePart(t *testing.T) {
	rel := release{name: "networking-calico", namespace: "garden"}
	objs, err := renderAdmissionChart(t, operatorRuntimeValues, rel)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Deployment garden/gardener-extension-admission-calico",
		"PodDisruptionBudget garden/gardener-extension-admission-calico",
		"Role garden/gardener-extension-admission-calico",
		"RoleBinding garden/gardener-extension-admission-calico",
		"Service garden/gardener-extension-admission-calico",
		"ServiceAccount garden/gardener-extension-admission-calico",
		"VerticalPodAutoscaler garden/gardener-extension-admission-calico",
	}
	if diff := cmp.Diff(want, ids(objs)); diff != "" {
		t.Errorf("runtime part objects (-want +got):\n%s", diff)
	}
	d := &appsv1.Deployment{}
	into(t, find(t, objs, "Deployment", "gardener-extension-admission-calico"), d)
	checkHardened(t, d)
	pod := d.Spec.Template.Spec
	if pod.PriorityClassName != "gardener-garden-system-400" {
		t.Errorf("priorityClassName = %q, want gardener-garden-system-400", pod.PriorityClassName)
	}
	if !containsEnv(pod.Containers[0].Env, corev1.EnvVar{Name: "SOURCE_CLUSTER", Value: "enabled"}) {
		t.Errorf("env %v lacks SOURCE_CLUSTER", pod.Containers[0].Env)
	}
	args := pod.Containers[0].Args
	for _, a := range []string{"--webhook-config-mode=url", "--webhook-config-url=gardener-extension-admission-calico.garden", "--webhook-config-owner-namespace=extension-networking-calico", "--webhook-config-namespace=garden"} {
		if !contains(args, a) {
			t.Errorf("args %v lack %s", args, a)
		}
	}
	// The args are flags `calico-pilot admission` knows and accepts.
	root := cmd.NewRootCommand(cmd.IO{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard})
	sub, rest, err := root.Find(args)
	if err != nil || sub.Name() != "admission" {
		t.Fatalf("args %v do not name the admission command: %v", args, err)
	}
	if err := sub.ParseFlags(rest); err != nil {
		t.Errorf("calico-pilot admission rejects the chart's args: %v", err)
	}
	dryRunApply(t, objs, rel.namespace)
}

func TestAdmissionChartVirtualPart(t *testing.T) {
	objs, err := renderAdmissionChart(t, operatorVirtualValues, release{name: "networking-calico", namespace: "extension-networking-calico"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ClusterRole gardener-extension-admission-calico", "ClusterRoleBinding gardener-extension-admission-calico"}, ids(objs)); diff != "" {
		t.Errorf("virtual part objects (-want +got):\n%s", diff)
	}
	b := &rbacv1.ClusterRoleBinding{}
	into(t, find(t, objs, "ClusterRoleBinding", "gardener-extension-admission-calico"), b)
	if diff := cmp.Diff([]rbacv1.Subject{{Kind: "ServiceAccount", Name: "extension-admission-networking-calico", Namespace: "kube-system"}}, b.Subjects); diff != "" {
		t.Errorf("subjects (-want +got):\n%s", diff)
	}
	dryRunApply(t, objs, "extension-networking-calico")
}

func TestAdmissionChartRejects(t *testing.T) {
	for _, tt := range []struct {
		name   string
		values map[string]any
		want   string
	}{
		{"no part selected", map[string]any{}, "gardener.runtimeCluster (runtime part) or gardener.virtualCluster.serviceAccount"},
		{"misspelt key", map[string]any{"replica": 1, "gardener": operatorRuntimeValues["gardener"]}, "replica"},
		{"misspelt reference key", map[string]any{"replicaCnt": 1, "gardener": operatorRuntimeValues["gardener"]}, "replicaCnt"},
		{"misspelt reference vpa key", map[string]any{"vpa": map[string]any{"updatePolicy": map[string]any{"updateMod": "Auto"}}, "gardener": operatorRuntimeValues["gardener"]}, "updateMod"},
		{"bad port", map[string]any{"webhookConfig": map[string]any{"serverPort": "http"}, "gardener": operatorRuntimeValues["gardener"]}, "/webhookConfig/serverPort"},
		{"bad duration", map[string]any{"webhookConfig": map[string]any{"caValidity": "30d"}, "gardener": operatorRuntimeValues["gardener"]}, "/webhookConfig/caValidity"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := renderAdmissionChart(t, tt.values, release{name: "networking-calico", namespace: "garden"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestExampleExtension renders both charts with the values of examples/extension.yaml, as gardener-operator
// passes them (extension values to the seed chart with gardenlet's tree, admission values to both parts).
func TestExampleExtension(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "examples", "extension.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var ext struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Spec       struct {
			Deployment struct {
				Extension struct {
					Values map[string]any `json:"values"`
				} `json:"extension"`
				Admission struct {
					Values map[string]any `json:"values"`
				} `json:"admission"`
			} `json:"deployment"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &ext); err != nil {
		t.Fatal(err)
	}
	if ext.APIVersion != "operator.gardener.cloud/v1alpha1" || ext.Kind != "Extension" {
		t.Fatalf("examples/extension.yaml is a %s %s", ext.APIVersion, ext.Kind)
	}
	seedValues := gardenletMerge(ext.Spec.Deployment.Extension.Values, readValues(t, "gardenlet-values.yaml"))
	objs, err := renderChart(seedValues, release{name: "networking-calico", namespace: "extension-networking-calico-ex"})
	if err != nil {
		t.Fatalf("seed chart with the example's extension values: %v", err)
	}
	find(t, objs, "ConfigMap", "networking-calico-imagevector-overwrite")
	for _, injected := range []map[string]any{operatorRuntimeValues, operatorVirtualValues} {
		if _, err := renderAdmissionChart(t, gardenletMerge(ext.Spec.Deployment.Admission.Values, injected), release{name: "networking-calico", namespace: "garden"}); err != nil {
			t.Errorf("admission chart with the example's admission values: %v", err)
		}
	}
}

// TestAdmissionChartReferenceValues (issue 20 item 3): the reference admission chart's values
// (testdata/reference-admission-values.yaml) render with what gardener-operator injects, for both parts,
// and each key has its effect: replicaCount, the three ports (args, container ports, the Service's
// numeric target port and network policy annotation), the VPA policy and update mode, the Service's
// topology-aware routing; kubeconfig, given, becomes a Secret the server reads.
func TestAdmissionChartReferenceValues(t *testing.T) {
	reference := readValues(t, "reference-admission-values.yaml")
	rel := release{name: "networking-calico", namespace: "garden-reference-values"}
	objs, err := renderAdmissionChart(t, gardenletMerge(reference, operatorRuntimeValues), rel)
	if err != nil {
		t.Fatal(err)
	}
	d := &appsv1.Deployment{}
	into(t, find(t, objs, "Deployment", "gardener-extension-admission-calico"), d)
	if got := *d.Spec.Replicas; got != 3 {
		t.Errorf("replicas = %d, want 3 (replicaCount)", got)
	}
	c := d.Spec.Template.Spec.Containers[0]
	for _, a := range []string{"--webhook-config-server-port=10260", "--metrics-bind-address=:8090", "--health-bind-address=:8091"} {
		if !contains(c.Args, a) {
			t.Errorf("args %v lack %s", c.Args, a)
		}
	}
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if diff := cmp.Diff(map[string]int32{"webhook": 10260, "metrics": 8090, "health": 8091}, ports); diff != "" {
		t.Errorf("container ports (-want +got):\n%s", diff)
	}
	svc := &corev1.Service{}
	into(t, find(t, objs, "Service", "gardener-extension-admission-calico"), svc)
	if got := svc.Spec.Ports[0].TargetPort.IntValue(); got != 10260 {
		t.Errorf("Service targetPort = %v, want 10260", svc.Spec.Ports[0].TargetPort)
	}
	if got := svc.Annotations["networking.resources.gardener.cloud/from-all-webhook-targets-allowed-ports"]; got != `[{"port":10260,"protocol":"TCP"}]` {
		t.Errorf("allowed ports annotation = %s", got)
	}
	if svc.Spec.TrafficDistribution == nil {
		t.Errorf("service.topologyAwareRouting.enabled set no trafficDistribution")
	}
	vpa := find(t, objs, "VerticalPodAutoscaler", "gardener-extension-admission-calico")
	if got, _, _ := unstructured.NestedString(vpa.Object, "spec", "updatePolicy", "updateMode"); got != "Auto" {
		t.Errorf("VPA updateMode = %q, want Auto (vpa.updatePolicy.updateMode)", got)
	}
	policies, _, _ := unstructured.NestedSlice(vpa.Object, "spec", "resourcePolicy", "containerPolicies")
	wantPolicy := map[string]any{
		"containerName": "*", "controlledValues": "RequestsOnly",
		"minAllowed": map[string]any{"memory": "64Mi"}, "maxAllowed": map[string]any{"cpu": "1", "memory": "1Gi"},
	}
	if diff := cmp.Diff([]any{wantPolicy}, policies); diff != "" {
		t.Errorf("VPA container policies (-want +got):\n%s", diff)
	}
	if u := findOrNil(objs, "Secret", "gardener-extension-admission-calico-kubeconfig"); u != nil {
		t.Errorf("kubeconfig unset rendered a kubeconfig Secret")
	}
	dryRunApply(t, objs, rel.namespace)

	// The virtual garden part with the same values.
	if _, err := renderAdmissionChart(t, gardenletMerge(reference, operatorVirtualValues), release{name: "networking-calico", namespace: "extension-networking-calico"}); err != nil {
		t.Errorf("virtual part: %v", err)
	}

	// kubeconfig given: a Secret, mounted, named by --kubeconfig.
	withKubeconfig := gardenletMerge(reference, operatorRuntimeValues)
	withKubeconfig["kubeconfig"] = "apiVersion: v1\nkind: Config\n"
	objs, err = renderAdmissionChart(t, withKubeconfig, rel)
	if err != nil {
		t.Fatal(err)
	}
	if findOrNil(objs, "Secret", "gardener-extension-admission-calico-kubeconfig") == nil {
		t.Fatal("kubeconfig set rendered no Secret")
	}
	into(t, find(t, objs, "Deployment", "gardener-extension-admission-calico"), d)
	if !contains(d.Spec.Template.Spec.Containers[0].Args, "--kubeconfig=/etc/calico-pilot/admission-kubeconfig/kubeconfig") {
		t.Errorf("args %v lack --kubeconfig", d.Spec.Template.Spec.Containers[0].Args)
	}
}

// findOrNil is the rendered object of that kind and name, or nil.
func findOrNil(objs []rendered, kind, name string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.obj.GetKind() == kind && o.obj.GetName() == name {
			return o.obj
		}
	}
	return nil
}
