package deploy_test

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/loader"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/engine"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/calico-pilot/calico-pilot/internal/cmd"
)

const manageChartDir = "calico-pilot-manage"

// manageRelease is where the chart tests install; manifestRelease is the plain manifest's.
var (
	manageRelease   = release{name: "calico-pilot-manage", namespace: "calico-pilot-chart"}
	manifestRelease = release{name: "calico-pilot-manage", namespace: "calico-pilot"}
)

// renderManageChart renders the manage chart as `helm template` does (values schema enforced,
// strict templates), its CRD first.
func renderManageChart(values map[string]any, rel release) ([]rendered, error) {
	charter, err := loader.Load(manageChartDir)
	if err != nil {
		return nil, fmt.Errorf("loading chart: %w", err)
	}
	chrt, ok := charter.(*chartv2.Chart)
	if !ok {
		return nil, fmt.Errorf("%s is not a v2 chart", manageChartDir)
	}
	rv, err := util.ToRenderValuesWithSchemaValidation(chrt, values, common.ReleaseOptions{Name: rel.name, Namespace: rel.namespace, Revision: 1, IsInstall: true}, nil, false)
	if err != nil {
		return nil, fmt.Errorf("composing values: %w", err)
	}
	files, err := engine.Engine{Strict: true}.Render(chrt, rv)
	if err != nil {
		return nil, fmt.Errorf("rendering: %w", err)
	}
	var out []rendered
	for _, crd := range chrt.CRDObjects() {
		docs, err := splitDocs(crd.Filename, string(crd.File.Data))
		if err != nil {
			return nil, err
		}
		out = append(out, docs...)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !strings.HasSuffix(n, ".yaml") {
			continue
		}
		docs, err := splitDocs(n, files[n])
		if err != nil {
			return nil, err
		}
		out = append(out, docs...)
	}
	return out, nil
}

func splitDocs(source, content string) ([]rendered, error) {
	var out []rendered
	for i, doc := range strings.Split("\n"+content, "\n---") {
		if strings.TrimSpace(stripComments(doc)) == "" {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := yaml.UnmarshalStrict([]byte(doc), &u.Object); err != nil {
			return nil, fmt.Errorf("%s document %d is not YAML: %w", source, i, err)
		}
		out = append(out, rendered{source: source, obj: u})
	}
	return out, nil
}

// TestManageChartDefaultValues: the chart's objects, a hardened host-network Deployment whose args
// the manage command accepts, and a server-side dry run of everything against a real API server.
func TestManageChartDefaultValues(t *testing.T) {
	objs, err := renderManageChart(map[string]any{}, manageRelease)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"ClusterRole calico-pilot-manage", "ClusterRoleBinding calico-pilot-manage",
		"CustomResourceDefinition clusters.standalone.calico-pilot.dev",
		"Deployment calico-pilot-chart/calico-pilot-manage", "Role kube-system/calico-pilot-manage", "RoleBinding kube-system/calico-pilot-manage",
		"Service calico-pilot-chart/calico-pilot-manage-metrics", "ServiceAccount calico-pilot-chart/calico-pilot-manage",
	}
	if d := cmp.Diff(want, ids(objs)); d != "" {
		t.Errorf("objects (-want +got):\n%s", d)
	}
	var d appsv1.Deployment
	into(t, find(t, objs, "Deployment", "calico-pilot-manage"), &d)
	pod := d.Spec.Template.Spec
	c := pod.Containers[0]
	sc := c.SecurityContext
	switch {
	case !pod.HostNetwork:
		t.Error("the pods are not on the host's network: on a fresh cluster they would wait for the Calico they install")
	case pod.SecurityContext == nil || pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot || pod.SecurityContext.SeccompProfile == nil || pod.SecurityContext.SeccompProfile.Type != "RuntimeDefault":
		t.Errorf("pod security context %+v", pod.SecurityContext)
	case sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL":
		t.Errorf("container security context %+v", sc)
	case c.LivenessProbe == nil || c.ReadinessProbe == nil:
		t.Error("the container has no liveness or readiness probe")
	}
	// The args are the command's flags.
	if err := cmd.NewManageCommand(cmd.IO{}).ParseFlags(c.Args[1:]); err != nil || c.Args[0] != "manage" {
		t.Errorf("args %q: %v", c.Args, err)
	}
	dryRunApply(t, objs, manageRelease.namespace)
}

// TestManagePlainManifest: deploy/manage/manage.yaml is the chart's render into calico-pilot with the
// Namespace, and the API server accepts every object of it (server-side dry run).
func TestManagePlainManifest(t *testing.T) {
	data, err := os.ReadFile("manage/manage.yaml")
	if err != nil {
		t.Fatal(err)
	}
	objs, err := splitDocs("manage/manage.yaml", string(data))
	if err != nil {
		t.Fatal(err)
	}
	chart, err := renderManageChart(map[string]any{"namespace": map[string]any{"create": true}}, manifestRelease)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(ids(chart), ids(objs)); d != "" {
		t.Errorf("manage.yaml is not the chart's render (-chart +manifest):\n%s", d)
	}
	dryRunApply(t, objs, manifestRelease.namespace)
}

// TestManageChartRejectsBadValues: the values schema refuses unknown keys and values the command
// would refuse.
func TestManageChartRejectsBadValues(t *testing.T) {
	for name, values := range map[string]map[string]any{
		"unknown key":  {"replica": 2},
		"log level":    {"log": map[string]any{"level": "verbose"}},
		"interval":     {"interval": "five minutes"},
		"pull policy":  {"image": map[string]any{"repository": "r", "pullPolicy": "Sometimes"}},
		"metrics port": {"metricsPort": 80},
	} {
		if _, err := renderManageChart(values, manageRelease); err == nil {
			t.Errorf("%s: %v rendered", name, values)
		}
	}
}
