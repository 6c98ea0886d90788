package controller

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
)

// recordRelease sets what the Network's provider status records, as a calico-pilot that deployed the
// shoot would have left it.
func (e *testEnv) recordRelease(release, crds string) {
	e.t.Helper()
	raw, err := json.Marshal(map[string]any{
		"apiVersion": "calico.networking.extensions.gardener.cloud/v1alpha1", "kind": "NetworkStatus",
		"overlayEnabled": false, "backend": "bird", "ipFamilies": []string{"IPv4"}, "compatibility": "Native",
		"calicoVersion": release, "calicoCRDVersion": crds,
	})
	if err != nil {
		e.t.Fatal(err)
	}
	e.patchStatus(func(n *extensionsv1alpha1.Network) { n.Status.ProviderStatus = &runtime.RawExtension{Raw: raw} })
}

// calicoStatus decodes the provider status (zero when none).
func (e *testEnv) calicoStatus() calicov1alpha1.NetworkStatus {
	e.t.Helper()
	var st calicov1alpha1.NetworkStatus
	if ps := e.network().Status.ProviderStatus; ps != nil {
		if err := json.Unmarshal(ps.Raw, &st); err != nil {
			e.t.Fatal(err)
		}
	}
	return st
}

// storedImageTag is the tag of calico-node's image in the stored manifest.
func (e *testEnv) storedImageTag() string {
	e.t.Helper()
	image := containerImage(e.t, e.manifest()["DaemonSet/calico-node"], "calico-node")
	return image[strings.LastIndex(image, ":")+1:]
}

// TestRecordedReleaseKeepsItsLine: a Network whose status records a release this calico-pilot does not
// carry (older or newer than what it carries) keeps its line: it runs the newest release of that line,
// never moves to another line and never gets older CRDs; the condition says so.
func TestRecordedReleaseKeepsItsLine(t *testing.T) {
	for _, tt := range []struct {
		recorded, recordedCRDs string
		want, wantCRDs         string
		// cnp is whether the stored CRDs are v3.32's set (ClusterNetworkPolicy).
		cnp bool
	}{
		{recorded: "v3.32.0", recordedCRDs: "v3.32.0", want: "v3.32.1", wantCRDs: "v3.32.1", cnp: true},
		{recorded: "v3.32.9", recordedCRDs: "v3.32.9", want: "v3.32.1", wantCRDs: "v3.32.1", cnp: true},
		{recorded: "v3.31.5", recordedCRDs: "v3.32.1", want: "v3.31.7", wantCRDs: "v3.32.1", cnp: true},
		{recorded: "v3.31.5", recordedCRDs: "v3.31.5", want: "v3.31.7", wantCRDs: "v3.31.7", cnp: false},
	} {
		t.Run(tt.recorded+"-crds-"+tt.recordedCRDs, func(t *testing.T) {
			e := newTestEnv(t, func(s *gardencorev1beta1.Shoot) { s.Spec.Kubernetes.Version = "1.34.2" })
			e.createNetwork(nil)
			e.recordRelease(tt.recorded, tt.recordedCRDs)
			startController(t, e.ns, controllerSetup{})
			e.waitFor("the Network reconciled", func() (bool, error) {
				lo := e.network().Status.LastOperation
				return lo != nil && lo.State == "Succeeded" && e.calicoStatus().CalicoVersion != tt.recorded, nil
			})
			st := e.calicoStatus()
			if st.CalicoVersion != tt.want || st.CalicoCRDVersion != tt.wantCRDs || st.CalicoMove != nil {
				t.Errorf("providerStatus calicoVersion %q, calicoCRDVersion %q, move %+v; want %s, %s, no move", st.CalicoVersion, st.CalicoCRDVersion, st.CalicoMove, tt.want, tt.wantCRDs)
			}
			if got := e.storedImageTag(); got != tt.want {
				t.Errorf("calico-node runs %s, want %s (the newest release of the recorded line)", got, tt.want)
			}
			if _, ok := e.manifest()["CustomResourceDefinition/clusternetworkpolicies.policy.networking.k8s.io"]; ok != tt.cnp {
				t.Errorf("the stored CRDs have ClusterNetworkPolicy: %t, want %t (never older CRDs than recorded)", ok, tt.cnp)
			}
			if _, reason, msg := conditionOf(e.network(), "CalicoVersion"); reason != "Deployed" ||
				!strings.Contains(msg, "Calico "+tt.recorded+" is not carried by this calico-pilot (retired); the shoot moves to the newest release of its line, "+tt.want) {
				t.Errorf("CalicoVersion condition %s %q, want it to name the retired release and where the shoot goes", reason, msg)
			}
		})
	}
}

// TestRecordedUncarriedLineChangesNothing: a Network recording a release of a line this calico-pilot
// does not carry (a newer calico-pilot deployed it) is refused with a condition saying why; nothing is
// stored for it.
func TestRecordedUncarriedLineChangesNothing(t *testing.T) {
	e := newTestEnv(t, func(s *gardencorev1beta1.Shoot) { s.Spec.Kubernetes.Version = "1.35.1" })
	e.createNetwork(nil)
	e.recordRelease("v3.33.0", "v3.33.0")
	startController(t, e.ns, controllerSetup{})
	e.waitFor("the Network's reconcile to fail", func() (bool, error) {
		lo := e.network().Status.LastOperation
		return lo != nil && (lo.State == "Error" || lo.State == "Failed"), nil
	})
	n := e.network()
	if status, reason, msg := conditionOf(n, "CalicoVersion"); status != "False" || reason != "ReleaseNotCarried" ||
		!strings.Contains(msg, `recorded Calico release "v3.33.0" is of line v3.33, which this calico-pilot does not carry`) {
		t.Errorf("CalicoVersion condition %s %s %q", status, reason, msg)
	}
	if n.Status.LastError == nil || !strings.Contains(n.Status.LastError.Description, "v3.33") {
		t.Errorf("lastError %+v, want it to name the release", n.Status.LastError)
	}
	if mr := e.managedResource(); mr != nil {
		t.Errorf("a ManagedResource was stored for a shoot whose line is not carried: %v", mr.Spec.SecretRefs)
	}
	if st := e.calicoStatus(); st.CalicoVersion != "v3.33.0" {
		t.Errorf("the recorded release was overwritten: %q", st.CalicoVersion)
	}
}

// TestNewShootGetsALineThatSupportsItsKubernetes: a new shoot on Kubernetes 1.33 in a landscape whose
// default is v3.32 (1.34-1.36) runs v3.31 (its newest release), with a condition that says why.
func TestNewShootGetsALineThatSupportsItsKubernetes(t *testing.T) {
	e := newTestEnv(t, func(s *gardencorev1beta1.Shoot) { s.Spec.Kubernetes.Version = "1.33.4" })
	operator := &configv1alpha1.ControllerConfiguration{Calico: &configv1alpha1.CalicoVersions{DefaultVersion: ptr.To("v3.32")}}
	log := startController(t, e.ns, controllerSetup{operator: operator})
	e.createNetwork(nil)
	e.waitForOperation(log, nil, "Create", "Succeeded")
	if st := e.calicoStatus(); st.CalicoVersion != "v3.31.7" || st.CalicoCRDVersion != "v3.31.7" {
		t.Errorf("providerStatus calicoVersion %q, CRDs %q; want v3.31.7", st.CalicoVersion, st.CalicoCRDVersion)
	}
	if got := e.storedImageTag(); got != "v3.31.7" {
		t.Errorf("calico-node runs %s, want v3.31.7", got)
	}
	if _, ok := e.manifest()["CustomResourceDefinition/clusternetworkpolicies.policy.networking.k8s.io"]; ok {
		t.Error("a v3.31 shoot got v3.32's CRDs")
	}
	want := "the operator's default (calico.defaultVersion) asks for Calico v3.32.1, which does not support Kubernetes 1.33.4 (supports 1.34-1.36); the shoot gets Calico v3.31.7 (calico-pilot's default)."
	if status, reason, msg := conditionOf(e.network(), "CalicoVersion"); status != "False" || reason != "KubernetesUnsupported" || msg != want {
		t.Errorf("CalicoVersion condition %s %s %q, want False KubernetesUnsupported %q", status, reason, msg, want)
	}
}
