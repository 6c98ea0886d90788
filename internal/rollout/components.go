package rollout

import (
	"context"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// Component is how one workload's rollout stands, as its controller reports it in status.
type Component struct {
	// Name is the workload's name.
	Name string
	// Found is false when the workload does not exist.
	Found bool
	// Generation and ObservedGeneration: the controller has seen the current spec when
	// ObservedGeneration >= Generation.
	Generation, ObservedGeneration int64
	// Desired, Updated, Available and Unavailable count pods (DaemonSet: scheduled nodes).
	Desired, Updated, Available, Unavailable int32
	// Images are the pod template's images by container name (init containers included).
	Images map[string]string
}

// Complete says whether the workload finished rolling out its current spec: observed, every
// desired pod updated and available, none unavailable. A missing workload is not complete.
func (c Component) Complete() bool {
	return c.Found && c.ObservedGeneration >= c.Generation && c.Updated == c.Desired &&
		c.Available == c.Desired && c.Unavailable == 0
}

// RunsImage says whether the pod template's container runs image: the shoot's resource manager has
// applied the spec the move asked for.
func (c Component) RunsImage(container, image string) bool {
	return c.Found && c.Images[container] == image
}

// String says how far the rollout got, for messages: "calico-node 2/3 updated, 2/3 available,
// 1 unavailable".
func (c Component) String() string {
	if !c.Found {
		return c.Name + " not found"
	}
	s := fmt.Sprintf("%s %d/%d updated, %d/%d available, %d unavailable", c.Name, c.Updated, c.Desired, c.Available, c.Desired, c.Unavailable)
	if c.ObservedGeneration < c.Generation {
		s += fmt.Sprintf(", generation %d not yet observed", c.Generation)
	}
	return s
}

// FromDaemonSet reads a DaemonSet's rollout.
func FromDaemonSet(ds *appsv1.DaemonSet) Component {
	return Component{
		Name: ds.Name, Found: true, Generation: ds.Generation, ObservedGeneration: ds.Status.ObservedGeneration,
		Desired: ds.Status.DesiredNumberScheduled, Updated: ds.Status.UpdatedNumberScheduled,
		Available: ds.Status.NumberAvailable, Unavailable: ds.Status.NumberUnavailable,
		Images: podImages(ds.Spec.Template.Spec.InitContainers, ds.Spec.Template.Spec.Containers),
	}
}

// FromDeployment reads a Deployment's rollout.
func FromDeployment(d *appsv1.Deployment) Component {
	desired := int32(1)
	if d.Spec.Replicas != nil {
		desired = *d.Spec.Replicas
	}
	return Component{
		Name: d.Name, Found: true, Generation: d.Generation, ObservedGeneration: d.Status.ObservedGeneration,
		Desired: desired, Updated: d.Status.UpdatedReplicas, Available: d.Status.AvailableReplicas,
		Unavailable: d.Status.UnavailableReplicas,
		Images:      podImages(d.Spec.Template.Spec.InitContainers, d.Spec.Template.Spec.Containers),
	}
}

func podImages(lists ...[]corev1.Container) map[string]string {
	out := map[string]string{}
	for _, list := range lists {
		for _, c := range list {
			out[c.Name] = c.Image
		}
	}
	return out
}

// Components are the Calico workloads of one shoot that a move changes: calico-node, Typha and
// kube-controllers.
type Components struct {
	Node, Typha, KubeControllers Component
}

// workloads lists the components in Calico's order of reporting, each with whether it must exist:
// calico-node must; Typha (off on small shoots) and kube-controllers may be absent.
func (c Components) workloads() []struct {
	Component
	required bool
} {
	return []struct {
		Component
		required bool
	}{{c.Node, true}, {c.Typha, false}, {c.KubeControllers, false}}
}

// holding returns the components that hold the shoot up: calico-node when it is missing or not
// complete, Typha and kube-controllers when present and not complete.
func (c Components) holding() []Component {
	var out []Component
	for _, w := range c.workloads() {
		if (w.required || w.Found) && !w.Complete() {
			out = append(out, w.Component)
		}
	}
	return out
}

// Complete says whether calico-node completed its rollout, and Typha and kube-controllers did too or
// do not exist.
func (c Components) Complete() bool { return len(c.holding()) == 0 }

// String describes the components that are not complete, "; "-separated ("" when all are).
func (c Components) String() string {
	var parts []string
	for _, w := range c.holding() {
		parts = append(parts, w.String())
	}
	return strings.Join(parts, "; ")
}

// ReadComponents reads calico-node, Typha and kube-controllers through the shoot client: three GETs
// by name, no list, no watch, no cache. Each GET is one round trip to the shoot's API server that
// answers with the whole live object: the rendered spec (v3.32 default shoot: calico-node's
// DaemonSet 6.9 KB of JSON, Typha's Deployment 2.4 KB, kube-controllers' 1.6 KB) plus its status
// and managedFields. A missing Typha or kube-controllers is reported as not found, not as an error;
// a missing calico-node too, and Complete says it is not complete.
func ReadComponents(ctx context.Context, shoot client.Reader) (Components, error) {
	var out Components
	for _, c := range []struct {
		component calicoversion.Component
		into      *Component
	}{{calicoversion.Node, &out.Node}, {calicoversion.Typha, &out.Typha}, {calicoversion.KubeControllers, &out.KubeControllers}} {
		w, err := ReadWorkload(ctx, shoot, c.component)
		if err != nil {
			return out, fmt.Errorf("the shoot's rollout: %w", err)
		}
		*c.into = w
	}
	return out, nil
}

// since formats an elapsed duration for messages, rounded to the second.
func since(d time.Duration) string { return d.Round(time.Second).String() }

// ReadWorkload reads the rollout of a Calico component's workload (calicoversion.Component.Workload)
// through r: one GET; a missing workload is reported as not found, not as an error. The controller's
// move check and `calico-pilot apply` read workloads through it.
func ReadWorkload(ctx context.Context, r client.Reader, c calicoversion.Component) (Component, error) {
	return ReadWorkloadAt(ctx, r, c.Workload())
}

// ReadWorkloadAt is ReadWorkload for the workload w, wherever a layout put it (internal/layout).
func ReadWorkloadAt(ctx context.Context, r client.Reader, w calicoversion.Workload) (Component, error) {
	key := client.ObjectKey{Namespace: w.Namespace, Name: w.Name}
	var obj client.Object = &appsv1.Deployment{}
	if w.Kind == "DaemonSet" {
		obj = &appsv1.DaemonSet{}
	}
	switch err := r.Get(ctx, key, obj); {
	case apierrors.IsNotFound(err):
		return Component{Name: w.Name}, nil
	case err != nil:
		return Component{}, fmt.Errorf("reading %s %s: %w", w.Kind, key, err)
	}
	if ds, ok := obj.(*appsv1.DaemonSet); ok {
		return FromDaemonSet(ds), nil
	}
	return FromDeployment(obj.(*appsv1.Deployment)), nil
}
