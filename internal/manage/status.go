package manage

import (
	"context"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	standalonev1alpha1 "github.com/calico-pilot/calico-pilot/api/standalone/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/rollout"
	"github.com/calico-pilot/calico-pilot/internal/standalone"
)

// statusOf is the Cluster's status after an apply came to res: pure, from the previous status (its
// conditions keep their transition times while they hold), the generation applied, the state the
// apply recorded and the components as they run. lastApplied moves only when the status changes, so
// that an unchanged cluster's reconcile writes nothing.
func statusOf(prev standalonev1alpha1.ClusterStatus, generation int64, res outcome, st standalone.State, found bool, comps []standalonev1alpha1.ComponentStatus, notes []string, now time.Time) standalonev1alpha1.ClusterStatus {
	s := standalonev1alpha1.ClusterStatus{
		ObservedGeneration: generation,
		Conditions:         append([]metav1.Condition(nil), prev.Conditions...),
		Components:         comps,
		Blockers:           res.blockers,
		LastApplied:        prev.LastApplied,
	}
	if found {
		s.Release, s.CRDRelease = st.Release, st.CRDRelease
		if m := st.Move; m != nil {
			s.Move = &standalonev1alpha1.Move{From: m.From, To: m.To, Phase: m.Phase}
		}
	}
	set := func(typ string, status metav1.ConditionStatus, reason, msg string) {
		meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg, ObservedGeneration: generation, LastTransitionTime: metav1.NewTime(now)})
	}
	if res.err == nil {
		set(standalonev1alpha1.ConditionAvailable, metav1.ConditionTrue, ReasonApplied, fmt.Sprintf("Calico %s runs on every component (CRDs of %s)", s.Release, s.CRDRelease))
	} else {
		set(standalonev1alpha1.ConditionAvailable, metav1.ConditionFalse, res.reason, availableMessage(found, st))
	}
	switch {
	case s.Move != nil:
		set(standalonev1alpha1.ConditionProgressing, metav1.ConditionTrue, ReasonMoving, fmt.Sprintf("moving from Calico %s to %s, step %s; the controller continues it", s.Move.From, s.Move.To, s.Move.Phase))
	case res.reason == ReasonRolloutTimedOut:
		set(standalonev1alpha1.ConditionProgressing, metav1.ConditionTrue, ReasonRolloutTimedOut, "waiting for a rollout (Degraded says which pods hold it)")
	default:
		set(standalonev1alpha1.ConditionProgressing, metav1.ConditionFalse, ReasonStable, "no release moves and every rollout completed")
	}
	switch {
	case res.err != nil:
		set(standalonev1alpha1.ConditionDegraded, metav1.ConditionTrue, res.reason, res.message)
	case len(notes) > 0:
		set(standalonev1alpha1.ConditionDegraded, metav1.ConditionTrue, ReasonComponentsNotAsAsked, strings.Join(notes, "; "))
	default:
		set(standalonev1alpha1.ConditionDegraded, metav1.ConditionFalse, ReasonAsExpected, "the last apply completed")
	}
	if res.err == nil {
		unstamped := s
		unstamped.LastApplied = prev.LastApplied
		if !equality.Semantic.DeepEqual(unstamped, prev) || prev.LastApplied == nil {
			s.LastApplied = ptr.To(metav1.NewTime(now.UTC().Truncate(time.Second)))
		}
	}
	return s
}

// availableMessage says what runs when the last apply failed.
func availableMessage(found bool, st standalone.State) string {
	if !found || st.Release == "" {
		return "the Cluster was not applied (Degraded says why); calico-pilot has not installed Calico yet"
	}
	return fmt.Sprintf("the Cluster's generation was not applied (Degraded says why); what was applied before keeps running (Calico %s)", st.Release)
}

// optional are the components calico-pilot does not deploy, by the Cluster's field, with their
// workload and what removes them when they run unmanaged (after a takeover of the tigera operator).
var optional = []struct {
	field, name, kind, remove string
	get                       func(*standalonev1alpha1.Components) *standalonev1alpha1.Component
}{
	{"apiServer", "calico-apiserver", "Deployment", "kubectl delete apiserver default (the garbage collector deletes its Deployment and APIService together)",
		func(c *standalonev1alpha1.Components) *standalonev1alpha1.Component { return c.APIServer }},
	{"goldmane", "goldmane", "Deployment", "kubectl delete goldmane default",
		func(c *standalonev1alpha1.Components) *standalonev1alpha1.Component { return c.Goldmane }},
	{"whisker", "whisker", "Deployment", "kubectl delete whisker default",
		func(c *standalonev1alpha1.Components) *standalonev1alpha1.Component { return c.Whisker }},
	{"csiDriver", "csi-node-driver", "DaemonSet", "delete DaemonSet csi-node-driver and CSIDriver csi.tigera.io",
		func(c *standalonev1alpha1.Components) *standalonev1alpha1.Component { return c.CSIDriver }},
}

// components reads the release each component runs: calico-node, Typha and kube-controllers (which
// calico-pilot applies), and the optional ones that run unmanaged. notes say where the Cluster's
// components differ from what runs (calico-pilot deploys none of the optional components: it keeps
// what runs and says how to remove it).
func (r *Reconciler) components(ctx context.Context, obj *standalonev1alpha1.Cluster, st standalone.State, found bool) ([]standalonev1alpha1.ComponentStatus, []string, error) {
	lay := layoutOf(st)
	var out []standalonev1alpha1.ComponentStatus
	if found {
		for _, c := range calicoversion.Components() {
			rc, err := rollout.ReadWorkloadAt(ctx, r.Client, lay.Workload(c))
			if err != nil {
				return nil, nil, err
			}
			if rc.Found {
				out = append(out, standalonev1alpha1.ComponentStatus{Name: rc.Name, Release: tagOf(rc.Images[string(c)]), Managed: true})
			}
		}
	}
	var notes []string
	asked := obj.Components
	if asked == nil {
		asked = &standalonev1alpha1.Components{}
	}
	for _, o := range optional {
		image, running, err := r.workloadImage(ctx, o.kind, lay.Namespace, o.name)
		if err != nil {
			return nil, nil, err
		}
		want := o.get(asked)
		enabled := want != nil && want.Enabled != nil
		switch {
		case running && enabled && !*want.Enabled:
			notes = append(notes, fmt.Sprintf("components.%s.enabled is false but %s runs (unmanaged): calico-pilot does not remove it; %s", o.field, o.name, o.remove))
		case !running && enabled && *want.Enabled:
			notes = append(notes, fmt.Sprintf("components.%s.enabled is true but %s does not run: calico-pilot does not deploy it (docs/manage.md)", o.field, o.name))
		}
		if running {
			out = append(out, standalonev1alpha1.ComponentStatus{Name: o.name, Release: tagOf(image), Managed: false,
				Message: "runs unmanaged: calico-pilot keeps it as it runs and does not renew its certificates; to remove it: " + o.remove})
		}
	}
	return out, notes, nil
}

// layoutOf is the layout the state's calico-node was applied in (the tigera operator's after a
// takeover), else kube-system's.
func layoutOf(st standalone.State) layout.Layout {
	for _, r := range st.Owned {
		if r.Kind == "DaemonSet" && r.Name == calicoversion.NodeDaemonSet && r.Namespace == layout.TigeraOperator().Namespace {
			return layout.TigeraOperator()
		}
	}
	if st.Operator != nil {
		return layout.TigeraOperator()
	}
	return layout.KubeSystem()
}

// workloadImage is the first container's image of the workload kind namespace/name; running is
// false when it does not exist.
func (r *Reconciler) workloadImage(ctx context.Context, kind, namespace, name string) (image string, running bool, err error) {
	var obj client.Object = &appsv1.Deployment{}
	if kind == "DaemonSet" {
		obj = &appsv1.DaemonSet{}
	}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return "", false, nil
		}
		return "", false, fmt.Errorf("reading %s %s/%s: %w", kind, namespace, name, err)
	}
	var spec corev1.PodSpec
	switch o := obj.(type) {
	case *appsv1.Deployment:
		spec = o.Spec.Template.Spec
	case *appsv1.DaemonSet:
		spec = o.Spec.Template.Spec
	}
	if len(spec.Containers) > 0 {
		image = spec.Containers[0].Image
	}
	return image, true, nil
}

// tagOf is an image reference's tag ("" without one).
func tagOf(image string) string {
	image, _, _ = strings.Cut(image, "@")
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		return image[i+1:]
	}
	return ""
}
