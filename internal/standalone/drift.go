package standalone

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// RemoveAll is the --remove-foreign value that names every object.
const RemoveAll = "all"

// Drift is what other field managers hold in one of calico-pilot's objects.
type Drift struct {
	Object string
	// Managers are the other managers holding Kept.
	Managers []string
	// Kept are the fields another manager set that calico-pilot does not render: server-side apply
	// keeps them (removed only with --remove-foreign OBJECT).
	Kept []string
	// Restored are the fields of calico-pilot's that another manager changed: apply takes them back.
	Restored []string
	// RestoredBy are the managers that hold each field of Restored in the live object.
	RestoredBy map[string][]string

	keptPaths []fieldpath.Path
}

// serverSet are fields the API server or the workload controllers write in every object: never drift.
var serverSet = []string{
	".metadata.annotations.deprecated.daemonset.template.generation",
	".metadata.annotations.deployment.kubernetes.io/revision",
	".metadata.annotations.kubectl.kubernetes.io/last-applied-configuration",
}

// foreignRoots are the topmost fields of obj held by managers other than calico-pilot and not by
// calico-pilot's apply, with those managers; status and the server's own fields are left out.
func foreignRoots(obj *unstructured.Unstructured) ([]fieldpath.Path, []string, error) {
	ours, others := fieldpath.NewSet(), fieldpath.NewSet()
	var managers []string
	for _, m := range obj.GetManagedFields() {
		if m.FieldsV1 == nil || m.Subresource == "status" {
			continue
		}
		s := fieldpath.NewSet()
		if err := s.FromJSON(bytes.NewReader(m.FieldsV1.Raw)); err != nil {
			return nil, nil, fmt.Errorf("reading the managed fields of %s: %w", refOf(obj), err)
		}
		if m.Manager == FieldManager && m.Operation == metav1.ManagedFieldsOperationApply {
			ours = ours.Union(s)
			continue
		}
		if m.Manager != FieldManager && !slices.Contains(managers, m.Manager) {
			managers = append(managers, m.Manager)
		}
		others = others.Union(s)
	}
	foreign := others.Difference(ours)
	var roots []fieldpath.Path
	foreign.Iterate(func(p fieldpath.Path) {
		if isServerSet(p) || ownsBelow(ours, p) {
			// A map or list whose members calico-pilot sets is not another manager's field.
			return
		}
		for i := 1; i < len(p); i++ {
			if foreign.Has(p[:i]) {
				return
			}
		}
		roots = append(roots, p.Copy())
	})
	sort.Slice(roots, func(i, j int) bool { return roots[i].String() < roots[j].String() })
	sort.Strings(managers)
	return roots, managers, nil
}

// ownsBelow says whether set holds a field below p.
func ownsBelow(set *fieldpath.Set, p fieldpath.Path) bool {
	found := false
	set.Iterate(func(q fieldpath.Path) {
		if !found && len(q) > len(p) && q[:len(p)].Equals(p) {
			found = true
		}
	})
	return found
}

func isServerSet(p fieldpath.Path) bool {
	s := p.String()
	return slices.Contains(serverSet, s) || strings.HasPrefix(s, ".status")
}

// driftOf is the drift of a rendered object: live as it is, after as a server-side dry run of
// calico-pilot's apply leaves it. adopting is true for an object calico-pilot did not apply yet
// (every field of its is restored: only the kept ones are news).
func driftOf(live, after *unstructured.Unstructured, adopting bool) (Drift, error) {
	d := Drift{Object: refOf(after).String()}
	kept, managers, err := foreignRoots(after)
	if err != nil {
		return d, err
	}
	d.keptPaths = kept
	for _, p := range kept {
		d.Kept = append(d.Kept, p.String())
	}
	if len(kept) > 0 {
		d.Managers = managers
	}
	if adopting {
		return d, nil
	}
	before, _, err := foreignRoots(live)
	if err != nil {
		return d, err
	}
	for _, p := range before {
		if !slices.Contains(d.Kept, p.String()) {
			d.Restored = append(d.Restored, p.String())
			if d.RestoredBy == nil {
				d.RestoredBy = map[string][]string{}
			}
			if d.RestoredBy[p.String()], err = managersAt(live, p); err != nil {
				return d, err
			}
		}
	}
	return d, nil
}

// managersAt are the managers other than calico-pilot that hold p, or a field below it, in obj.
func managersAt(obj *unstructured.Unstructured, p fieldpath.Path) ([]string, error) {
	var out []string
	for _, m := range obj.GetManagedFields() {
		if m.FieldsV1 == nil || m.Subresource == "status" || m.Manager == FieldManager || slices.Contains(out, m.Manager) {
			continue
		}
		s := fieldpath.NewSet()
		if err := s.FromJSON(bytes.NewReader(m.FieldsV1.Raw)); err != nil {
			return nil, fmt.Errorf("reading the managed fields of %s: %w", refOf(obj), err)
		}
		if s.Has(p) || ownsBelow(s, p) {
			out = append(out, m.Manager)
		}
	}
	sort.Strings(out)
	return out, nil
}

// empty is true when no other manager holds anything.
func (d Drift) empty() bool { return len(d.Kept) == 0 && len(d.Restored) == 0 }

// wanted is true when --remove-foreign names the object (or all).
func wanted(remove []string, object string) bool {
	return slices.Contains(remove, RemoveAll) || slices.Contains(remove, object)
}

// printDrift lists what other managers hold in calico-pilot's objects.
func printDrift(out io.Writer, drifts []Drift, remove []string) {
	var shown []Drift
	for _, d := range drifts {
		if !d.empty() {
			shown = append(shown, d)
		}
	}
	if len(shown) == 0 {
		return
	}
	fmt.Fprintf(out, "fields other managers set in calico-pilot's objects:\n")
	for _, d := range shown {
		for _, f := range d.Restored {
			fmt.Fprintf(out, "  %s: %s: changed by another manager, restored to calico-pilot's value\n", d.Object, f)
		}
		verdict := fmt.Sprintf("kept (set by %s; --remove-foreign %q removes them)", strings.Join(d.Managers, ", "), d.Object)
		if wanted(remove, d.Object) {
			verdict = fmt.Sprintf("removed (set by %s; --remove-foreign)", strings.Join(d.Managers, ", "))
		}
		for _, f := range d.Kept {
			fmt.Fprintf(out, "  %s: %s: %s\n", d.Object, f, verdict)
		}
	}
}

// removePaths deletes the fields at paths from obj (a field of a map, an element of a list by its
// keys, value or index). A path that is not there is skipped.
func removePaths(obj map[string]any, paths []fieldpath.Path) {
	for _, p := range paths {
		removePath(obj, p)
	}
}

func removePath(node any, p fieldpath.Path) any {
	if len(p) == 0 {
		return node
	}
	pe := p[0]
	switch n := node.(type) {
	case map[string]any:
		if pe.FieldName == nil {
			return node
		}
		child, ok := n[*pe.FieldName]
		if !ok {
			return node
		}
		if len(p) == 1 {
			delete(n, *pe.FieldName)
			return node
		}
		n[*pe.FieldName] = removePath(child, p[1:])
	case []any:
		for i, el := range n {
			if !elementMatches(el, i, pe) {
				continue
			}
			if len(p) == 1 {
				return append(n[:i:i], n[i+1:]...)
			}
			n[i] = removePath(el, p[1:])
			return n
		}
	}
	return node
}

// elementMatches says whether list element el (at index i) is the one pe names.
func elementMatches(el any, i int, pe fieldpath.PathElement) bool {
	switch {
	case pe.Index != nil:
		return *pe.Index == i
	case pe.Key != nil:
		m, ok := el.(map[string]any)
		if !ok {
			return false
		}
		for _, f := range *pe.Key {
			v, ok := m[f.Name]
			if !ok || !value.Equals(value.NewValueInterface(v), f.Value) {
				return false
			}
		}
		return true
	case pe.Value != nil:
		return value.Equals(value.NewValueInterface(el), *pe.Value)
	}
	return false
}

// valueAt is the value at path p of obj (ok false when it is not there).
func valueAt(node any, p fieldpath.Path) (any, bool) {
	for _, pe := range p {
		switch n := node.(type) {
		case map[string]any:
			if pe.FieldName == nil {
				return nil, false
			}
			v, ok := n[*pe.FieldName]
			if !ok {
				return nil, false
			}
			node = v
		case []any:
			found := false
			for i, el := range n {
				if elementMatches(el, i, pe) {
					node, found = el, true
					break
				}
			}
			if !found {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return node, true
}
