package swapcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/cmd"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

const mrName = "extension-networking-calico-config"

// referenceManifest is what the reference extension deploys for an IPv4 shoot with nodes
// 10.250.0.0/16 and pods 100.96.0.0/11 (docs/reference-extension.md §2.4, §2.5, §2.7: the
// calico-config ConfigMap, the calico-node DaemonSet and the typha Deployment, reduced to the
// fields the reference documents), as the YAML stream of its ManagedResource secret key config.yaml.
// ipipMode is the value of CALICO_IPV4POOL_IPIP.
func referenceManifest(ipipMode string) string {
	return `---
apiVersion: v1
kind: ConfigMap
metadata:
  name: calico-config
  namespace: kube-system
data:
  typha_service_name: calico-typha
  calico_backend: bird
  veth_mtu: "0"
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: calico-node
  namespace: kube-system
  labels:
    k8s-app: calico-node
    gardener.cloud/role: system-component
    node.gardener.cloud/critical-component: "true"
  annotations:
    resources.gardener.cloud/preserve-resources: "true"
spec:
  revisionHistoryLimit: 2
  selector:
    matchLabels:
      k8s-app: calico-node
  updateStrategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 2
  template:
    metadata:
      labels:
        k8s-app: calico-node
    spec:
      hostNetwork: true
      serviceAccountName: calico-node
      priorityClassName: system-node-critical
      terminationGracePeriodSeconds: 0
      containers:
      - name: calico-node
        image: quay.io/calico/node:v3.31.6
        env:
        - name: USE_POD_CIDR
          value: "true"
        - name: DATASTORE_TYPE
          value: kubernetes
        - name: CLUSTER_TYPE
          value: k8s,bgp
        - name: IP
          value: autodetect
        - name: CALICO_IPV4POOL_IPIP
          value: ` + ipipMode + `
        - name: CALICO_IPV4POOL_CIDR
          value: 100.96.0.0/11
        - name: IP_AUTODETECTION_METHOD
          value: cidr=10.250.0.0/16
        - name: FELIX_IPINIPENABLED
          value: "true"
        resources:
          requests:
            cpu: 250m
            memory: 100Mi
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: calico-typha-deploy
  namespace: kube-system
  labels:
    k8s-app: calico-typha
spec:
  selector:
    matchLabels:
      k8s-app: calico-typha
  template:
    metadata:
      labels:
        k8s-app: calico-typha
    spec:
      hostNetwork: true
      serviceAccountName: calico-typha
      containers:
      - name: calico-typha
        image: quay.io/calico/typha:v3.31.6
        resources:
          requests:
            cpu: 200m
            memory: 100Mi
`
}

// seedShoot is one shoot of the test seed.
type seedShoot struct {
	config string // providerConfig body (YAML, without apiVersion/kind)
	// deployed is the ManagedResource secret data; nil for none.
	deployed map[string][]byte
	// providerStatus is the Network's status.providerStatus (JSON); "" for none.
	providerStatus string
	// kubernetes is the shoot's Kubernetes version; "" for the base shoot's.
	kubernetes string
}

// shootObject is the integration suites' base shoot.
func shootObject(name string) *gardencorev1beta1.Shoot { return testenv.BaseShoot(name) }

func providerConfig(t testing.TB, body string) *runtime.RawExtension {
	t.Helper()
	if body == "" {
		return nil
	}
	js, err := yaml.YAMLToJSON([]byte("apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\nkind: NetworkConfig\n" + body))
	if err != nil {
		t.Fatal(err)
	}
	return &runtime.RawExtension{Raw: js}
}

// create puts a shoot into the seed: namespace, Cluster, Network (with status), ManagedResource and
// its secret. It returns the control-plane namespace.
func create(t testing.TB, name string, s seedShoot) string {
	t.Helper()
	ctx := context.Background()
	ns := testenv.NewNamespace(t, cl, "shoot--swap--"+name+"-", nil)
	shoot := shootObject(name)
	if s.kubernetes != "" {
		shoot.Spec.Kubernetes.Version = s.kubernetes
	}
	createCluster(t, cl, ns, shoot)
	n := &extensionsv1alpha1.Network{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: extensionsv1alpha1.NetworkSpec{
			DefaultSpec: extensionsv1alpha1.DefaultSpec{Type: "calico", ProviderConfig: providerConfig(t, s.config)},
			PodCIDR:     "100.96.0.0/11", ServiceCIDR: "100.64.0.0/13",
			IPFamilies: []gardencorev1beta1.IPFamily{"IPv4"},
		},
	}
	if err := cl.Create(ctx, n); err != nil {
		t.Fatal(err)
	}
	if s.providerStatus != "" {
		n.Status.ProviderStatus = &runtime.RawExtension{Raw: []byte(s.providerStatus)}
		if err := cl.Status().Update(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	if s.deployed != nil {
		createDeployed(t, cl, ns, s.deployed)
	}
	return ns
}

// deployedRelease is the release calico-pilot deployed to the test shoots before this version (and the
// one statusV331 records): the catalogue's unrecorded release, which Networks without a record run.
const deployedRelease = "v3.31.6"

// pilotManifest is what calico-pilot deploys for a config on the test shoot (a Network it reconciled)
// at deployedRelease.
func pilotManifest(t testing.TB, name, config string) map[string][]byte {
	t.Helper()
	return pilotManifestAt(t, name, config, deployedRelease)
}

// pilotManifestAt is pilotManifest at a release of the catalogue.
func pilotManifestAt(t testing.TB, name, config, release string) map[string][]byte {
	t.Helper()
	enc, err := pipeline.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	r, ok := calicoversion.Default().Release(release)
	if !ok {
		t.Fatalf("no Calico release %s in the catalogue", release)
	}
	vector, err := imagevector.LoadVector(nil)
	if err != nil {
		t.Fatal(err)
	}
	images, err := imagevector.NewResolver(vector).ForShoot(shootObject(name).Spec.Kubernetes.Version, calicoversion.Steady(r))
	if err != nil {
		t.Fatal(err)
	}
	n := &extensionsv1alpha1.Network{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shoot--swap--" + name},
		Spec: extensionsv1alpha1.NetworkSpec{
			DefaultSpec: extensionsv1alpha1.DefaultSpec{Type: "calico", ProviderConfig: providerConfig(t, config)},
			PodCIDR:     "100.96.0.0/11", ServiceCIDR: "100.64.0.0/13", IPFamilies: []gardencorev1beta1.IPFamily{"IPv4"},
		},
	}
	cfg, errs := pipeline.ExistingNetworkConfig(n)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	res, ferrs, err := enc.Render(pipeline.Source{Shoot: shootObject(name), Network: n}, cfg, values.Settings{Images: images, Ratchet: true, Calico: calicoversion.Steady(r)})
	if err != nil || len(ferrs) > 0 {
		t.Fatal(err, ferrs)
	}
	return map[string][]byte{"config.yaml": res.Manifest.JSON()}
}

type report struct {
	Namespace string `json:"namespace"`
	Verdict   string `json:"verdict"`
	Errors    []string
	Findings  []struct {
		Kind  string `json:"kind"`
		Field string `json:"field"`
	} `json:"findings"`
	Compatibility string   `json:"compatibility"`
	Restarts      []string `json:"restarts"`
	Diff          *struct {
		Summary struct {
			Highest  string   `json:"highest"`
			Restarts []string `json:"restarts"`
		} `json:"summary"`
	} `json:"diff"`
}

func kubeconfigFile(t testing.TB) string {
	t.Helper()
	kc, err := controlCP.AdminKubeconfig("swap-check")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(p, kc, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSwapCheckSeed: a safe shoot (calico-pilot's own manifest deployed), a shoot that would fail,
// a shoot whose calico-node and typha restart (reference-shaped manifest), and a reference shoot
// with a contradiction the reference accepted and a field it ignored.
func TestSwapCheckSeed(t *testing.T) {
	safeConfig := "overlay:\n  enabled: true\n"
	nsSafe := create(t, "safe", seedShoot{config: safeConfig, deployed: pilotManifest(t, "safe", safeConfig),
		providerStatus: `{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkStatus","overlayEnabled":true,"backend":"bird","ipFamilies":["IPv4"],"compatibility":"Native"}`})
	referenceStatus := `{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkStatus"}`
	nsFail := create(t, "fail", seedShoot{config: "ipv6:\n  mode: Never\n", deployed: map[string][]byte{"config.yaml": []byte(referenceManifest("Always"))}, providerStatus: referenceStatus})
	nsRestart := create(t, "restart", seedShoot{config: "", deployed: map[string][]byte{"config.yaml": []byte(referenceManifest("Always"))}, providerStatus: referenceStatus})
	nsFindings := create(t, "findings", seedShoot{config: "overlay:\n  enabled: true\nipv4:\n  mode: Never\nipAutodetectionMethod: interface=eth0\n",
		deployed: map[string][]byte{"config.yaml": []byte(referenceManifest("Always"))}})

	kubeconfig := kubeconfigFile(t)
	var out, errOut bytes.Buffer
	code := cmd.Execute(context.Background(), []string{"swap-check", "--kubeconfig", kubeconfig, "-o", "json"}, strings.NewReader(""), &out, &errOut)
	if code != 1 {
		t.Fatalf("exit code %d, want 1 (some shoots fail or change); stderr: %s", code, errOut.String())
	}
	var reports []report
	if err := json.Unmarshal(out.Bytes(), &reports); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out.String())
	}
	byNS := map[string]report{}
	for _, r := range reports {
		byNS[r.Namespace] = r
	}

	if r := byNS[nsSafe]; r.Verdict != "safe" || r.Compatibility != "Native" || len(r.Restarts) != 0 {
		t.Errorf("safe shoot: %+v, want verdict safe, compatibility Native, no restarts", r)
	}
	if r := byNS[nsFail]; r.Verdict != "fails" || len(r.Errors) != 1 || !strings.Contains(r.Errors[0], "spec.providerConfig.ipv6") {
		t.Errorf("failing shoot: %+v, want verdict fails naming spec.providerConfig.ipv6", r)
	}
	r := byNS[nsRestart]
	if r.Verdict != "changes" || r.Compatibility != "Reference" {
		t.Errorf("restart shoot: verdict %s, compatibility %s; want changes, Reference", r.Verdict, r.Compatibility)
	}
	if diff := cmp.Diff([]string{"DaemonSet kube-system/calico-node", "Deployment kube-system/calico-typha-deploy"}, r.Restarts); diff != "" {
		t.Errorf("restart shoot restarts (-want +got):\n%s", diff)
	}
	if r.Diff == nil || r.Diff.Summary.Highest == "" {
		t.Errorf("restart shoot has no classified diff: %+v", r.Diff)
	}

	r = byNS[nsFindings]
	type finding struct{ Kind, Field string }
	var got []finding
	for _, f := range r.Findings {
		got = append(got, finding{f.Kind, f.Field})
	}
	want := []finding{{"Contradictory", "spec.providerConfig.ipv4.mode"}, {"Ignored", "spec.providerConfig.ipAutodetectionMethod"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings shoot (-want +got):\n%s", diff)
	}
	if r.Compatibility != "Reference" {
		t.Errorf("findings shoot compatibility %s, want Reference (ManagedResource without our status)", r.Compatibility)
	}

	// The text output names the same things for people.
	out.Reset()
	code = cmd.Execute(context.Background(), []string{"swap-check", "--kubeconfig", kubeconfig}, strings.NewReader(""), &out, &errOut)
	text := out.String()
	t.Logf("swap-check text output:\n%s", text)
	for _, wantLine := range []string{
		nsSafe + " (shoot garden-dev/safe): safe",
		nsFail + " (shoot garden-dev/fail): would fail to reconcile",
		nsRestart + " (shoot garden-dev/restart): reconciles, but the data plane changes",
		"  restarts: DaemonSet kube-system/calico-node, Deployment kube-system/calico-typha-deploy",
		// The named fix of Reference mode's calico-node template, with its reason (issue 20).
		"  fix ensurer-command: calico-node, backend bird or vxlan: the command and env of the network-unavailable-condition-ensurer sidecar (Calico v3.31",
		"  contradictory: spec.providerConfig.ipv4.mode \"Never\": contradicts spec.providerConfig.overlay.enabled: true",
	} {
		if !strings.Contains(text, wantLine) {
			t.Errorf("text output lacks %q:\n%s", wantLine, text)
		}
	}
	if code != 1 {
		t.Errorf("text run exit code %d, want 1", code)
	}
}

// createCluster creates the Cluster of control-plane namespace ns with shoot embedded, deleted with the test.
func createCluster(t testing.TB, cl client.Client, ns string, shoot *gardencorev1beta1.Shoot) {
	t.Helper()
	raw, err := json.Marshal(shoot)
	if err != nil {
		t.Fatal(err)
	}
	cluster := &extensionsv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: ns},
		Spec: extensionsv1alpha1.ClusterSpec{
			CloudProfile: runtime.RawExtension{Raw: []byte(`{"apiVersion":"core.gardener.cloud/v1beta1","kind":"CloudProfile"}`)},
			Shoot:        runtime.RawExtension{Raw: raw},
		},
	}
	if err := cl.Create(context.Background(), cluster); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Delete(context.Background(), cluster) })
}

// createDeployed stores data as the shoot's ManagedResource and its content secret, as a deployed
// extension left them.
func createDeployed(t testing.TB, cl client.Client, ns string, data map[string][]byte) {
	t.Helper()
	ctx := context.Background()
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "managedresource-" + mrName}, Data: data}
	if err := cl.Create(ctx, secret); err != nil {
		t.Fatal(err)
	}
	mr := &resourcesv1alpha1.ManagedResource{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: mrName},
		Spec:       resourcesv1alpha1.ManagedResourceSpec{SecretRefs: []corev1.LocalObjectReference{{Name: secret.Name}}, KeepObjects: ptr.To(false)},
	}
	if err := cl.Create(ctx, mr); err != nil {
		t.Fatal(err)
	}
}
