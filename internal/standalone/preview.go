package standalone

import (
	"context"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/manifestdiff"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/pools"
)

// preview builds plan's two sides without writing: the live objects apply would touch (rendered ones,
// owned ones it would delete, the IP pools) and what they become (a server-side dry-run of each
// rendered object, so both sides carry the API server's defaults; the pools after pools.Decide).
// foreign are live objects apply would take over: present, not applied by calico-pilot.
func (a *Applier) preview(ctx context.Context, st State, res pipeline.Result) (Preview, []string, error) {
	o, err := split(res)
	if err != nil {
		return Preview{}, nil, err
	}
	var current, target []client.Object
	var foreign []string
	for _, u := range o.all() {
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(u.GroupVersionKind())
		err := a.Client.Get(ctx, client.ObjectKeyFromObject(u), live)
		switch {
		case err == nil:
			if !managedByUs(live) && !slices.Contains(st.Owned, refOf(u)) {
				foreign = append(foreign, refOf(u).String())
			}
			current = append(current, comparable(live))
		case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		default:
			return Preview{}, nil, fmt.Errorf("reading %s: %w", refOf(u), err)
		}
		after := u.DeepCopy()
		if err == nil {
			// Only an existing object can be dry-run: a new one may need a CRD or namespace this
			// apply creates first.
			if derr := a.ssa(ctx, after, true); derr != nil {
				return Preview{}, nil, derr
			}
			after = comparable(after)
		}
		target = append(target, after)
	}
	rendered := refs(res)
	for _, r := range st.Owned {
		if slices.Contains(rendered, r) || r.Kind == "CustomResourceDefinition" || r.Kind == "IPPool" {
			continue
		}
		live := &unstructured.Unstructured{}
		live.SetAPIVersion(r.APIVersion)
		live.SetKind(r.Kind)
		if err := a.Client.Get(ctx, client.ObjectKey{Namespace: r.Namespace, Name: r.Name}, live); err == nil {
			current = append(current, comparable(live))
		}
	}
	var livePools calicov1.IPPoolList
	if err := a.Client.List(ctx, &livePools); err != nil && !meta.IsNoMatchError(err) {
		return Preview{}, nil, fmt.Errorf("listing IP pools: %w", err)
	}
	after := map[string]*calicov1.IPPool{}
	for i := range livePools.Items {
		p := livePools.Items[i].DeepCopy()
		current = append(current, typedComparable(p))
		after[p.Name] = p.DeepCopy()
	}
	for _, act := range pools.Decide(res.Pools, livePools.Items, pools.FromStatus(st.Pools), a.Now()).Actions {
		switch act.Kind {
		case pools.ActionCreate:
			after[act.Name] = act.Object.DeepCopy()
		case pools.ActionPatchEncapsulation:
			after[act.Name].Spec.IPIPMode, after[act.Name].Spec.VXLANMode = act.IPIPMode, act.VXLANMode
		}
	}
	for _, p := range after {
		target = append(target, typedComparable(p))
	}
	parser, err := manifestdiff.NewParser()
	if err != nil {
		return Preview{}, nil, err
	}
	cur, err := parser.Objects(current)
	if err != nil {
		return Preview{}, nil, fmt.Errorf("reading the live objects: %w", err)
	}
	tgt, err := parser.Objects(target)
	if err != nil {
		return Preview{}, nil, fmt.Errorf("reading the rendered objects: %w", err)
	}
	// The workloads first: they say best what install this is; CRDs last.
	rank := func(s string) int {
		switch {
		case strings.HasPrefix(s, "DaemonSet ") || strings.HasPrefix(s, "Deployment "):
			return 0
		case strings.HasPrefix(s, "CustomResourceDefinition "):
			return 2
		}
		return 1
	}
	slices.SortStableFunc(foreign, func(a, b string) int { return rank(a) - rank(b) })
	return Preview{Current: cur, Target: tgt}, foreign, nil
}

func managedByUs(u *unstructured.Unstructured) bool {
	for _, m := range u.GetManagedFields() {
		if m.Manager == FieldManager {
			return true
		}
	}
	return false
}

// comparable keeps what a manifest states of a live object: no server-owned metadata, no status.
func comparable(u *unstructured.Unstructured) *unstructured.Unstructured {
	out := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(u.Object)}
	delete(out.Object, "status")
	meta := map[string]any{"name": u.GetName()}
	if ns := u.GetNamespace(); ns != "" {
		meta["namespace"] = ns
	}
	if l := u.GetLabels(); len(l) > 0 {
		meta["labels"] = toAny(l)
	}
	ann := u.GetAnnotations()
	delete(ann, "kubectl.kubernetes.io/last-applied-configuration")
	delete(ann, "deprecated.daemonset.template.generation")
	delete(ann, "deployment.kubernetes.io/revision")
	if len(ann) > 0 {
		meta["annotations"] = toAny(ann)
	}
	out.Object["metadata"] = meta
	return out
}

func typedComparable(p *calicov1.IPPool) client.Object {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(p)
	if err != nil {
		return p
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion("crd.projectcalico.org/v1")
	u.SetKind("IPPool")
	return comparable(u)
}

func toAny(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
