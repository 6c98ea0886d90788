package manage

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/loader"
	"helm.sh/helm/v4/pkg/engine"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	standalonev1alpha1 "github.com/calico-pilot/calico-pilot/api/standalone/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// chartRBAC renders the calico-pilot-manage chart with its defaults into namespace and returns its
// ServiceAccount and RBAC objects.
func chartRBAC(t *testing.T, namespace string) []*unstructured.Unstructured {
	t.Helper()
	chrt, err := loader.Load(filepath.Join(testenv.RepoRoot(), "deploy", "calico-pilot-manage"))
	if err != nil {
		t.Fatal(err)
	}
	rv, err := util.ToRenderValuesWithSchemaValidation(chrt, map[string]any{}, common.ReleaseOptions{Name: "calico-pilot-manage", Namespace: namespace, Revision: 1, IsInstall: true}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	files, err := engine.Engine{Strict: true}.Render(chrt, rv)
	if err != nil {
		t.Fatal(err)
	}
	var out []*unstructured.Unstructured
	for name, content := range files {
		if !strings.HasSuffix(name, "/rbac.yaml") {
			continue
		}
		for _, doc := range strings.Split(content, "\n---") {
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
				t.Fatal(err)
			}
			if len(u.Object) > 0 {
				out = append(out, u)
			}
		}
	}
	if len(out) != 5 {
		t.Fatalf("the chart's rbac.yaml has %d objects, want the ServiceAccount, ClusterRole, ClusterRoleBinding, Role and RoleBinding", len(out))
	}
	return out
}

// TestChartRBACIsEnough: with only the chart's RBAC (created from the chart's render on a fresh
// cluster), the controller, impersonating the chart's ServiceAccount, installs its CRD, installs
// Calico from the Cluster object and reports Available. A rule missing from the chart fails it with
// the API server's Forbidden in the status.
func TestChartRBACIsEnough(t *testing.T) {
	cl := newCluster(t)
	ctx := context.Background()
	const ns = "calico-pilot"
	if err := cl.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	for _, u := range chartRBAC(t, ns) {
		if err := cl.c.Create(ctx, u); err != nil {
			t.Fatalf("creating %s %s from the chart: %v", u.GetKind(), u.GetName(), err)
		}
	}
	cfg := rest.CopyConfig(cl.cp.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":calico-pilot-manage"}
	cl.startController(t, cfg)
	cl.createCluster(clusterFile)
	obj := cl.waitStatus("Available or Degraded", func(o *standalonev1alpha1.Cluster) bool {
		return available(o) || meta.IsStatusConditionTrue(o.Status.Conditions, standalonev1alpha1.ConditionDegraded)
	})
	if !available(obj) || obj.Status.Release == "" {
		t.Fatalf("with the chart's RBAC: release %q, conditions %+v", obj.Status.Release, obj.Status.Conditions)
	}
	var sa corev1.ServiceAccount
	if err := cl.c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "calico-node"}, &sa); err != nil {
		t.Errorf("calico-node's ServiceAccount: %v", err)
	}
}
