package rollout

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Names of the shoot workloads whose rollout decides a move (internal/render names them so).
const (
	// ShootNamespace is where Calico's workloads run in a shoot.
	ShootNamespace = "kube-system"
	// NodeDaemonSet is calico-node (Felix, BIRD, confd).
	NodeDaemonSet = "calico-node"
	// TyphaDeployment is Typha; absent when Typha is off.
	TyphaDeployment = "calico-typha-deploy"
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

// RunsImages says whether the pod template runs every image of want (container name -> image):
// the shoot's resource manager has applied the spec the move asked for.
func (c Component) RunsImages(want map[string]string) bool {
	if !c.Found || len(want) == 0 {
		return false
	}
	for name, image := range want {
		if c.Images[name] != image {
			return false
		}
	}
	return true
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

// Components are calico-node and Typha of one shoot.
type Components struct {
	Node, Typha Component
}

// Complete says whether calico-node completed its rollout and Typha did too or does not exist.
func (c Components) Complete() bool {
	return c.Node.Complete() && (!c.Typha.Found || c.Typha.Complete())
}

// String describes the components that are not complete ("" when all are).
func (c Components) String() string {
	var s string
	if !c.Node.Complete() {
		s = c.Node.String()
	}
	if c.Typha.Found && !c.Typha.Complete() {
		if s != "" {
			s += "; "
		}
		s += c.Typha.String()
	}
	return s
}

// ReadComponents reads calico-node and Typha through the shoot client: two GETs. A missing Typha
// is reported as not found, not as an error.
func ReadComponents(ctx context.Context, shoot client.Reader) (Components, error) {
	var out Components
	ds := &appsv1.DaemonSet{}
	switch err := shoot.Get(ctx, client.ObjectKey{Namespace: ShootNamespace, Name: NodeDaemonSet}, ds); {
	case err == nil:
		out.Node = FromDaemonSet(ds)
	case apierrors.IsNotFound(err):
		out.Node = Component{Name: NodeDaemonSet}
	default:
		return out, fmt.Errorf("reading the shoot's %s DaemonSet: %w", NodeDaemonSet, err)
	}
	d := &appsv1.Deployment{}
	switch err := shoot.Get(ctx, client.ObjectKey{Namespace: ShootNamespace, Name: TyphaDeployment}, d); {
	case err == nil:
		out.Typha = FromDeployment(d)
	case apierrors.IsNotFound(err):
		out.Typha = Component{Name: TyphaDeployment}
	default:
		return out, fmt.Errorf("reading the shoot's %s Deployment: %w", TyphaDeployment, err)
	}
	return out, nil
}

// since formats an elapsed duration for messages, rounded to the second.
func since(d time.Duration) string { return d.Round(time.Second).String() }
