package standalone

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/manifestdiff"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/pools"
	"github.com/calico-pilot/calico-pilot/internal/ssa"
)

// preview builds plan's two sides without writing: the live objects apply would touch (rendered ones,
// owned ones it would delete, the IP pools) and what they become (a server-side dry-run of each
// rendered object, so both sides carry the API server's defaults; the pools after pools.Decide).
// foreign are live objects apply would take over: present, not applied by calico-pilot.
func (a *Applier) preview(ctx context.Context, req Request, st State, res pipeline.Result) (Preview, []string, error) {
	o, err := split(res)
	if err != nil {
		return Preview{}, nil, err
	}
	var sides previewSides
	if sides.cmp, err = a.comparer(o.crds); err != nil {
		return Preview{}, nil, err
	}
	var foreign []string
	for _, u := range o.all() {
		isForeign, err := a.previewObject(ctx, req, st, u, &sides)
		if err != nil {
			return Preview{}, nil, err
		}
		if isForeign {
			foreign = append(foreign, refOf(u).String())
		}
	}
	a.previewPruned(ctx, prunable(st.Owned, refs(res)), &sides)
	findings, err := a.previewPools(ctx, req, st, res.Pools, &sides)
	if err != nil {
		return Preview{}, nil, err
	}
	p, err := sides.parse()
	if err != nil {
		return Preview{}, nil, err
	}
	p.PoolFindings, p.Drift, p.changes, p.replaced = findings, sides.drift, sides.changes, sides.replaced
	p.poolActions, p.poolRecords, p.ignored = sides.poolActions, sides.poolRecords, sides.ignored
	// The workloads first: they say best what install this is; CRDs last.
	slices.SortStableFunc(foreign, func(a, b string) int { return foreignRank(a) - foreignRank(b) })
	return p, foreign, nil
}

// previewSides are the objects of plan's two sides, as they are gathered.
type previewSides struct {
	current, target []client.Object
	// drift is what other managers hold in the rendered objects that exist.
	drift []Drift
	// changes are the rendered and pruned objects, each with its live object and what it becomes.
	changes []objectChange
	// replaced are the workloads replaced in place (replaceLive), by ObjectRef.String.
	replaced []string
	// ignored are the objects annotated IgnoreAnnotation "true", by ObjectRef.String.
	ignored []string
	// cmp says whether a server-side apply would leave an object as it is.
	cmp *ssa.Comparer
	// poolActions counts the pools the sync creates or patches; poolRecords is the pool intent after it.
	poolActions int
	poolRecords []pools.Record
}

// objectChange is one object of an apply: live is nil when it is created, after nil when it is
// deleted; unchanged is true when the apply leaves it as it is.
type objectChange struct {
	live, after *unstructured.Unstructured
	unchanged   bool
}

// previewObject adds rendered object u to both sides: the live one, if any, and u after a
// server-side dry run (u itself when it does not exist yet), without the fields of other managers
// that remove names it for; and the object's drift. isForeign says the live object exists and
// calico-pilot did not apply it.
func (a *Applier) previewObject(ctx context.Context, req Request, st State, u *unstructured.Unstructured, sides *previewSides) (isForeign bool, err error) {
	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(u.GroupVersionKind())
	err = a.Client.Get(ctx, client.ObjectKeyFromObject(u), live)
	switch {
	case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		// Only an existing object can be dry-run: a new one may need a CRD or namespace this
		// apply creates first.
		sides.target = append(sides.target, u.DeepCopy())
		sides.changes = append(sides.changes, objectChange{after: u})
		return false, nil
	case err != nil:
		return false, fmt.Errorf("reading %s: %w", refOf(u), err)
	}
	isForeign = !managedByUs(live) && !slices.Contains(st.Owned, refOf(u))
	sides.current = append(sides.current, comparable(live))
	if live.GetAnnotations()[IgnoreAnnotation] == "true" {
		// Its owner took it over for a while: apply leaves it as it is, and says so.
		sides.target = append(sides.target, comparable(live))
		sides.changes = append(sides.changes, objectChange{live: live, after: live, unchanged: true})
		sides.ignored = append(sides.ignored, refOf(u).String())
		return false, nil
	}
	after := u.DeepCopy()
	replaced := false
	// An object a server-side apply would leave as it is (internal/ssa, from the live object alone)
	// needs no dry run: what it becomes is what it is.
	same := false
	if sides.cmp != nil && !(req.takeover && isWorkload(u) && (!managedByUs(live) || ownedByOperator(live))) {
		same, _ = sides.cmp.Unchanged(u, live, FieldManager)
	}
	switch {
	case same:
		after = live.DeepCopy()
	case req.takeover && isWorkload(u):
		// The tigera operator's workload: replaced (replaceLive), so the dry run is the update's and
		// nothing of the operator's stays in it.
		replaced, err = a.replaceLive(ctx, after, true, false)
	}
	if err == nil && !replaced && !same {
		err = a.ssa(ctx, after, true)
	}
	if err != nil {
		return false, err
	}
	sides.target = append(sides.target, comparable(after))
	sides.changes = append(sides.changes, objectChange{live: live, after: after, unchanged: same || equality.Semantic.DeepEqual(comparable(live).Object, comparable(after).Object)})
	if replaced {
		sides.replaced = append(sides.replaced, refOf(u).String())
		return isForeign, nil
	}
	d, err := driftOf(live, after, isForeign)
	if err != nil {
		return false, err
	}
	if same && !req.DryRun && !wanted(req.RemoveForeign, d.Object) {
		// What others set in an object apply leaves as it is is listed by a dry run; a reconcile
		// that writes nothing asks the server nothing about it.
		return isForeign, nil
	}
	if d.keptPaths, err = a.withoutDefaults(ctx, after, d.keptPaths); err != nil {
		return false, err
	}
	d.Kept = nil
	for _, p := range d.keptPaths {
		if req.takeover && (p.String() == ".metadata.ownerReferences" || p.String() == ".metadata.finalizers") {
			// The takeover removes the operator's ownerReferences and finalizers itself (and says so).
			continue
		}
		d.Kept = append(d.Kept, p.String())
	}
	if len(d.Kept) == 0 {
		d.Managers = nil
	}
	sides.drift = append(sides.drift, d)
	if wanted(req.RemoveForeign, d.Object) && len(d.keptPaths) > 0 {
		removePaths(after.Object, d.keptPaths)
		sides.target[len(sides.target)-1] = comparable(after)
		sides.changes[len(sides.changes)-1].unchanged = false
	}
	return isForeign, nil
}

// comparer is the no-op judge for the rendered CRDs crds, built once per set of CRDs (by their
// content) and kept by the applier: a controller's every reconcile asks it.
func (a *Applier) comparer(crds []*unstructured.Unstructured) (*ssa.Comparer, error) {
	h := sha256.New()
	for _, u := range crds {
		b, err := json.Marshal(u.Object)
		if err != nil {
			return nil, err
		}
		h.Write(b)
	}
	key := hex.EncodeToString(h.Sum(nil))
	a.cmpMu.Lock()
	defer a.cmpMu.Unlock()
	if c, ok := a.cmps[key]; ok {
		return c, nil
	}
	c, err := ssa.NewComparer(typedCRDs(crds)...)
	if err != nil {
		return nil, err
	}
	if a.cmps == nil {
		a.cmps = map[string]*ssa.Comparer{}
	}
	a.cmps[key] = c
	return c, nil
}

// typedCRDs are the rendered CRDs as typed objects (the ones that do not decode are left out: their
// custom resources are then judged changed, which is safe).
func typedCRDs(us []*unstructured.Unstructured) []*apiextensionsv1.CustomResourceDefinition {
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, u := range us {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, crd) == nil {
			out = append(out, crd)
		}
	}
	return out
}

// withoutDefaults drops from paths the fields whose value is the API server's default: another
// manager that created the object with an update owns them, but removing them changes nothing (the
// server sets them again). It asks the server with a dry-run update of obj without them.
func (a *Applier) withoutDefaults(ctx context.Context, obj *unstructured.Unstructured, paths []fieldpath.Path) ([]fieldpath.Path, error) {
	if len(paths) == 0 {
		return paths, nil
	}
	trial := obj.DeepCopy()
	removePaths(trial.Object, paths)
	if err := a.Client.Update(ctx, trial, client.DryRunAll, client.FieldOwner(FieldManager)); err != nil {
		// Without the fields the object does not validate (a required field): all of them matter.
		return paths, nil
	}
	var out []fieldpath.Path
	for _, p := range paths {
		was, _ := valueAt(obj.Object, p)
		now, back := valueAt(trial.Object, p)
		if !back || !equality.Semantic.DeepEqual(was, now) {
			out = append(out, p)
		}
	}
	return out, nil
}

// previewPruned adds the live objects apply would delete (gone ones are left out) to the current side.
func (a *Applier) previewPruned(ctx context.Context, pruned []ObjectRef, sides *previewSides) {
	for _, r := range pruned {
		live := r.object()
		if err := a.Client.Get(ctx, client.ObjectKey{Namespace: r.Namespace, Name: r.Name}, live); err == nil {
			sides.current = append(sides.current, comparable(live))
			sides.changes = append(sides.changes, objectChange{live: live})
		}
	}
}

// previewPools adds the live IP pools to the current side and, after pools.Decide, to the target;
// it returns what the sync would report.
func (a *Applier) previewPools(ctx context.Context, req Request, st State, desired []calicov1.IPPool, sides *previewSides) ([]pools.Finding, error) {
	var livePools calicov1.IPPoolList
	if err := a.Client.List(ctx, &livePools); err != nil && !meta.IsNoMatchError(err) {
		return nil, fmt.Errorf("listing IP pools: %w", err)
	}
	after := map[string]*calicov1.IPPool{}
	for i := range livePools.Items {
		p := livePools.Items[i].DeepCopy()
		sides.current = append(sides.current, typedComparable(p))
		after[p.Name] = p.DeepCopy()
	}
	res := adoptPools(req.encapsulationStated, pools.Decide(desired, livePools.Items, pools.FromStatus(st.Pools), a.Now()), desired, livePools.Items)
	for _, act := range res.Actions {
		switch act.Kind {
		case pools.ActionCreate:
			after[act.Name] = act.Object.DeepCopy()
		case pools.ActionPatchEncapsulation:
			after[act.Name].Spec.IPIPMode, after[act.Name].Spec.VXLANMode = act.IPIPMode, act.VXLANMode
		}
	}
	for _, p := range after {
		sides.target = append(sides.target, typedComparable(p))
	}
	sides.poolActions, sides.poolRecords = len(res.Actions), res.Records
	return res.Findings, nil
}

// parse reads both sides as plan compares them.
func (s previewSides) parse() (Preview, error) {
	parser, err := manifestdiff.NewParser()
	if err != nil {
		return Preview{}, err
	}
	cur, err := parser.Objects(s.current)
	if err != nil {
		return Preview{}, fmt.Errorf("reading the live objects: %w", err)
	}
	tgt, err := parser.Objects(s.target)
	if err != nil {
		return Preview{}, fmt.Errorf("reading the rendered objects: %w", err)
	}
	return Preview{Current: cur, Target: tgt}, nil
}

// foreignRank orders the objects apply would take over: workloads, then the rest, then CRDs.
func foreignRank(s string) int {
	switch {
	case strings.HasPrefix(s, "DaemonSet ") || strings.HasPrefix(s, "Deployment "):
		return 0
	case strings.HasPrefix(s, "CustomResourceDefinition "):
		return 2
	}
	return 1
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
