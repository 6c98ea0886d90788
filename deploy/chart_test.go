package deploy_test

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	componentbaseconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/cmd"
	"github.com/calico-pilot/calico-pilot/internal/decode"
	"github.com/calico-pilot/calico-pilot/internal/features"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
	"github.com/calico-pilot/calico-pilot/internal/validation"
)

// controlPlane is the suite's kube-apiserver + etcd, started once in TestMain.
var controlPlane *testenv.ControlPlane

func TestMain(m *testing.M) {
	// The VPA CRD the chart's VerticalPodAutoscalers need, from the VPA module this project depends on.
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/autoscaler/vertical-pod-autoscaler").Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "locating the VPA module for its CRD: %v\n", err)
		os.Exit(1)
	}
	vpaCRD := filepath.Join(strings.TrimSpace(string(dir)), "deploy", "vpa-v1-crd-gen.yaml")
	os.Exit(testenv.RunSuite(m, testenv.Options{CRDDirectoryPaths: []string{vpaCRD, filepath.Join("testdata", "crds")}}, func(cp *testenv.ControlPlane) error {
		controlPlane = cp
		return nil
	}))
}

const chartDir = "calico-pilot"

// release is where a render goes; gardenlet uses the ControllerRegistration name as release name and
// extension-<ControllerInstallation> as namespace.
type release struct {
	name      string
	namespace string
}

var gardenerRelease = release{name: "networking-calico", namespace: "extension-networking-calico-7xk2p"}

// rendered is one rendered object and the template file it came from.
type rendered struct {
	source string
	obj    *unstructured.Unstructured
}

// renderChart renders the chart the way gardenlet and `helm template` do: chart defaults coalesced with
// values, the values schema enforced, strict templates (a reference to a missing value is an error).
func renderChart(values map[string]any, rel release) ([]rendered, error) {
	return renderChartWith(engine.Engine{Strict: true}, values, rel, nil)
}

// renderChartAgainst renders as `helm install/upgrade` does: with a client, so `lookup` sees the cluster.
func renderChartAgainst(cfg *rest.Config, values map[string]any, rel release) ([]rendered, error) {
	e := engine.New(cfg)
	e.Strict = true
	return renderChartWith(e, values, rel, nil)
}

// renderChartWith renders with the engine e; caps nil means Helm's default capabilities.
func renderChartWith(e engine.Engine, values map[string]any, rel release, caps *common.Capabilities) ([]rendered, error) {
	chrt, err := loader.Load(chartDir)
	if err != nil {
		return nil, fmt.Errorf("loading chart: %w", err)
	}
	if values == nil {
		values = map[string]any{}
	}
	renderValues, err := util.ToRenderValuesWithSchemaValidation(chrt, values,
		common.ReleaseOptions{Name: rel.name, Namespace: rel.namespace, Revision: 1, IsInstall: true}, caps, false)
	if err != nil {
		return nil, fmt.Errorf("composing values: %w", err)
	}
	files, err := e.Render(chrt, renderValues)
	if err != nil {
		return nil, fmt.Errorf("rendering: %w", err)
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []rendered
	for _, name := range names {
		if !strings.HasSuffix(name, ".yaml") {
			continue
		}
		for i, doc := range strings.Split("\n"+files[name], "\n---") {
			if strings.TrimSpace(stripComments(doc)) == "" {
				continue
			}
			u := &unstructured.Unstructured{}
			if err := yaml.UnmarshalStrict([]byte(doc), &u.Object); err != nil {
				return nil, fmt.Errorf("%s document %d is not YAML: %w\n%s", name, i, err, doc)
			}
			out = append(out, rendered{source: name, obj: u})
		}
	}
	return out, nil
}

func stripComments(doc string) string {
	var b strings.Builder
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			b.WriteString(line)
			b.WriteString("\n")
		}
	}
	return b.String()
}

// objectID is how the tests name a rendered object.
func objectID(u *unstructured.Unstructured) string {
	if u.GetNamespace() == "" {
		return u.GetKind() + " " + u.GetName()
	}
	return u.GetKind() + " " + u.GetNamespace() + "/" + u.GetName()
}

func ids(objs []rendered) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, objectID(o.obj))
	}
	sort.Strings(out)
	return out
}

func find(t *testing.T, objs []rendered, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.obj.GetKind() == kind && o.obj.GetName() == name {
			return o.obj
		}
	}
	t.Fatalf("rendered chart has no %s %s; it has %v", kind, name, ids(objs))
	return nil
}

// into converts a rendered object into a typed one, failing on fields the type does not know.
func into(t *testing.T, u *unstructured.Unstructured, obj any) {
	t.Helper()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, obj, true); err != nil {
		t.Fatalf("%s does not convert to %T: %v", objectID(u), obj, err)
	}
}

// dryRunApply applies every object with a server-side dry run and strict field validation, so the real
// API server checks schema, defaults and validation without persisting anything.
func dryRunApply(t *testing.T, objs []rendered, namespace string) {
	t.Helper()
	ctx := context.Background()
	c, err := client.New(controlPlane.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c = client.WithFieldValidation(c, metav1.FieldValidationStrict)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatalf("creating namespace %s: %v", namespace, err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), ns) })
	// Namespaced roles generated from markers may live in other namespaces; they must exist too.
	created := map[string]bool{namespace: true}
	for _, o := range objs {
		other := o.obj.GetNamespace()
		if other == "" || created[other] {
			continue
		}
		created[other] = true
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: other}}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("creating namespace %s: %v", other, err)
		}
	}
	for _, o := range objs {
		err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(o.obj.DeepCopy()),
			client.FieldOwner("calico-pilot-chart-test"), client.ForceOwnership, client.DryRunAll)
		if err != nil {
			t.Errorf("server-side dry-run apply of %s (from %s) failed: %v", objectID(o.obj), o.source, err)
		}
	}
}

// withAdmission are values that turn on the in-chart admission webhook (off by default: in a Gardener
// landscape the admission runs in the garden, deploy/calico-pilot-admission).
func withAdmission() map[string]any {
	return map[string]any{"admission": map[string]any{"enabled": true}}
}

func TestChartDefaultValues(t *testing.T) {
	objs, err := renderChart(nil, gardenerRelease)
	if err != nil {
		t.Fatal(err)
	}
	ns := gardenerRelease.namespace
	want := []string{
		// The reference chart's fluent-bit parser and filter for calico-node logs in the seed (issue 20).
		"ClusterFilter calico-node",
		"ClusterParser calico-node-parser",
		"ClusterRoleBinding calico-pilot:extension-networking-calico-7xk2p:networking-calico",
		"ConfigMap " + ns + "/networking-calico-config",
		"Deployment " + ns + "/networking-calico",
		"PodDisruptionBudget " + ns + "/networking-calico",
		"Role " + ns + "/networking-calico-heartbeat",
		"Role " + ns + "/networking-calico-leader-election",
		"RoleBinding " + ns + "/networking-calico-heartbeat",
		"RoleBinding " + ns + "/networking-calico-leader-election",
		"Service " + ns + "/networking-calico-metrics",
		"ServiceAccount " + ns + "/networking-calico",
		// VPA is on by default, as in the reference chart.
		"VerticalPodAutoscaler " + ns + "/networking-calico",
	}
	// The roles come from the markers of the Go packages (files/rbac/role.yaml, generated): one ClusterRole,
	// plus a Role and RoleBinding for each namespaced marker group.
	generated := generatedRoles(t)
	for _, role := range generated {
		name := "calico-pilot:extension-networking-calico-7xk2p:networking-calico"
		if role.Kind == "ClusterRole" {
			want = append(want, "ClusterRole "+name)
			continue
		}
		want = append(want, "Role "+role.Namespace+"/"+name, "RoleBinding "+role.Namespace+"/"+name)
	}
	sort.Strings(want)
	if diff := cmp.Diff(want, ids(objs)); diff != "" {
		t.Errorf("rendered objects (-want +got):\n%s", diff)
	}

	t.Run("config", func(t *testing.T) {
		cm := &corev1.ConfigMap{}
		into(t, find(t, objs, "ConfigMap", "networking-calico-config"), cm)
		wantConfig := `apiVersion: calico.networking.extensions.config.gardener.cloud/v1alpha1
clientConnection:
  acceptContentTypes: application/json
  burst: 130
  contentType: application/json
  qps: 100
kind: ControllerConfiguration
`
		if diff := cmp.Diff(wantConfig, cm.Data["config.yaml"]); diff != "" {
			t.Errorf("config.yaml (-want +got):\n%s", diff)
		}
		want := &configv1alpha1.ControllerConfiguration{
			TypeMeta: metav1.TypeMeta{APIVersion: "calico.networking.extensions.config.gardener.cloud/v1alpha1", Kind: "ControllerConfiguration"},
			ClientConnection: &componentbaseconfigv1alpha1.ClientConnectionConfiguration{
				AcceptContentTypes: "application/json",
				ContentType:        "application/json",
				QPS:                100,
				Burst:              130,
			},
		}
		if diff := cmp.Diff(want, decodeConfigStrict(t, cm.Data["config.yaml"])); diff != "" {
			t.Errorf("decoded ControllerConfiguration (-want +got):\n%s", diff)
		}
	})

	t.Run("controller", func(t *testing.T) {
		d := &appsv1.Deployment{}
		into(t, find(t, objs, "Deployment", "networking-calico"), d)
		checkHardened(t, d)
		if got := *d.Spec.Replicas; got != 2 {
			t.Errorf("controller replicas = %d, want 2", got)
		}
		if got := d.Labels["high-availability-config.resources.gardener.cloud/type"]; got != "controller" {
			t.Errorf("controller HA type label = %q, want controller", got)
		}
		wantArgs := []string{
			"controller",
			"--config-file=/etc/calico-pilot/config/config.yaml",
			"--max-concurrent-reconciles=5",
			"--ignore-operation-annotation=false",
			"--leader-election=true",
			"--leader-election-id=networking-calico-leader-election",
			"--leader-election-namespace=extension-networking-calico-7xk2p",
			"--metrics-bind-address=:8080",
			"--health-bind-address=:8081",
			"--heartbeat-namespace=extension-networking-calico-7xk2p",
			"--heartbeat-renew-interval-seconds=30",
		}
		if diff := cmp.Diff(wantArgs, d.Spec.Template.Spec.Containers[0].Args); diff != "" {
			t.Errorf("controller args (-want +got):\n%s", diff)
		}
		if got, want := d.Spec.Template.Spec.Containers[0].Image, "ghcr.io/calico-pilot/calico-pilot:v0.1.0"; got != want {
			t.Errorf("controller image = %q, want %q", got, want)
		}
		checkSeedConventions(t, objs, d, "8080")
	})

	t.Run("rbac is the generated one", func(t *testing.T) {
		checkGeneratedRBAC(t, objs, generated, ns)
	})

	t.Run("server-side dry run", func(t *testing.T) {
		dryRunApply(t, objs, ns)
	})
}

// TestChartWithAdmission renders the in-chart admission webhook (a single cluster that holds Shoots).
func TestChartWithAdmission(t *testing.T) {
	rel := release{name: "networking-calico", namespace: "extension-networking-calico-adm"}
	objs, err := renderChart(withAdmission(), rel)
	if err != nil {
		t.Fatal(err)
	}
	ns := rel.namespace
	for _, id := range []string{
		"Deployment " + ns + "/networking-calico-admission",
		"PodDisruptionBudget " + ns + "/networking-calico-admission",
		"Secret " + ns + "/networking-calico-admission-tls",
		"Service " + ns + "/networking-calico-admission",
		"ServiceAccount " + ns + "/networking-calico-admission",
		"ValidatingWebhookConfiguration calico-pilot-extension-networking-calico-adm-networking-calico",
		"VerticalPodAutoscaler " + ns + "/networking-calico-admission",
	} {
		if !contains(ids(objs), id) {
			t.Errorf("admission enabled but %s is not rendered", id)
		}
	}

	t.Run("admission", func(t *testing.T) {
		d := &appsv1.Deployment{}
		into(t, find(t, objs, "Deployment", "networking-calico-admission"), d)
		checkHardened(t, d)
		if got := d.Labels["high-availability-config.resources.gardener.cloud/type"]; got != "server" {
			t.Errorf("admission HA type label = %q, want server", got)
		}
		wantArgs := []string{
			"admission",
			"--cert-dir=/etc/calico-pilot/admission-tls",
			"--port=10250",
			"--metrics-bind-address=:8080",
			"--health-probe-bind-address=:8081",
		}
		if diff := cmp.Diff(wantArgs, d.Spec.Template.Spec.Containers[0].Args); diff != "" {
			t.Errorf("admission args (-want +got):\n%s", diff)
		}
		// The generated certificate must be signed by the CA the API server is told to trust, for the
		// name the API server dials (the Service's DNS name).
		secret := &corev1.Secret{}
		into(t, find(t, objs, "Secret", "networking-calico-admission-tls"), secret)
		vwc := find(t, objs, "ValidatingWebhookConfiguration", "calico-pilot-extension-networking-calico-adm-networking-calico")
		webhooks, _, _ := unstructured.NestedSlice(vwc.Object, "webhooks")
		if len(webhooks) != 1 {
			t.Fatalf("ValidatingWebhookConfiguration has %d webhooks, want 1", len(webhooks))
		}
		// The path `calico-pilot admission` serves (test/integration/webhook registers the same).
		gotService, _, _ := unstructured.NestedMap(webhooks[0].(map[string]any), "clientConfig", "service")
		wantService := map[string]any{"name": "networking-calico-admission", "namespace": ns, "path": "/webhooks/validate-shoot", "port": float64(443)}
		if diff := cmp.Diff(wantService, gotService); diff != "" {
			t.Errorf("webhook clientConfig.service (-want +got):\n%s", diff)
		}
		caB64, _, _ := unstructured.NestedString(webhooks[0].(map[string]any), "clientConfig", "caBundle")
		verifyServingCert(t, caB64, secret.Data["tls.crt"], "networking-calico-admission.extension-networking-calico-adm.svc")
	})

	t.Run("server-side dry run", func(t *testing.T) {
		dryRunApply(t, objs, ns)
	})
}

// checkGeneratedRBAC asserts that the rendered roles are the ones generated from the code's markers.
func checkGeneratedRBAC(t *testing.T, objs []rendered, generated []generatedRole, ns string) {
	t.Helper()
	for _, role := range generated {
		kind, namespace := role.Kind, role.Namespace
		for _, o := range objs {
			if o.obj.GetKind() != kind || o.obj.GetNamespace() != namespace || !strings.HasPrefix(o.obj.GetName(), "calico-pilot:") {
				continue
			}
			got := &rbacv1.ClusterRole{}
			into(t, o.obj, got)
			if diff := cmp.Diff(role.Rules, got.Rules); diff != "" {
				t.Errorf("%s rules differ from files/rbac/role.yaml (-generated +rendered):\n%s", objectID(o.obj), diff)
			}
		}
	}
	binding := &rbacv1.ClusterRoleBinding{}
	into(t, find(t, objs, "ClusterRoleBinding", "calico-pilot:"+ns+":networking-calico"), binding)
	wantSubjects := []rbacv1.Subject{{Kind: "ServiceAccount", Name: "networking-calico", Namespace: ns}}
	if diff := cmp.Diff(wantSubjects, binding.Subjects); diff != "" {
		t.Errorf("ClusterRoleBinding subjects (-want +got):\n%s", diff)
	}
}

// generatedRole is a role controller-gen wrote into files/rbac/role.yaml.
type generatedRole struct {
	Kind      string
	Namespace string
	Rules     []rbacv1.PolicyRule
}

func generatedRoles(t *testing.T) []generatedRole {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(chartDir, "files", "rbac", "role.yaml"))
	if err != nil {
		t.Fatalf("generated RBAC: %v (run make generate)", err)
	}
	var out []generatedRole
	for _, doc := range strings.Split(string(data), "\n---") {
		var role struct {
			Kind     string              `json:"kind"`
			Metadata metav1.ObjectMeta   `json:"metadata"`
			Rules    []rbacv1.PolicyRule `json:"rules"`
		}
		if err := yaml.Unmarshal([]byte(doc), &role); err != nil {
			t.Fatalf("files/rbac/role.yaml: %v", err)
		}
		if role.Kind != "" {
			out = append(out, generatedRole{Kind: role.Kind, Namespace: role.Metadata.Namespace, Rules: role.Rules})
		}
	}
	return out
}

// checkHardened asserts what the issue requires of both Deployments: non-root, read-only root
// filesystem, resource requests, liveness and readiness probes.
func checkHardened(t *testing.T, d *appsv1.Deployment) {
	t.Helper()
	pod := d.Spec.Template.Spec
	if pod.SecurityContext == nil || pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot {
		t.Errorf("%s: pod securityContext.runAsNonRoot is not true", d.Name)
	}
	if pod.SecurityContext == nil || pod.SecurityContext.RunAsUser == nil || *pod.SecurityContext.RunAsUser != 65532 {
		t.Errorf("%s: pod securityContext.runAsUser is not 65532", d.Name)
	}
	for _, c := range pod.Containers {
		sc := c.SecurityContext
		if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			t.Errorf("%s/%s: readOnlyRootFilesystem is not true", d.Name, c.Name)
		}
		if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			t.Errorf("%s/%s: allowPrivilegeEscalation is not false", d.Name, c.Name)
		}
		if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
			t.Errorf("%s/%s: cpu and memory requests must be set, got %v", d.Name, c.Name, c.Resources.Requests)
		}
		if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet == nil || c.LivenessProbe.HTTPGet.Path != "/healthz" {
			t.Errorf("%s/%s: liveness probe is not an HTTP GET of /healthz: %+v", d.Name, c.Name, c.LivenessProbe)
		}
		if c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
			t.Errorf("%s/%s: readiness probe is not an HTTP GET of /readyz: %+v", d.Name, c.Name, c.ReadinessProbe)
		}
	}
}

func verifyServingCert(t *testing.T, caB64 string, certPEM []byte, dnsName string) {
	t.Helper()
	caPEM, err := decodeBase64(caB64)
	if err != nil {
		t.Fatalf("caBundle is not base64: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatalf("caBundle holds no PEM certificate:\n%s", caPEM)
	}
	block, _ := pem.Decode(certPEM)
	if block == nil {
		t.Fatalf("tls.crt is not PEM:\n%s", certPEM)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatalf("tls.crt: %v", err)
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, DNSName: dnsName}); err != nil {
		t.Errorf("serving certificate does not verify for %s against the caBundle: %v", dnsName, err)
	}
}

// TestChartGardenerControllerDeployment renders the chart with the values of examples/ (the
// ControllerDeployment in the shape of the operator guide, including its `chart` key inside values and the
// `gardener` tree gardenlet merges on top) and with other non-default values.
func TestChartGardenerControllerDeployment(t *testing.T) {
	exampleValues := controllerDeploymentValues(t)
	// gardenlet deep-merges its own tree on top of the user values (docs/gardener-integration.md §3.2).
	exampleValues["gardener"] = map[string]any{
		"version": "v1.140.0",
		"seed":    map[string]any{"name": "aws-eu1", "provider": "aws", "region": "eu-west-1"},
		"gardenlet": map[string]any{
			"featureGates": map[string]any{"DoNotCopyBackupCredentials": true},
		},
	}

	rel := release{name: "networking-calico", namespace: "extension-networking-calico-example"}
	objs, err := renderChart(exampleValues, rel)
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{}
	into(t, find(t, objs, "ConfigMap", "networking-calico-config"), cm)
	wantConfig := `apiVersion: calico.networking.extensions.config.gardener.cloud/v1alpha1
clientConnection:
  acceptContentTypes: application/json
  burst: 130
  contentType: application/json
  qps: 100
featureGates:
  NonPrivilegedCalicoNode: true
  SeamlessOverlaySwitch: true
kind: ControllerConfiguration
kubeAPIServerGlobalNetworkSet:
  enabled: true
`
	if diff := cmp.Diff(wantConfig, cm.Data["config.yaml"]); diff != "" {
		t.Errorf("config.yaml from the example ControllerDeployment (-want +got):\n%s", diff)
	}
	enabled := true
	want := &configv1alpha1.ControllerConfiguration{
		TypeMeta: metav1.TypeMeta{APIVersion: "calico.networking.extensions.config.gardener.cloud/v1alpha1", Kind: "ControllerConfiguration"},
		ClientConnection: &componentbaseconfigv1alpha1.ClientConnectionConfiguration{
			AcceptContentTypes: "application/json",
			ContentType:        "application/json",
			QPS:                100,
			Burst:              130,
		},
		FeatureGates:                  map[string]bool{"NonPrivilegedCalicoNode": true, "SeamlessOverlaySwitch": true},
		KubeAPIServerGlobalNetworkSet: &configv1alpha1.KubeAPIServerGlobalNetworkSet{Enabled: &enabled},
	}
	if diff := cmp.Diff(want, decodeConfigStrict(t, cm.Data["config.yaml"])); diff != "" {
		t.Errorf("decoded ControllerConfiguration (-want +got):\n%s", diff)
	}
	dryRunApply(t, objs, rel.namespace)
}

// controllerDeploymentValues reads helm.values of the ControllerDeployment in examples/.
func controllerDeploymentValues(t *testing.T) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "examples", "controller-registration.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range strings.Split(string(data), "\n---") {
		var obj struct {
			Kind string `json:"kind"`
			Helm struct {
				Values map[string]any `json:"values"`
			} `json:"helm"`
		}
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatalf("examples/controller-registration.yaml: %v", err)
		}
		if obj.Kind == "ControllerDeployment" {
			if obj.Helm.Values == nil {
				t.Fatal("examples/controller-registration.yaml: ControllerDeployment has no helm.values")
			}
			return obj.Helm.Values
		}
	}
	t.Fatal("examples/controller-registration.yaml has no ControllerDeployment")
	return nil
}

// TestChartOperatorGuideControllerDeployments renders the chart with the values of every
// ControllerDeployment in the operator guide (seed 002), exactly as written there (including its `chart`
// key inside values), and checks that the feature gates reach the ControllerConfiguration.
func TestChartOperatorGuideControllerDeployments(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "shared", "seeds", "002_1d2c71323e447737.txt"))
	if os.IsNotExist(err) {
		t.Skip("../shared is absent: the operator guide (seeds/002_1d2c71323e447737.txt) is not here to test against")
	}
	if err != nil {
		t.Fatal(err)
	}
	// The guide's manifests start at "apiVersion: core.gardener.cloud/v1beta1" and end at a blank line.
	var manifests []string
	for _, block := range strings.Split(string(data), "\n\n") {
		if strings.HasPrefix(block, "apiVersion: core.gardener.cloud/v1beta1\nkind: ControllerDeployment") {
			manifests = append(manifests, block)
		}
	}
	if len(manifests) != 2 {
		t.Fatalf("found %d ControllerDeployments in the operator guide, want 2 (NonPrivilegedCalicoNode, SeamlessOverlaySwitch)", len(manifests))
	}
	for i, manifest := range manifests {
		var cd struct {
			metav1.TypeMeta `json:",inline"`
			Metadata        metav1.ObjectMeta `json:"metadata"`
			Type            string            `json:"type"`
			ProviderConfig  struct {
				Values map[string]any `json:"values"`
			} `json:"providerConfig"`
		}
		if err := yaml.UnmarshalStrict([]byte(manifest), &cd); err != nil {
			t.Fatalf("ControllerDeployment %d of the guide: %v\n%s", i+1, err, manifest)
		}
		if cd.Type != "helm" {
			t.Fatalf("ControllerDeployment %d of the guide has type %q, want helm", i+1, cd.Type)
		}
		objs, err := renderChart(cd.ProviderConfig.Values, gardenerRelease)
		if err != nil {
			t.Fatalf("ControllerDeployment %d of the guide: %v", i+1, err)
		}
		cm := &corev1.ConfigMap{}
		into(t, find(t, objs, "ConfigMap", "networking-calico-config"), cm)
		cfg := decodeConfigStrict(t, cm.Data["config.yaml"])
		gates, _, _ := unstructured.NestedMap(cd.ProviderConfig.Values, "config", "featureGates")
		want := map[string]bool{}
		for name, v := range gates {
			want[name] = v.(bool)
		}
		if diff := cmp.Diff(want, cfg.FeatureGates); diff != "" {
			t.Errorf("ControllerDeployment %d of the guide: feature gates in the ControllerConfiguration (-guide +config):\n%s", i+1, diff)
		}
	}
}

func TestChartNonDefaultValues(t *testing.T) {
	tls := testTLS(t)
	values := map[string]any{
		"image": map[string]any{"repository": "registry.example/calico-pilot", "tag": "v9.9.9"},
		"config": map[string]any{
			"featureGates":                  map[string]any{"SeamlessOverlaySwitch": false},
			"kubeAPIServerGlobalNetworkSet": map[string]any{"enabled": false},
			"compatibility":                 map[string]any{"honourIgnoredFields": true},
			"calico": map[string]any{"defaultVersion": "v3.31", "rollout": map[string]any{
				"name": "to-v3.32", "targetVersion": "v3.32",
				"waves": []any{map[string]any{"name": "canary", "percent": 10, "minSoak": "1h"}, map[string]any{"name": "all", "percent": 100}},
			}},
		},
		"controller": map[string]any{
			"replicas":                3,
			"maxConcurrentReconciles": 20,
			"leaderElection":          map[string]any{"enabled": false},
			"priorityClassName":       "gardener-system-900",
		},
		"vpa": map[string]any{"enabled": true, "updateMode": "InPlaceOrRecreate", "minAllowed": map[string]any{"cpu": "10m", "memory": "32Mi"}},
		"admission": map[string]any{
			"enabled":        true,
			"failurePolicy":  "Ignore",
			"objectSelector": nil,
			"tls":            map[string]any{"crt": tls.crt, "key": tls.key, "caBundle": tls.ca},
		},
	}
	rel := release{name: "calico", namespace: "calico-pilot-system"}
	objs, err := renderChart(values, rel)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids(objs) {
		if strings.Contains(id, "leader-election") {
			t.Errorf("leader election is off but the chart renders %s", id)
		}
	}
	d := &appsv1.Deployment{}
	into(t, find(t, objs, "Deployment", "calico"), d)
	c := d.Spec.Template.Spec.Containers[0]
	if got, want := c.Image, "registry.example/calico-pilot:v9.9.9"; got != want {
		t.Errorf("image = %q, want %q", got, want)
	}
	for _, want := range []string{"--leader-election=false", "--max-concurrent-reconciles=20"} {
		if !contains(c.Args, want) {
			t.Errorf("controller args %v lack %s", c.Args, want)
		}
	}
	if got := d.Spec.Template.Spec.PriorityClassName; got != "gardener-system-900" {
		t.Errorf("priorityClassName = %q, want gardener-system-900", got)
	}
	cm := &corev1.ConfigMap{}
	into(t, find(t, objs, "ConfigMap", "calico-config"), cm)
	for _, want := range []string{"SeamlessOverlaySwitch: false", "kubeAPIServerGlobalNetworkSet:\n  enabled: false", "compatibility:\n  honourIgnoredFields: true"} {
		if !strings.Contains(cm.Data["config.yaml"], want) {
			t.Errorf("config.yaml lacks %q:\n%s", want, cm.Data["config.yaml"])
		}
	}
	// The rollout reaches the controller as written, and the controller may keep its state.
	if cfg := decodeConfigStrict(t, cm.Data["config.yaml"]); cfg.Calico == nil || cfg.Calico.Rollout == nil ||
		cfg.Calico.Rollout.TargetVersion != "v3.32" || len(cfg.Calico.Rollout.Waves) != 2 || *cfg.Calico.DefaultVersion != "v3.31" {
		t.Errorf("calico in the ControllerConfiguration: %+v", cfg.Calico)
	}
	role := find(t, objs, "Role", "calico-rollout")
	rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
	if len(rules) != 2 || !strings.Contains(fmt.Sprint(rules[1]), "calico-pilot-rollout") {
		t.Errorf("rollout Role rules %v, want create configmaps and get/update on calico-pilot-rollout", rules)
	}
	for _, target := range []string{"calico", "calico-admission"} {
		vpa := find(t, objs, "VerticalPodAutoscaler", target)
		gotTarget, _, _ := unstructured.NestedStringMap(vpa.Object, "spec", "targetRef")
		if diff := cmp.Diff(map[string]string{"apiVersion": "apps/v1", "kind": "Deployment", "name": target}, gotTarget); diff != "" {
			t.Errorf("VPA %s targetRef (-want +got):\n%s", target, diff)
		}
		if mode, _, _ := unstructured.NestedString(vpa.Object, "spec", "updatePolicy", "updateMode"); mode != "InPlaceOrRecreate" {
			t.Errorf("VPA %s updateMode = %q, want InPlaceOrRecreate", target, mode)
		}
	}
	vwc := find(t, objs, "ValidatingWebhookConfiguration", "calico-pilot-calico-pilot-system-calico")
	webhooks, _, _ := unstructured.NestedSlice(vwc.Object, "webhooks")
	hook := webhooks[0].(map[string]any)
	if got := hook["failurePolicy"]; got != "Ignore" {
		t.Errorf("failurePolicy = %v, want Ignore", got)
	}
	if _, ok := hook["objectSelector"]; ok {
		t.Errorf("objectSelector was set to null in values but is rendered: %v", hook["objectSelector"])
	}
	caB64, _, _ := unstructured.NestedString(hook, "clientConfig", "caBundle")
	caPEM, _ := decodeBase64(caB64)
	if !bytes.Equal(caPEM, []byte(tls.ca)) {
		t.Errorf("caBundle is not the given CA")
	}

	// Given the certificate, the output is deterministic: same values, same bytes.
	again, err := renderChart(values, rel)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(objs, again, cmp.AllowUnexported(rendered{})); diff != "" {
		t.Errorf("two renders of the same values differ:\n%s", diff)
	}
	dryRunApply(t, objs, rel.namespace)
}

// TestChartKeepsItsGeneratedCertificate installs the generated serving certificate for real, renders the
// chart again against the cluster (as helm upgrade does) and expects the same certificate and CA, so an
// upgrade does not roll the webhook's certificate.
func TestChartKeepsItsGeneratedCertificate(t *testing.T) {
	rel := release{name: "networking-calico", namespace: "extension-networking-calico-upgrade"}
	first, err := renderChartAgainst(controlPlane.Config, withAdmission(), rel)
	if err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{}
	into(t, find(t, first, "Secret", "networking-calico-admission-tls"), secret)

	ctx := context.Background()
	c, err := client.New(controlPlane.Config, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: rel.namespace}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), ns) })
	if err := c.Create(ctx, secret); err != nil {
		t.Fatalf("installing the generated Secret: %v", err)
	}

	second, err := renderChartAgainst(controlPlane.Config, withAdmission(), rel)
	if err != nil {
		t.Fatal(err)
	}
	again := &corev1.Secret{}
	into(t, find(t, second, "Secret", "networking-calico-admission-tls"), again)
	if diff := cmp.Diff(secret.Data, again.Data); diff != "" {
		t.Errorf("the upgrade render changed the certificate (-installed +rendered):\n%s", diff)
	}
	vwc := find(t, second, "ValidatingWebhookConfiguration", "calico-pilot-extension-networking-calico-upgrade-networking-calico")
	webhooks, _, _ := unstructured.NestedSlice(vwc.Object, "webhooks")
	caB64, _, _ := unstructured.NestedString(webhooks[0].(map[string]any), "clientConfig", "caBundle")
	verifyServingCert(t, caB64, again.Data["tls.crt"], "networking-calico-admission.extension-networking-calico-upgrade.svc")
}

func TestChartAdmissionDisabled(t *testing.T) {
	objs, err := renderChart(map[string]any{"admission": map[string]any{"enabled": false}}, gardenerRelease)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids(objs) {
		if strings.Contains(id, "admission") || strings.HasPrefix(id, "ValidatingWebhookConfiguration") {
			t.Errorf("admission is disabled but the chart renders %s", id)
		}
	}
}

func TestChartRejectsBadValues(t *testing.T) {
	tests := []struct {
		name    string
		values  map[string]any
		wantErr []string // substrings of the error, naming the value and what is accepted
	}{
		{
			name:    "feature gate that is not a bool",
			values:  map[string]any{"config": map[string]any{"featureGates": map[string]any{"SeamlessOverlaySwitch": "yes"}}},
			wantErr: []string{"/config/featureGates/SeamlessOverlaySwitch", "boolean"},
		},
		{
			name:    "feature gate the controller does not know",
			values:  map[string]any{"config": map[string]any{"featureGates": map[string]any{"SeamlessOverlaySwitsh": true}}},
			wantErr: []string{"/config/featureGates", "SeamlessOverlaySwitsh"},
		},
		{
			name:    "misspelt top-level value",
			values:  map[string]any{"contoller": map[string]any{"replicas": 1}},
			wantErr: []string{"contoller"},
		},
		{
			name:    "misspelt nested value",
			values:  map[string]any{"controller": map[string]any{"leaderElect": false}},
			wantErr: []string{"/controller", "leaderElect"},
		},
		{
			name:    "kubeAPIServerGlobalNetworkSet.enabled that is not a bool",
			values:  map[string]any{"config": map[string]any{"kubeAPIServerGlobalNetworkSet": map[string]any{"enabled": "on"}}},
			wantErr: []string{"/config/kubeAPIServerGlobalNetworkSet/enabled"},
		},
		{
			name:    "certificate without key and CA",
			values:  map[string]any{"admission": map[string]any{"enabled": true, "tls": map[string]any{"crt": "x"}}},
			wantErr: []string{"admission.tls.crt, admission.tls.key and admission.tls.caBundle must be given together"},
		},
		{
			name:    "misspelt reference key",
			values:  map[string]any{"replicaCont": 1},
			wantErr: []string{"replicaCont"},
		},
		{
			name:    "misspelt nested reference key",
			values:  map[string]any{"controllers": map[string]any{"concurentSyncs": 3}},
			wantErr: []string{"/controllers", "concurentSyncs"},
		},
		{
			name:    "misspelt VPA update policy",
			values:  map[string]any{"vpa": map[string]any{"updatePolicy": map[string]any{"updatemode": "Off"}}},
			wantErr: []string{"/vpa/updatePolicy", "updatemode"},
		},
		{
			name:    "misspelt heartbeat switch",
			values:  map[string]any{"controller": map[string]any{"heartbeat": map[string]any{"enable": false}}},
			wantErr: []string{"/controller/heartbeat", "enable"},
		},
		{
			name:    "heartbeat interval zero",
			values:  map[string]any{"controllers": map[string]any{"heartbeat": map[string]any{"renewIntervalSeconds": 0}}},
			wantErr: []string{"/controllers/heartbeat/renewIntervalSeconds"},
		},
		{
			name:    "metricsPort template that yields no port",
			values:  map[string]any{"metricsPort": "{{ .Release.Name }}"},
			wantErr: []string{`metricsPort must be a port number (or a template yielding one), got "networking-calico"`},
		},
		{
			name:    "too few usablePorts",
			values:  map[string]any{"usablePorts": []any{8080}},
			wantErr: []string{"/usablePorts"},
		},
		{
			name:    "image vector overwrite that is not an image vector",
			values:  map[string]any{"imageVectorOverwrite": "calico-node: quay.io/calico/node\n"},
			wantErr: []string{"imageVectorOverwrite must be an image vector"},
		},
		{
			name:    "unsupported failure policy",
			values:  map[string]any{"admission": map[string]any{"failurePolicy": "Retry"}},
			wantErr: []string{"/admission/failurePolicy", "Fail", "Ignore"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := renderChart(tt.values, gardenerRelease)
			if err == nil {
				t.Fatalf("rendering succeeded, want an error containing %q", tt.wantErr)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}
}

// decodeConfigStrict decodes the shipped config the way the controller does (internal/decode, strict:
// a field the ControllerConfiguration type does not have fails) and validates it (every feature gate
// must be one the controller knows).
func decodeConfigStrict(t *testing.T, data string) *configv1alpha1.ControllerConfiguration {
	t.Helper()
	cfg, errs := decode.ControllerConfiguration([]byte(data))
	if len(errs) > 0 {
		t.Fatalf("config.yaml does not decode strictly into ControllerConfiguration: %v\n%s", errs.ToAggregate(), data)
	}
	if errs := validation.ValidateControllerConfiguration(cfg); len(errs) > 0 {
		t.Fatalf("config.yaml is not a valid ControllerConfiguration: %v\n%s", errs.ToAggregate(), data)
	}
	return cfg
}

// TestChartArgsAreTheCommandsFlags parses the container args of both Deployments with the real
// calico-pilot command tree, so a renamed or removed flag fails here instead of in a crash-looping pod.
func TestChartArgsAreTheCommandsFlags(t *testing.T) {
	objs, err := renderChart(withAdmission(), gardenerRelease)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"networking-calico", "networking-calico-admission"} {
		d := &appsv1.Deployment{}
		into(t, find(t, objs, "Deployment", name), d)
		args := d.Spec.Template.Spec.Containers[0].Args
		root := cmd.NewRootCommand(cmd.IO{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard})
		sub, rest, err := root.Find(args)
		if err != nil || sub == root {
			t.Errorf("%s: args %q do not name a calico-pilot subcommand: %v", name, args, err)
			continue
		}
		if err := sub.ParseFlags(rest); err != nil {
			t.Errorf("%s: calico-pilot %s rejects the chart's args %q: %v", name, sub.Name(), rest, err)
		}
		if extra := sub.Flags().Args(); len(extra) > 0 {
			t.Errorf("%s: args %q are not flags of calico-pilot %s", name, extra, sub.Name())
		}
	}
}

// TestSchemaFeatureGatesAreTheControllers keeps the feature gates the values schema accepts equal to the
// gates the controller knows, so the chart rejects exactly the gate names the controller would.
func TestSchemaFeatureGatesAreTheControllers(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(chartDir, "values.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties struct {
			Config struct {
				Properties struct {
					FeatureGates struct {
						Properties map[string]any `json:"properties"`
					} `json:"featureGates"`
				} `json:"properties"`
			} `json:"config"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatalf("values.schema.json: %v", err)
	}
	var inSchema []string
	for name := range schema.Properties.Config.Properties.FeatureGates.Properties {
		inSchema = append(inSchema, name)
	}
	sort.Strings(inSchema)
	if diff := cmp.Diff(features.Names(), inSchema); diff != "" {
		t.Errorf("values.schema.json config.featureGates (-controller +schema):\n%s", diff)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
