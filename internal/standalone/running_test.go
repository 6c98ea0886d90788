package standalone

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// TestRunningReleaseReadsTheImageTag: the release of a calico-node apply did not apply is its
// image's tag, also when the image is pinned by digest or its registry has a port; an image that
// names no release the catalogue knows is "".
func TestRunningReleaseReadsTheImageTag(t *testing.T) {
	cat := calicoversion.Default()
	rel := cat.DefaultRelease().Name()
	for image, want := range map[string]string{
		"quay.io/calico/node:" + rel:                        rel,
		"registry.local:5000/calico/node:" + rel:            rel,
		"quay.io/calico/node:" + rel + "@sha256:0123456789": rel,
		"registry.local:5000/calico/node":                   "",
		"quay.io/calico/node:v0.1.0":                        "",
	} {
		ds := &appsv1.DaemonSet{}
		ds.Spec.Template.Spec.Containers = []corev1.Container{{Name: "calico-node", Image: image}}
		if got := runningRelease(cat, ds); got != want {
			t.Errorf("runningRelease(%s) = %q, want %q", image, got, want)
		}
	}
}
