package rollout_test

import (
	"testing"

	"github.com/calico-pilot/calico-pilot/internal/rollout"
)

// TestComponentsWatchKubeControllers: kube-controllers counts like calico-node and Typha. Present and
// not rolled out, it keeps the shoot incomplete and is named; absent (as Typha when it is off), it
// does not.
func TestComponentsWatchKubeControllers(t *testing.T) {
	node := rollout.Component{Name: "calico-node", Found: true, Generation: 2, ObservedGeneration: 2, Desired: 3, Updated: 3, Available: 3}
	typha := rollout.Component{Name: "calico-typha-deploy", Found: true, Desired: 2, Updated: 2, Available: 2}
	stuck := rollout.Component{Name: "calico-kube-controllers", Found: true, Generation: 3, ObservedGeneration: 3, Desired: 1, Updated: 1, Available: 0, Unavailable: 1}
	for _, tc := range []struct {
		name     string
		c        rollout.Components
		complete bool
		// text names the components that hold the shoot up, in the order calico-node, Typha,
		// kube-controllers.
		text string
	}{
		{name: "all three rolled out", complete: true,
			c: rollout.Components{Node: node, Typha: typha, KubeControllers: rollout.Component{Name: "calico-kube-controllers", Found: true, Desired: 1, Updated: 1, Available: 1}}},
		{name: "kube-controllers absent", complete: true,
			c: rollout.Components{Node: node, Typha: typha, KubeControllers: rollout.Component{Name: "calico-kube-controllers"}}},
		{name: "kube-controllers cannot start",
			c:    rollout.Components{Node: node, Typha: typha, KubeControllers: stuck},
			text: "calico-kube-controllers 1/1 updated, 0/1 available, 1 unavailable"},
		{name: "kube-controllers and calico-node",
			c: rollout.Components{Node: rollout.Component{Name: "calico-node", Found: true, Generation: 3, ObservedGeneration: 2, Desired: 3, Updated: 1, Available: 3},
				Typha: rollout.Component{Name: "calico-typha-deploy"}, KubeControllers: stuck},
			text: "calico-node 1/3 updated, 3/3 available, 0 unavailable, generation 3 not yet observed; calico-kube-controllers 1/1 updated, 0/1 available, 1 unavailable"},
		{name: "calico-node absent", c: rollout.Components{Node: rollout.Component{Name: "calico-node"}, Typha: typha, KubeControllers: stuck},
			text: "calico-node not found; calico-kube-controllers 1/1 updated, 0/1 available, 1 unavailable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.c.Complete(); got != tc.complete {
				t.Errorf("Complete() = %v, want %v", got, tc.complete)
			}
			if got := tc.c.String(); got != tc.text {
				t.Errorf("String() = %q, want %q", got, tc.text)
			}
		})
	}
}

// TestRunsImage: a move's step counts as applied only when the workload exists and the named
// container runs the rendered image; an init container of the same template does not stand in for it.
func TestRunsImage(t *testing.T) {
	node := rollout.Component{Name: "calico-node", Found: true, Images: map[string]string{
		"install-cni": "quay.io/calico/cni:v3.32.1", "calico-node": "quay.io/calico/node:v3.31.7"}}
	for _, tc := range []struct {
		c                rollout.Component
		container, image string
		want             bool
	}{
		{c: node, container: "calico-node", image: "quay.io/calico/node:v3.31.7", want: true},
		{c: node, container: "calico-node", image: "quay.io/calico/node:v3.32.1"},
		{c: node, container: "calico-typha", image: "quay.io/calico/node:v3.31.7"},
		{c: rollout.Component{Name: "calico-node"}, container: "calico-node", image: ""},
	} {
		if got := tc.c.RunsImage(tc.container, tc.image); got != tc.want {
			t.Errorf("%s found %t: RunsImage(%q, %q) = %t, want %t", tc.c.Name, tc.c.Found, tc.container, tc.image, got, tc.want)
		}
	}
}
