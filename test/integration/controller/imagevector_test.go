package controller

import (
	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	"k8s.io/utils/ptr"
	"testing"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
)

// TestImageVectorPerShoot (issue 20 item 2): one controller with an operator's override that carries
// an image calico-pilot does not deploy (pause-container, as in the reference's own values example)
// and calico-node pinned per Kubernetes version (< 1.33 and >= 1.33) reconciles two shoots on
// different Kubernetes versions: it starts, and each shoot's calico-node comes from the entry for its
// version; an image without a constraint is the embedded one for both.
func TestImageVectorPerShoot(t *testing.T) {
	vector, err := imagevector.LoadVector([]byte(`images:
- name: pause-container
  sourceRepository: github.com/kubernetes/kubernetes/blob/master/build/pause/Dockerfile
  repository: registry.k8s.io/pause
  tag: "3.10"
- name: calico-node
  repository: mirror-old.example/calico/node
  tag: v3.31.6
  targetVersion: "< 1.33"
- name: calico-node
  repository: mirror-new.example/calico/node
  tag: v3.31.6
  targetVersion: ">= 1.33"
`))
	if err != nil {
		t.Fatal(err)
	}
	old := newTestEnv(t, func(s *gardencorev1beta1.Shoot) { s.Spec.Kubernetes.Version = "1.32.7" })
	cur := newTestEnv(t, func(s *gardencorev1beta1.Shoot) { s.Spec.Kubernetes.Version = "1.33.2" })
	// The override pins v3.31.6 tags without `version`, as written before releases were recorded: the
	// landscape's new shoots get v3.31.6 (calico.defaultVersion), which the pins belong to.
	operator := &configv1alpha1.ControllerConfiguration{Calico: &configv1alpha1.CalicoVersions{DefaultVersion: ptr.To("v3.31.6")}}
	log := startController(t, old.ns, controllerSetup{images: vector, operator: operator}, cur.ns)
	for _, e := range []*testEnv{old, cur} {
		e.createNetwork(providerConfig("overlay:\n  enabled: true\n"))
		e.waitForOperation(log, map[string]int{}, "Create", "Succeeded")
	}
	for _, tt := range []struct {
		e           *testEnv
		node, typha string
	}{
		{old, "mirror-old.example/calico/node:v3.31.6", "quay.io/calico/typha:v3.31.6"},
		{cur, "mirror-new.example/calico/node:v3.31.6", "quay.io/calico/typha:v3.31.6"},
	} {
		m := tt.e.manifest()
		if got := containerImage(t, m["DaemonSet/calico-node"], "calico-node"); got != tt.node {
			t.Errorf("%s: calico-node image %q, want %q", tt.e.ns, got, tt.node)
		}
		if got := containerImage(t, m["Deployment/calico-typha-deploy"], "calico-typha"); got != tt.typha {
			t.Errorf("%s: typha image %q, want %q", tt.e.ns, got, tt.typha)
		}
	}
}

// containerImage is the image of the named container of a workload of the stored manifest.
func containerImage(t testing.TB, obj map[string]any, container string) string {
	t.Helper()
	if obj == nil {
		t.Fatal("workload not in the manifest")
	}
	spec, _ := obj["spec"].(map[string]any)
	tmpl, _ := spec["template"].(map[string]any)
	pod, _ := tmpl["spec"].(map[string]any)
	cs, _ := pod["containers"].([]any)
	for _, c := range cs {
		m, _ := c.(map[string]any)
		if m["name"] == container {
			s, _ := m["image"].(string)
			return s
		}
	}
	t.Fatalf("no container %s", container)
	return ""
}
