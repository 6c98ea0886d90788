package network

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/rollout"
)

// Which line a Network gets: recorded, else v3.31.6 when deployed, else pin / operator default for a
// new shoot; a pin wins over the rollout; a move in progress completes; unsupported pins and
// Kubernetes versions and hibernated shoots keep the current line.
func TestDecideLine(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	recorded := func(v, crds string) *calicov1alpha1.NetworkStatus {
		return &calicov1alpha1.NetworkStatus{Backend: ptr.To(calicov1alpha1.Backend("bird")), CalicoVersion: v, CalicoCRDVersion: crds}
	}
	pin := func(v string) *calicov1alpha1.NetworkConfig { return &calicov1alpha1.NetworkConfig{CalicoVersion: &v} }
	operator32 := &configv1alpha1.ControllerConfiguration{Calico: &configv1alpha1.CalicoVersions{DefaultVersion: ptr.To("v3.32")}}
	to32 := &rollout.Assignment{Rollout: "r1", Target: "v3.32"}
	for _, tt := range []struct {
		name string
		in   lineInputs
		// want: calico-node, typha, CRDs, move phase ("" steady), condition reason and message part
		node, typha, crds, phase, reason, msg string
	}{
		{name: "new shoot: operator default", in: lineInputs{Operator: operator32},
			node: "v3.32", typha: "v3.32", crds: "v3.32", reason: "Deployed", msg: "Calico v3.32.1 runs on every component."},
		{name: "new shoot: pin over default", in: lineInputs{Operator: operator32, Config: pin("v3.31")},
			node: "v3.31", typha: "v3.31", crds: "v3.31", reason: "Deployed"},
		{name: "deployed by the reference: v3.31.6, the default does not move it", in: lineInputs{Deployed: true, Operator: operator32},
			node: "v3.31", typha: "v3.31", crds: "v3.31", reason: "Deployed", msg: "Calico v3.31.6 runs"},
		{name: "rollout moves calico-node first", in: lineInputs{Deployed: true, Recorded: recorded("v3.31.6", "v3.31.6"), Assignment: to32, KubernetesVersion: "1.34.2"},
			node: "v3.32", typha: "v3.31", crds: "v3.32", phase: "First", reason: "Moving", msg: `asked by rollout "r1": calico-node first`},
		{name: "pin wins over the rollout", in: lineInputs{Deployed: true, Recorded: recorded("v3.31.6", ""), Assignment: to32, Config: pin("v3.31"), KubernetesVersion: "1.34.2"},
			node: "v3.31", typha: "v3.31", crds: "v3.31", reason: "Deployed"},
		{name: "pin down moves Typha first and keeps the newer CRDs", in: lineInputs{Deployed: true, Recorded: recorded("v3.32.1", "v3.32.1"), Config: pin("v3.31"), KubernetesVersion: "1.34.2"},
			node: "v3.32", typha: "v3.31", crds: "v3.32", phase: "First", reason: "Moving", msg: "Typha and kube-controllers first"},
		{name: "steady after a downgrade keeps the newer CRDs", in: lineInputs{Deployed: true, Recorded: recorded("v3.31.6", "v3.32.1")},
			node: "v3.31", typha: "v3.31", crds: "v3.32", reason: "Deployed"},
		{name: "unsupported Kubernetes", in: lineInputs{Deployed: true, Recorded: recorded("v3.31.6", ""), Assignment: to32, KubernetesVersion: "1.33.2"},
			node: "v3.31", typha: "v3.31", crds: "v3.31", reason: "KubernetesUnsupported", msg: "does not support Kubernetes 1.33.2 (supports 1.34-1.36)"},
		{name: "unsupported pin ratchets", in: lineInputs{Deployed: true, Recorded: recorded("v3.32.1", "v3.32.1"), Config: pin("v3.30")},
			node: "v3.32", typha: "v3.32", crds: "v3.32", reason: "PinUnsupported", msg: `Calico "v3.30" is not supported`},
		{name: "hibernated: no move starts", in: lineInputs{Deployed: true, Recorded: recorded("v3.31.6", ""), Assignment: to32, KubernetesVersion: "1.34.2", Hibernated: true},
			node: "v3.31", typha: "v3.31", crds: "v3.31", reason: "Deployed", msg: "starts after wake-up"},
		{name: "a move in progress completes even when no longer asked", in: lineInputs{Deployed: true, Recorded: &calicov1alpha1.NetworkStatus{Backend: ptr.To(calicov1alpha1.Backend("bird")), CalicoVersion: "v3.31.6",
			CalicoCRDVersion: "v3.32.1", CalicoMove: &calicov1alpha1.CalicoMove{From: "v3.31.6", To: "v3.32.1", Phase: "Complete", Started: metav1.NewTime(now)}}},
			node: "v3.32", typha: "v3.32", crds: "v3.32", phase: "Complete", reason: "Moving"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.in.Config == nil {
				tt.in.Config = &calicov1alpha1.NetworkConfig{}
			}
			tt.in.Now = now
			d := decideLine(tt.in)
			dep := d.Deployment()
			if dep.Node.Minor != tt.node || dep.Typha.Minor != tt.typha || dep.KubeControllers.Minor != tt.typha || dep.CRDs.Minor != tt.crds {
				t.Errorf("deployment %v; want calico-node %s, typha and kube-controllers %s, CRDs %s", dep, tt.node, tt.typha, tt.crds)
			}
			phase := ""
			if d.Move != nil {
				phase = d.Move.Phase
			}
			if phase != tt.phase || d.Reason != tt.reason || !strings.Contains(d.Message, tt.msg) {
				t.Errorf("phase %q reason %q message %q; want %q %q containing %q", phase, d.Reason, d.Message, tt.phase, tt.reason, tt.msg)
			}
		})
	}
}

// The images a step must run are read from the rendered stream: calico-node's and Typha's pod
// templates (init containers included), nothing else.
func TestRenderedImages(t *testing.T) {
	stream := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"calico-config"}}
{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"calico-node","namespace":"kube-system"},"spec":{"template":{"spec":{"initContainers":[{"name":"install-cni","image":"quay.io/calico/cni:v3.32.1"}],"containers":[{"name":"calico-node","image":"quay.io/calico/node:v3.32.1"}]}}}}
{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"calico-typha-deploy","namespace":"kube-system"},"spec":{"template":{"spec":{"containers":[{"name":"calico-typha","image":"quay.io/calico/typha:v3.31.6"}]}}}}
{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"calico-kube-controllers","namespace":"kube-system"},"spec":{"template":{"spec":{"containers":[{"name":"calico-kube-controllers","image":"quay.io/calico/kube-controllers:v3.31.6"}]}}}}`)
	got, err := renderedImages(stream)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{
		"calico-node":         {"install-cni": "quay.io/calico/cni:v3.32.1", "calico-node": "quay.io/calico/node:v3.32.1"},
		"calico-typha-deploy": {"calico-typha": "quay.io/calico/typha:v3.31.6"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rendered images (-want +got):\n%s", diff)
	}
}
