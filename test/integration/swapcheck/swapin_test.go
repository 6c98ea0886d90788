package swapcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/cmd"
	"github.com/calico-pilot/calico-pilot/internal/controller/network"
	"github.com/calico-pilot/calico-pilot/internal/features"
	"github.com/calico-pilot/calico-pilot/internal/mrdata"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/plan"
	"github.com/calico-pilot/calico-pilot/internal/referencekeep"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// The swap-in roll count: for every swap-in scenario (rendertest.RollScenarios, the
// reference's matrix), the restarts swap-check predicts on a real seed are compared with the
// restarts that happen when the shoot's resource manager applies what the controller stores over
// what the reference deployed.
//
// The seed holds each shoot as the reference left it: the Cluster, the Network with the reference's
// provider status (apiVersion and kind only) and its ManagedResource, whose secret holds the
// reference's manifest built from the facts (rendertest.ReferenceManifest). The reference's typha
// container says imagePullPolicy: IfNotPresent, as measured on the reference's chart (the
// facts do not state the pull policy); calico-pilot leaves it to the API server.
//
// The controller's result is its decide and render step (network.Renderer, with the compatibility
// mode, what the swap-in keeps and Calico release the actuator derives from the same seed objects:
// pipeline.Compatibility, referencekeep.FromDeployed and the release decision). A shoot stand-in (a namespace of the same API server) holds the
// reference's calico-node and typha as the resource manager created them; the controller's objects
// are applied over them as the resource manager updates (docs/gardener-integration.md §2.3: the desired
// spec, the live metadata with labels and annotations merged, the live cpu and memory of each
// container with preserve-resources, the live replicas when the manifest has none). A workload
// restarts when its stored pod template changes.

// referenceStatus is the provider status the reference writes.
const referenceStatus = `{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkStatus"}`

// networkOf is the Network the gardenlet writes for a shoot.
func networkOf(t *testing.T, name, ns string, shoot *gardencorev1beta1.Shoot) *extensionsv1alpha1.Network {
	t.Helper()
	n := &extensionsv1alpha1.Network{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: extensionsv1alpha1.NetworkSpec{
			DefaultSpec: extensionsv1alpha1.DefaultSpec{Type: "calico"},
			PodCIDR:     values.FactsFromShoot(shoot, ns).PodCIDR,
			ServiceCIDR: ptr.Deref(shoot.Spec.Networking.Services, ""),
			IPFamilies:  shoot.Spec.Networking.IPFamilies,
		},
	}
	if len(n.Spec.IPFamilies) == 0 {
		n.Spec.IPFamilies = []gardencorev1beta1.IPFamily{"IPv4"}
	}
	if pc := shoot.Spec.Networking.ProviderConfig; pc != nil {
		n.Spec.ProviderConfig = &runtime.RawExtension{Raw: pc.Raw}
	}
	return n
}

// swapInShoot is one scenario in the seed.
type swapInShoot struct {
	name     string
	ns       string
	shoot    *gardencorev1beta1.Shoot
	network  *extensionsv1alpha1.Network
	deployed map[string][]byte
	gates    map[string]bool
}

// createSwapInShoot puts a scenario's shoot into the seed as the reference left it.
func createSwapInShoot(t *testing.T, sc rendertest.Scenario) swapInShoot {
	t.Helper()
	ctx := context.Background()
	ref, err := rendertest.RenderCompat(sc, nil, calicov1alpha1.CompatibilityReference)
	if err != nil {
		t.Fatal(err)
	}
	deployed, err := rendertest.ReferenceManifest(&ref.Options, ref.Config, func(_ *appsv1.DaemonSet, typha *appsv1.Deployment) {
		if typha != nil {
			typha.Spec.Template.Spec.Containers[0].ImagePullPolicy = corev1.PullIfNotPresent
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	ns := testenv.NewNamespace(t, cl, "shoot--swapin--", nil)
	shoot := rendertest.ShootOf(sc)
	shoot.TypeMeta = metav1.TypeMeta{APIVersion: "core.gardener.cloud/v1beta1", Kind: "Shoot"}
	shoot.Name, shoot.Namespace = sc.Name, "garden-dev"
	if pc := shoot.Spec.Networking.ProviderConfig; pc != nil {
		// The garden stores it as JSON.
		if pc.Raw, err = utilyaml.ToJSON(pc.Raw); err != nil {
			t.Fatal(err)
		}
	}
	createCluster(t, cl, ns, shoot)
	n := networkOf(t, sc.Name, ns, shoot)
	if err := cl.Create(ctx, n); err != nil {
		t.Fatal(err)
	}
	n.Status.ProviderStatus = &runtime.RawExtension{Raw: []byte(referenceStatus)}
	if err := cl.Status().Update(ctx, n); err != nil {
		t.Fatal(err)
	}
	createDeployed(t, cl, ns, deployed)
	return swapInShoot{name: sc.Name, ns: ns, shoot: shoot, network: n, deployed: deployed,
		gates: map[string]bool{string(features.NonPrivilegedCalicoNode): sc.NonPrivileged}}
}

// controllerManifest is what the controller stores for the shoot on its first reconcile.
func controllerManifest(t *testing.T, s swapInShoot) map[string][]byte {
	t.Helper()
	mode, deployed, err := pipeline.Compatibility(s.network.Status.ProviderStatus.Raw, func() (bool, error) { return true, nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if mode != calicov1alpha1.CompatibilityReference || deployed.Previous != nil {
		t.Fatalf("%s: compatibility %s (previous status %v), want Reference on the first reconcile", s.name, mode, deployed.Previous)
	}
	taken, err := referencekeep.FromDeployed(s.deployed)
	if err != nil {
		t.Fatal(err)
	}
	cfg, errs := pipeline.ExistingNetworkConfig(s.network)
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	gates, err := features.FromMap(s.gates)
	if err != nil {
		t.Fatal(err)
	}
	// The release the controller gives the shoot: its one decision (calicoversion.Decide), for a shoot
	// that runs the reference's Calico and records none.
	choice, err := plan.ChooseCalico("", cfg, nil, s.network, s.shoot.Spec.Kubernetes.Version, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := network.NewRenderer(nil)
	if err != nil {
		t.Fatal(err)
	}
	// As the actuator builds them: the operator's settings plus what it gathered for the Network.
	settings := pipeline.OperatorSettings(nil, gates)
	settings.Compatibility, settings.TakenOver, settings.Calico = mode, taken, choice.Deployment
	rendered, err := r.Render(context.Background(), network.Inputs{Network: s.network, Shoot: s.shoot, Config: cfg, Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := mrdata.Plain(rendered.Data)
	if err != nil {
		t.Fatal(err)
	}
	return plain
}

// workloads are the calico-node DaemonSet and typha Deployment of a manifest, by "Kind name".
func workloads(t *testing.T, data map[string][]byte) map[string]*unstructured.Unstructured {
	t.Helper()
	out := map[string]*unstructured.Unstructured{}
	for _, stream := range data {
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(stream), 4096)
		for {
			u := &unstructured.Unstructured{}
			if err := dec.Decode(&u.Object); err != nil {
				break
			}
			if (u.GetKind() == "DaemonSet" && u.GetName() == "calico-node") || (u.GetKind() == "Deployment" && u.GetName() == "calico-typha-deploy") {
				out[u.GetKind()+" "+u.GetName()] = u
			}
		}
	}
	return out
}

// grmApply applies desired in namespace ns as the shoot's resource manager does and returns the
// stored object.
func grmApply(t *testing.T, ns string, desired *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	ctx := context.Background()
	obj := desired.DeepCopy()
	obj.SetNamespace(ns)
	// The resource manager's label, on the object and its pod template.
	labels := obj.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[resourcesv1alpha1.LabelManagedBy] = "gardener"
	obj.SetLabels(labels)
	if err := unstructured.SetNestedField(obj.Object, "gardener", "spec", "template", "metadata", "labels", resourcesv1alpha1.LabelManagedBy); err != nil {
		t.Fatal(err)
	}
	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(obj.GroupVersionKind())
	err := cl.Get(ctx, client.ObjectKeyFromObject(obj), live)
	switch {
	case apierrors.IsNotFound(err):
		if err := cl.Create(ctx, obj); err != nil {
			t.Fatalf("creating %s %s: %v", obj.GetKind(), obj.GetName(), err)
		}
		return obj
	case err != nil:
		t.Fatal(err)
	}
	// The live metadata, with labels and annotations merged (desired wins).
	meta := live.DeepCopy()
	for k, v := range obj.GetLabels() {
		labels := meta.GetLabels()
		labels[k] = v
		meta.SetLabels(labels)
	}
	annotations := meta.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	for k, v := range obj.GetAnnotations() {
		annotations[k] = v
	}
	meta.SetAnnotations(annotations)
	obj.Object["metadata"] = meta.Object["metadata"]
	if _, ok := obj.Object["spec"].(map[string]any)["replicas"]; !ok && obj.GetKind() == "Deployment" {
		if r, ok, _ := unstructured.NestedFieldCopy(live.Object, "spec", "replicas"); ok {
			_ = unstructured.SetNestedField(obj.Object, r, "spec", "replicas")
		}
	}
	if obj.GetAnnotations()["resources.gardener.cloud/preserve-resources"] == "true" {
		preserveResources(t, live, obj)
	}
	if err := cl.Update(ctx, obj); err != nil {
		t.Fatalf("updating %s %s: %v", obj.GetKind(), obj.GetName(), err)
	}
	return obj
}

// preserveResources keeps the live cpu and memory requests and limits of each container.
func preserveResources(t *testing.T, live, obj *unstructured.Unstructured) {
	t.Helper()
	liveCs, _, _ := unstructured.NestedSlice(live.Object, "spec", "template", "spec", "containers")
	cs, _, _ := unstructured.NestedSlice(obj.Object, "spec", "template", "spec", "containers")
	for i, c := range cs {
		cm := c.(map[string]any)
		for _, lc := range liveCs {
			lcm := lc.(map[string]any)
			if lcm["name"] != cm["name"] {
				continue
			}
			for _, kind := range []string{"requests", "limits"} {
				for _, res := range []string{"cpu", "memory"} {
					v, ok, _ := unstructured.NestedString(lcm, "resources", kind, res)
					if ok {
						_ = unstructured.SetNestedField(cm, v, "resources", kind, res)
					} else {
						unstructured.RemoveNestedField(cm, "resources", kind, res)
					}
				}
			}
		}
		cs[i] = cm
	}
	if err := unstructured.SetNestedSlice(obj.Object, cs, "spec", "template", "spec", "containers"); err != nil {
		t.Fatal(err)
	}
}

// restarted applies the reference's workloads, then the controller's over them, and returns the
// workloads whose stored pod template changed ("DaemonSet kube-system/calico-node").
func restarted(t *testing.T, s swapInShoot, stored map[string][]byte) []string {
	t.Helper()
	shootNS := testenv.NewNamespace(t, cl, "kube-system-"+s.name+"-", nil)
	before := map[string]any{}
	for key, u := range workloads(t, s.deployed) {
		before[key] = grmApply(t, shootNS, u).Object["spec"].(map[string]any)["template"]
	}
	var out []string
	for key, u := range workloads(t, stored) {
		after := grmApply(t, shootNS, u).Object["spec"].(map[string]any)["template"]
		if b, ok := before[key]; !ok || !equality.Semantic.DeepEqual(b, after) {
			kind, name, _ := strings.Cut(key, " ")
			out = append(out, kind+" kube-system/"+name)
		}
	}
	sort.Strings(out)
	return out
}

// TestSwapInPredictionMatchesResult: swap-check's predicted calico-node and typha restarts equal
// the restarts the controller's stored manifest causes, for every swap-in scenario.
func TestSwapInPredictionMatchesResult(t *testing.T) {
	var shoots []swapInShoot
	for _, name := range rendertest.RollScenarios {
		sc, err := rendertest.ScenarioNamed(name)
		if err != nil {
			t.Fatal(err)
		}
		shoots = append(shoots, createSwapInShoot(t, sc))
	}

	// swap-check over the seed, once with the controller's default gates and once with
	// NonPrivilegedCalicoNode for the scenarios that set it.
	kubeconfig := kubeconfigFile(t)
	predicted := map[string][]string{}
	for _, nonPrivileged := range []bool{false, true} {
		args := []string{"swap-check", "--kubeconfig", kubeconfig, "-o", "json"}
		if nonPrivileged {
			config := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(config, []byte("apiVersion: calico.networking.extensions.config.gardener.cloud/v1alpha1\nkind: ControllerConfiguration\nfeatureGates:\n  NonPrivilegedCalicoNode: true\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			args = append(args, "--config", config)
		}
		var out, errOut bytes.Buffer
		if code := cmd.Execute(context.Background(), args, strings.NewReader(""), &out, &errOut); code == 2 {
			t.Fatalf("swap-check: exit 2: %s", errOut.String())
		}
		var reports []report
		if err := json.Unmarshal(out.Bytes(), &reports); err != nil {
			t.Fatalf("swap-check output is not JSON: %v\n%s", err, out.String())
		}
		for _, s := range shoots {
			if s.gates[string(features.NonPrivilegedCalicoNode)] != nonPrivileged {
				continue
			}
			found := false
			for _, r := range reports {
				if r.Namespace != s.ns {
					continue
				}
				found = true
				if r.Verdict == "fails" || r.Compatibility != "Reference" {
					t.Errorf("%s: swap-check verdict %s (%v), compatibility %s; want a Reference-mode reconcile", s.name, r.Verdict, r.Errors, r.Compatibility)
				}
				predicted[s.name] = append([]string{}, r.Restarts...)
				sort.Strings(predicted[s.name])
			}
			if !found {
				t.Errorf("%s: swap-check reported nothing for namespace %s", s.name, s.ns)
			}
		}
	}

	nodeRolls, typhaRolls, predictedNode, predictedTypha := 0, 0, 0, 0
	var lines []string
	for _, s := range shoots {
		got := restarted(t, s, controllerManifest(t, s))
		if diff := cmp.Diff(got, predicted[s.name], cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: swap-check predicts other restarts than the controller's manifest causes (-caused +predicted):\n%s", s.name, diff)
		}
		for _, w := range got {
			if strings.HasPrefix(w, "DaemonSet") {
				nodeRolls++
			} else {
				typhaRolls++
			}
		}
		for _, w := range predicted[s.name] {
			if strings.HasPrefix(w, "DaemonSet") {
				predictedNode++
			} else {
				predictedTypha++
			}
		}
		lines = append(lines, fmt.Sprintf("%-36s caused: %-70s predicted: %s", s.name, strings.Join(got, ", "), strings.Join(predicted[s.name], ", ")))
	}
	t.Logf("%d swap-in scenarios: calico-node rolls in %d (predicted %d), typha in %d (predicted %d)\n%s",
		len(shoots), nodeRolls, predictedNode, typhaRolls, predictedTypha, strings.Join(lines, "\n"))
}
