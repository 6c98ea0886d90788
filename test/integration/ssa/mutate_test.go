package ssa

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Other managers in the tests: an edit as kubectl edit makes it (an update) and another applier.
const (
	editor  = "kubectl-edit"
	applier = "other-applier"
)

// TestEditsAgainstRealApplies: for every rendered object of a variant per layout, edits of the render
// and of the live object, each judged and then applied for real. The judgement must be what the
// apply does (unchanged exactly when the resourceVersion stays), and what the case expects:
//   - a rendered value changed, a rendered field removed: changed;
//   - another manager changed a field calico-pilot renders (an update): changed, the apply takes it back;
//   - another manager added a label or a list item calico-pilot does not render: unchanged;
//   - another manager applied calico-pilot's value of a field (shared ownership): unchanged.
//
// Workloads and CRDs get edits deep in their lists and schemas too.
func TestEditsAgainstRealApplies(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	all := variants()
	for _, v := range []variant{all[0], all[len(all)-1]} {
		t.Run(v.String(), func(t *testing.T) {
			objs := render(t, v)
			e.applyAll(ctx, t, objs)
			for _, u := range objs {
				t.Run(id(u), func(t *testing.T) { e.editCases(ctx, t, u) })
			}
		})
	}
}

// editCases runs the edits of one object; each starts from u as applied.
func (e *env) editCases(ctx context.Context, t *testing.T, u *unstructured.Unstructured) {
	labels := u.GetLabels()
	keys := sortedKeys(labels)
	if len(keys) > 0 {
		k := keys[0]
		e.check(ctx, t, "rendered label value changed", withLabel(u, k, labels[k]+"-x"), false)
		e.restore(ctx, t, u)
		removed := u.DeepCopy()
		unstructured.RemoveNestedField(removed.Object, "metadata", "labels", k)
		e.check(ctx, t, "rendered label removed", removed, false)
		e.restore(ctx, t, u)

		e.edit(ctx, t, u, editor, func(live *unstructured.Unstructured) { setLabel(live, k, labels[k]+"-edited") })
		e.check(ctx, t, "label changed by "+editor, u, false)

		// Another applier states calico-pilot's own value: both own it, nothing for calico-pilot to do.
		same := &unstructured.Unstructured{}
		same.SetGroupVersionKind(u.GroupVersionKind())
		same.SetNamespace(u.GetNamespace())
		same.SetName(u.GetName())
		same.SetLabels(map[string]string{k: labels[k]})
		if err := e.c.Apply(ctx, client.ApplyConfigurationFromUnstructured(same), client.FieldOwner(applier)); err != nil {
			t.Fatalf("%s applying the same label: %v", applier, err)
		}
		e.check(ctx, t, "label co-owned by "+applier, u, true)
	} else {
		e.check(ctx, t, "rendered annotation added", withAnnotation(u, "ssa.test/added", "x"), false)
		e.restore(ctx, t, u)
	}
	e.edit(ctx, t, u, editor, func(live *unstructured.Unstructured) { setLabel(live, "ssa.test/foreign", "x") })
	e.check(ctx, t, "label added by "+editor, u, true)
	// The render states the editor's label with its value: calico-pilot takes it on, a write.
	e.check(ctx, t, "rendered label only "+editor+" owned", withLabel(u, "ssa.test/foreign", "x"), false)
	e.restore(ctx, t, u)

	switch u.GetKind() {
	case "DaemonSet", "Deployment":
		e.workloadCases(ctx, t, u)
	case "CustomResourceDefinition":
		e.crdCases(ctx, t, u)
	}
}

func (e *env) workloadCases(ctx context.Context, t *testing.T, u *unstructured.Unstructured) {
	containers := func(o map[string]any) []any {
		cs, _, _ := unstructured.NestedSlice(o, "spec", "template", "spec", "containers")
		return cs
	}
	setContainers := func(o map[string]any, cs []any) {
		if err := unstructured.SetNestedSlice(o, cs, "spec", "template", "spec", "containers"); err != nil {
			t.Fatal(err)
		}
	}
	changed := u.DeepCopy()
	cs := containers(changed.Object)
	c0 := cs[0].(map[string]any)
	c0["image"] = c0["image"].(string) + "-x"
	setContainers(changed.Object, cs)
	e.check(ctx, t, "rendered image changed", changed, false)
	e.restore(ctx, t, u)

	if env, _, _ := unstructured.NestedSlice(containers(u.Object)[0].(map[string]any), "env"); len(env) > 0 {
		removed := u.DeepCopy()
		cs := containers(removed.Object)
		c0 := cs[0].(map[string]any)
		c0["env"] = env[1:]
		setContainers(removed.Object, cs)
		e.check(ctx, t, "rendered env var removed", removed, false)
		e.restore(ctx, t, u)
	}

	// A quantity in another form than the canonical one the server stores: another value for the
	// merge, so the server stamps a new time, but the objects are equal (the quantity's value) but
	// for that time, so it keeps the old one and writes nothing.
	withCPU := func(cpu string) *unstructured.Unstructured {
		o := u.DeepCopy()
		cs := containers(o.Object)
		c0 := cs[0].(map[string]any)
		c0["resources"] = map[string]any{"requests": map[string]any{"cpu": cpu}}
		setContainers(o.Object, cs)
		return o
	}
	e.restore(ctx, t, withCPU("100m"))
	e.check(ctx, t, "rendered cpu request 100m again", withCPU("100m"), true)
	// managedFields times have seconds: a second later, the new stamp differs from the old one.
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second)))
	e.check(ctx, t, "rendered cpu request 0.1 for 100m", withCPU("0.1"), true)
	e.restore(ctx, t, u)

	e.edit(ctx, t, u, editor, func(live *unstructured.Unstructured) {
		cs := containers(live.Object)
		c0 := cs[0].(map[string]any)
		c0["image"] = c0["image"].(string) + "-edited"
		setContainers(live.Object, cs)
	})
	e.check(ctx, t, "image changed by "+editor, u, false)

	e.edit(ctx, t, u, editor, func(live *unstructured.Unstructured) {
		cs := containers(live.Object)
		c0 := cs[0].(map[string]any)
		env, _ := c0["env"].([]any)
		c0["env"] = append(env, map[string]any{"name": "SSA_TEST_FOREIGN", "value": "x"})
		setContainers(live.Object, cs)
	})
	e.check(ctx, t, "env var added by "+editor, u, true)
}

func (e *env) crdCases(ctx context.Context, t *testing.T, u *unstructured.Unstructured) {
	props := []string{"spec", "versions"}
	versions, _, _ := unstructured.NestedSlice(u.Object, props...)
	schemaProps := func(v any) map[string]any {
		p, _, _ := unstructured.NestedMap(v.(map[string]any), "schema", "openAPIV3Schema", "properties")
		return p
	}
	if len(versions) == 0 || len(schemaProps(versions[0])) == 0 {
		return
	}
	first := sortedKeys(schemaProps(versions[0]))[0]
	edit := func(o *unstructured.Unstructured, f func(p map[string]any)) {
		vs, _, _ := unstructured.NestedSlice(o.Object, props...)
		p := schemaProps(vs[0])
		f(p)
		if err := unstructured.SetNestedMap(vs[0].(map[string]any), p, "schema", "openAPIV3Schema", "properties"); err != nil {
			t.Fatal(err)
		}
		if err := unstructured.SetNestedSlice(o.Object, vs, props...); err != nil {
			t.Fatal(err)
		}
	}
	changed := u.DeepCopy()
	edit(changed, func(p map[string]any) {
		prop := p[first].(map[string]any)
		d, _ := prop["description"].(string)
		prop["description"] = d + " (changed)"
	})
	e.check(ctx, t, "rendered schema description changed", changed, false)
	e.restore(ctx, t, u)

	removed := u.DeepCopy()
	edit(removed, func(p map[string]any) { delete(p, first) })
	e.check(ctx, t, "rendered schema property removed", removed, false)
	e.restore(ctx, t, u)

	e.edit(ctx, t, u, editor, func(live *unstructured.Unstructured) {
		edit(live, func(p map[string]any) {
			prop := p[first].(map[string]any)
			d, _ := prop["description"].(string)
			prop["description"] = d + " (edited)"
		})
	})
	e.check(ctx, t, "schema description changed by "+editor, u, false)
}

// check judges rendered against the live object, then applies rendered as calico-pilot does: the
// judgement must say whether the apply wrote, and be wantUnchanged.
func (e *env) check(ctx context.Context, t *testing.T, name string, rendered *unstructured.Unstructured, wantUnchanged bool) {
	t.Helper()
	live, err := e.get(ctx, rendered)
	if err != nil {
		t.Fatal(err)
	}
	unchanged, reason := e.cmp.Unchanged(rendered, live, manager)
	after, err := e.apply(ctx, rendered, manager)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	wrote := after.GetResourceVersion() != live.GetResourceVersion()
	switch {
	case unchanged && wrote:
		t.Errorf("%s: judged unchanged, but the apply wrote (resourceVersion %s -> %s)", name, live.GetResourceVersion(), after.GetResourceVersion())
	case !unchanged && !wrote:
		t.Errorf("%s: judged changed (%s), but the apply wrote nothing", name, reason)
	case unchanged != wantUnchanged:
		t.Errorf("%s: judged unchanged=%v (%s), want %v", name, unchanged, reason, wantUnchanged)
	default:
		t.Logf("%s: unchanged=%v %s", name, unchanged, reason)
	}
}

// restore applies u again (after an apply of an edited render).
func (e *env) restore(ctx context.Context, t *testing.T, u *unstructured.Unstructured) {
	t.Helper()
	if _, err := e.apply(ctx, u, manager); err != nil {
		t.Fatal(err)
	}
}

// edit changes the live object of u with an update as fieldManager, as kubectl edit does.
func (e *env) edit(ctx context.Context, t *testing.T, u *unstructured.Unstructured, fieldManager string, f func(*unstructured.Unstructured)) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		live, err := e.get(ctx, u)
		if err != nil {
			return err
		}
		f(live)
		return e.c.Update(ctx, live, client.FieldOwner(fieldManager))
	})
	if err != nil {
		t.Fatalf("editing %s as %s: %v", id(u), fieldManager, err)
	}
}

func withLabel(u *unstructured.Unstructured, k, v string) *unstructured.Unstructured {
	out := u.DeepCopy()
	setLabel(out, k, v)
	return out
}

func setLabel(u *unstructured.Unstructured, k, v string) {
	l := u.GetLabels()
	if l == nil {
		l = map[string]string{}
	}
	l[k] = v
	u.SetLabels(l)
}

func withAnnotation(u *unstructured.Unstructured, k, v string) *unstructured.Unstructured {
	out := u.DeepCopy()
	a := out.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[k] = v
	out.SetAnnotations(a)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, strings.Compare)
	return keys
}
