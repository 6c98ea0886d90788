package controller

import (
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/controller/network"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/imagevector/imagevectortest"
)

func loadVector(t *testing.T, override string) *imagevector.Vector {
	t.Helper()
	v, err := imagevector.LoadVector([]byte(override))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestMirroredLandscape (issue 35): with the mirror's override, new 1.33 and 1.34 shoots reconcile on
// v3.31.6 (the newest release the mirror has), each with calico-node from the entry for its
// Kubernetes version, and their condition says why; once the landscape adds `version: v3.31.7`
// entries, new shoots get v3.31.7 while the running ones stay on v3.31.6.
func TestMirroredLandscape(t *testing.T) {
	s133 := newTestEnv(t, func(s *gardencorev1beta1.Shoot) { s.Spec.Kubernetes.Version = "1.33.0" })
	s134 := newTestEnv(t, func(s *gardencorev1beta1.Shoot) { s.Spec.Kubernetes.Version = "1.34.1" })
	log, stop := startStoppableController(t, s133.ns, controllerSetup{images: loadVector(t, imagevectortest.MirroredLandscape)}, s134.ns)
	for _, e := range []*testEnv{s133, s134} {
		e.createNetwork(providerConfig("overlay:\n  enabled: true\n"))
		e.waitForOperation(log, map[string]int{}, "Create", "Succeeded")
	}
	for _, tt := range []struct {
		e          *testEnv
		node, k8s  string
		entryExtra string
	}{
		{s133, "example.org/mirror/calico-node:v3.31.6", "1.33.0", ""},
		{s134, "example.org/mirror134/calico-node:v3.31.6", "1.34.1", `, targetVersion: ">= 1.34"`},
	} {
		if st := tt.e.calicoStatus(); st.CalicoVersion != "v3.31.6" {
			t.Errorf("%s: providerStatus calicoVersion %q, want v3.31.6", tt.k8s, st.CalicoVersion)
		}
		m := tt.e.manifest()
		if got := containerImage(t, m["DaemonSet/calico-node"], "calico-node"); got != tt.node {
			t.Errorf("%s: calico-node image %q, want %q", tt.k8s, got, tt.node)
		}
		if got := containerImage(t, m["Deployment/calico-typha-deploy"], "calico-typha"); got != "quay.io/calico/typha:v3.31.6" {
			t.Errorf("%s: typha image %q", tt.k8s, got)
		}
		repo, _, _ := strings.Cut(tt.node, ":v")
		want := "Calico v3.31.7's images are not in the image vector for Kubernetes " + tt.k8s + ": calico-node is " + tt.node + " (of release v3.31.6); " +
			"add the image vector entry {name: calico-node, version: v3.31.7, repository: " + repo + ", tag: v3.31.7" + tt.entryExtra + "}; " +
			"the shoot gets Calico v3.31.6 (calico-pilot's default: the newest release of v3.31 whose images the image vector has)."
		if status, reason, msg := conditionOf(tt.e.network(), "CalicoVersion"); status != "True" || reason != "Deployed" || msg != want {
			t.Errorf("%s: CalicoVersion condition %s %s %q, want True Deployed %q", tt.k8s, status, reason, msg, want)
		}
	}
	stop()

	// The landscape mirrors v3.31.7 and says so in its image vector.
	n133 := newTestEnv(t, func(s *gardencorev1beta1.Shoot) { s.Spec.Kubernetes.Version = "1.33.0" })
	n134 := newTestEnv(t, func(s *gardencorev1beta1.Shoot) { s.Spec.Kubernetes.Version = "1.34.1" })
	log = startController(t, s133.ns, controllerSetup{images: loadVector(t, imagevectortest.MirroredLandscape+imagevectortest.MirroredV3317)}, s134.ns, n133.ns, n134.ns)
	for _, e := range []*testEnv{n133, n134} {
		e.createNetwork(providerConfig("overlay:\n  enabled: true\n"))
		e.waitForOperation(log, map[string]int{}, "Create", "Succeeded")
	}
	for _, tt := range []struct {
		e             *testEnv
		release, node string
	}{
		{n133, "v3.31.7", "example.org/mirror/calico-node:v3.31.7"},
		{n134, "v3.31.7", "example.org/mirror134/calico-node:v3.31.7"},
		// Running shoots are reconciled by the new controller too, and keep their release.
		{s133, "v3.31.6", "example.org/mirror/calico-node:v3.31.6"},
		{s134, "v3.31.6", "example.org/mirror134/calico-node:v3.31.6"},
	} {
		if tt.e == s133 || tt.e == s134 {
			tt.e.annotate("reconcile")
			tt.e.waitForOperation(log, map[string]int{}, "Reconcile", "Succeeded")
		}
		if st := tt.e.calicoStatus(); st.CalicoVersion != tt.release {
			t.Errorf("%s: providerStatus calicoVersion %q, want %s", tt.e.ns, st.CalicoVersion, tt.release)
		}
		if got := containerImage(t, tt.e.manifest()["DaemonSet/calico-node"], "calico-node"); got != tt.node {
			t.Errorf("%s: calico-node image %q, want %q", tt.e.ns, got, tt.node)
		}
		if status, reason, msg := conditionOf(tt.e.network(), "CalicoVersion"); status != "True" || msg != "Calico "+tt.release+" runs on every component." {
			t.Errorf("%s: CalicoVersion condition %s %s %q", tt.e.ns, status, reason, msg)
		}
	}
}

// TestUnavailableOperatorChoiceFailsAtStart (issue 35): a calico.defaultVersion or a rollout
// target the image vector has no images of is a configuration error at start naming the entry to
// add, not a failure per shoot.
func TestUnavailableOperatorChoiceFailsAtStart(t *testing.T) {
	vector := loadVector(t, imagevectortest.MirroredLandscape)
	operator := &configv1alpha1.ControllerConfiguration{Calico: &configv1alpha1.CalicoVersions{
		DefaultVersion: ptr.To("v3.31.7"),
		Rollout:        &configv1alpha1.Rollout{Name: "r", TargetVersion: "v3.32", Waves: []configv1alpha1.Wave{{Name: "all", Percent: ptr.To(int32(100))}}},
	}}
	_, err := network.NewManager(network.Setup{RestConfig: seedCP.Config, ImageVector: vector, Config: operator, Namespace: "default"})
	want := "ControllerConfiguration calico.defaultVersion \"v3.31.7\": Calico v3.31.7's images are not in the image vector for Kubernetes 1.32.0: " +
		"calico-node is example.org/mirror/calico-node:v3.31.6 (of release v3.31.6); add the image vector entry {name: calico-node, version: v3.31.7, repository: example.org/mirror/calico-node, tag: v3.31.7}\n" +
		"ControllerConfiguration calico.rollout.targetVersion \"v3.32\": Calico v3.32.1's images are not in the image vector for Kubernetes 1.34.0: " +
		"calico-node is example.org/mirror134/calico-node:v3.31.6 (of release v3.31.6); add the image vector entry {name: calico-node, version: v3.32.1, repository: example.org/mirror134/calico-node, tag: v3.32.1, targetVersion: \">= 1.34\"}"
	if err == nil || err.Error() != want {
		t.Errorf("NewManager:\n got %v\nwant %s", err, want)
	}
	// A line the mirror has a release of starts.
	operator.Calico.DefaultVersion, operator.Calico.Rollout = ptr.To("v3.31"), nil
	if err := network.CheckAvailability(vector, operator); err != nil {
		t.Errorf("defaultVersion v3.31 with v3.31.6 mirrored: %v", err)
	}
}
