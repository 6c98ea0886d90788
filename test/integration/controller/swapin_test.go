package controller

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/controller/network"
	"github.com/calico-pilot/calico-pilot/internal/mrdata"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// TestSwapInKeepsReferenceTemplate: a Network the reference deployed is reconciled by calico-pilot
// in Reference mode without a gratuitous calico-node roll. The reference's manifest has calico-config
// with the content calico-pilot renders, written with other whitespace, and a calico-node whose
// checksum annotation and log-mtu-issues script calico-pilot cannot derive. calico-pilot renders both
// as they are, keeps them in its provider status for the next reconciles (the reference's manifest is
// gone by then), and uses its own checksum once calico-config changes.
func TestSwapInKeepsReferenceTemplate(t *testing.T) {
	ctx := context.Background()
	e := newTestEnv(t, nil)
	config := "overlay:\n  enabled: true\n"

	// calico-config as calico-pilot renders it for this shoot in Reference mode.
	n := &extensionsv1alpha1.Network{
		ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: networkName},
		Spec: extensionsv1alpha1.NetworkSpec{
			DefaultSpec: extensionsv1alpha1.DefaultSpec{Type: "calico", ProviderConfig: providerConfig(config)},
			PodCIDR:     "100.96.0.0/11", ServiceCIDR: "100.64.0.0/13", IPFamilies: []gardencorev1beta1.IPFamily{"IPv4"},
		},
	}
	cfg, errs := pipeline.ExistingNetworkConfig(n)
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	r, err := network.NewRenderer(nil)
	if err != nil {
		t.Fatal(err)
	}
	// A shoot swapped in from the reference runs the release unrecorded shoots run (v3.31.6).
	rendered, err := r.Render(ctx, network.Inputs{Network: n, Shoot: baseShoot(), Config: cfg, Settings: values.Settings{
		Compatibility: calicov1alpha1.CompatibilityReference, Calico: calicoversion.Steady(calicoversion.Default().Unrecorded().Release)}})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := mrdata.Plain(rendered.Data)
	if err != nil {
		t.Fatal(err)
	}
	var cm *corev1.ConfigMap
	for _, line := range strings.Split(string(plain[network.ManagedResourceDataKey]), "\n") {
		if strings.Contains(line, `"kind":"ConfigMap"`) && strings.Contains(line, `"name":"calico-config"`) {
			cm = &corev1.ConfigMap{}
			if err := yaml.Unmarshal([]byte(line), cm); err != nil {
				t.Fatal(err)
			}
		}
	}
	if cm == nil {
		t.Fatal("no calico-config rendered")
	}
	cm.Data["cni_network_config"] = strings.ReplaceAll(cm.Data["cni_network_config"], "\n  ", "\n    ")

	// The reference's leftovers: its ManagedResource and a provider status of apiVersion and kind.
	ds := &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: "calico-node", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"checksum/configmap-calico": "the-reference's-checksum"}},
			Spec: corev1.PodSpec{
				InitContainers: []corev1.Container{{Name: "log-mtu-issues", Command: []string{"/bin/sh", "-c", "# the reference's script\n"}}},
				Containers:     []corev1.Container{{Name: "calico-node", Env: []corev1.EnvVar{{Name: "FELIX_IPINIPENABLED", Value: "true"}}}},
			},
		}},
	}
	var manifest []byte
	for _, obj := range []any{cm, ds} {
		y, err := yaml.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		manifest = append(append(manifest, "---\n"...), y...)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: "managedresource-extension-networking-calico-config"}, Data: map[string][]byte{"config.yaml": manifest}}
	if err := e.c.Create(ctx, secret); err != nil {
		t.Fatal(err)
	}
	mr := &resourcesv1alpha1.ManagedResource{
		ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: mrName, Labels: map[string]string{"origin": "extension-networking-calico"}},
		Spec:       resourcesv1alpha1.ManagedResourceSpec{SecretRefs: []corev1.LocalObjectReference{{Name: secret.Name}}, KeepObjects: ptr.To(false)},
	}
	if err := e.c.Create(ctx, mr); err != nil {
		t.Fatal(err)
	}
	e.createNetwork(providerConfig(config))
	e.patchStatus(func(n *extensionsv1alpha1.Network) {
		n.Status.ProviderStatus = &runtime.RawExtension{Raw: []byte(`{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkStatus"}`)}
	})

	log := startController(t, e.ns, controllerSetup{})
	got := e.waitForOperation(log, nil, "Create", "Succeeded")
	check := func(when, wantChecksum string) {
		t.Helper()
		tmpl := e.manifest()["DaemonSet/calico-node"]["spec"].(map[string]any)["template"].(map[string]any)
		annotations := tmpl["metadata"].(map[string]any)["annotations"].(map[string]any)
		if c := annotations["checksum/configmap-calico"]; (wantChecksum == "" && c == "the-reference's-checksum") || (wantChecksum != "" && c != wantChecksum) {
			t.Errorf("%s: checksum/configmap-calico = %v, want %q (\"\" = calico-pilot's own)", when, c, wantChecksum)
		}
		for _, c := range tmpl["spec"].(map[string]any)["initContainers"].([]any) {
			c := c.(map[string]any)
			if c["name"] == "log-mtu-issues" {
				if cmd := c["command"].([]any); len(cmd) != 3 || cmd[2] != "# the reference's script\n" {
					t.Errorf("%s: log-mtu-issues command %v, want the reference's", when, cmd)
				}
			}
		}
	}
	check("swap-in", "the-reference's-checksum")
	if ps := string(got.Status.ProviderStatus.Raw); !strings.Contains(ps, `"takenOver":`) || !strings.Contains(ps, `"configChecksum":"the-reference's-checksum"`) {
		t.Errorf("providerStatus %s does not keep what was taken over", got.Status.ProviderStatus.Raw)
	}

	// The next reconcile: the ManagedResource is calico-pilot's now; the status carries the values.
	e.annotate("reconcile")
	e.waitForOperation(log, nil, "Reconcile", "Succeeded")
	check("second reconcile", "the-reference's-checksum")

	// calico-config changes (the MTU): calico-node rolls with calico-pilot's checksum; the script stays.
	e.patchNetwork(func(n *extensionsv1alpha1.Network) {
		n.Spec.ProviderConfig = &runtime.RawExtension{Raw: []byte(`{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkConfig","overlay":{"enabled":true},"vethMTU":"1400"}`)}
		n.Annotations = map[string]string{"gardener.cloud/operation": "reconcile"}
	})
	e.waitFor("calico-pilot's checksum after the MTU change", func() (bool, error) {
		cmData := e.manifest()["ConfigMap/calico-config"]["data"].(map[string]any)
		return cmData["veth_mtu"] == "1400", nil
	})
	check("after a config change", "")
}
