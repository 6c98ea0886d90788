package ssa

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// shown is how many paths a reason names of each kind of change.
const shown = 3

// explain says what the apply would change in live (after is live as the in-memory apply left it):
// the values first, then the ownership.
func (c *Comparer) explain(live, after *unstructured.Unstructured, manager string) string {
	var parts []string
	parts = append(parts, c.valueChanges(live, after)...)
	parts = append(parts, ownershipChanges(live, after, manager)...)
	if len(parts) == 0 {
		// Equal values and owners, yet not the same object: say where they part.
		parts = append(parts, "the object differs after the apply at "+firstDifference(live.Object, after.Object, ""))
	}
	return strings.Join(parts, "; ")
}

// valueChanges names the fields whose values the apply would add, change or remove.
func (c *Comparer) valueChanges(live, after *unstructured.Unstructured) []string {
	conv := c.converter(live.GroupVersionKind())
	lt, err := conv.ObjectToTyped(withoutManagedFields(live), typed.AllowDuplicates)
	if err != nil {
		return []string{"cannot read the live object: " + err.Error()}
	}
	at, err := conv.ObjectToTyped(withoutManagedFields(after), typed.AllowDuplicates)
	if err != nil {
		return []string{"cannot read the applied object: " + err.Error()}
	}
	cmp, err := lt.Compare(at)
	if err != nil {
		return []string{"cannot compare the applied object: " + err.Error()}
	}
	var out []string
	if s := paths(cmp.Modified); s != "" {
		out = append(out, "would change "+s)
	}
	if s := paths(cmp.Added); s != "" {
		out = append(out, "would add "+s)
	}
	if s := paths(cmp.Removed); s != "" {
		out = append(out, "would remove "+s)
	}
	return out
}

func withoutManagedFields(u *unstructured.Unstructured) *unstructured.Unstructured {
	meta, _ := u.Object["metadata"].(map[string]any)
	out := &unstructured.Unstructured{Object: make(map[string]any, len(u.Object))}
	for k, v := range u.Object {
		out.Object[k] = v
	}
	if meta != nil {
		m := make(map[string]any, len(meta))
		for k, v := range meta {
			if k != "managedFields" {
				m[k] = v
			}
		}
		out.Object["metadata"] = m
	}
	return out
}

// entryKey names a managedFields entry as the API server keys it.
type entryKey struct{ manager, operation, apiVersion, subresource string }

func (k entryKey) String() string {
	s := k.manager + " (" + k.operation
	if k.subresource != "" {
		s += " of " + k.subresource
	}
	return s + ")"
}

type entry struct {
	set  *fieldpath.Set
	time string
}

func entries(u *unstructured.Unstructured) (map[entryKey]entry, error) {
	out := map[entryKey]entry{}
	for _, m := range u.GetManagedFields() {
		set := &fieldpath.Set{}
		if m.FieldsV1 != nil {
			if err := set.FromJSON(bytes.NewReader(m.FieldsV1.Raw)); err != nil {
				return nil, fmt.Errorf("managedFields of %s: %w", m.Manager, err)
			}
		}
		out[entryKey{m.Manager, string(m.Operation), m.APIVersion, m.Subresource}] = entry{set: set, time: timeOf(m.Time)}
	}
	return out, nil
}

func timeOf(t *metav1.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().String()
}

// ownershipChanges names how the apply would change managedFields: what manager would take on or
// give up, what other managers would lose, and entries that would appear or go.
func ownershipChanges(live, after *unstructured.Unstructured, manager string) []string {
	before, err := entries(live)
	if err != nil {
		return []string{"cannot read live managedFields: " + err.Error()}
	}
	now, err := entries(after)
	if err != nil {
		return []string{"cannot read applied managedFields: " + err.Error()}
	}
	keys := make([]entryKey, 0, len(before)+len(now))
	for k := range before {
		keys = append(keys, k)
	}
	for k := range now {
		if _, ok := before[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b entryKey) int { return strings.Compare(a.String()+a.apiVersion, b.String()+b.apiVersion) })
	var out []string
	for _, k := range keys {
		b, inBefore := before[k]
		a, inAfter := now[k]
		ours := k.manager == manager && k.operation == string(metav1.ManagedFieldsOperationApply)
		switch {
		case !inBefore && ours:
			out = append(out, fmt.Sprintf("%s has applied no %s yet: the apply records %s", manager, k.apiVersion, paths(a.set)))
			continue
		case !inBefore:
			out = append(out, fmt.Sprintf("the apply records an entry of %s", k))
			continue
		case !inAfter:
			out = append(out, fmt.Sprintf("%s would own nothing any more (%s)", k, paths(b.set)))
			continue
		}
		gained, lost := paths(a.set.Difference(b.set)), paths(b.set.Difference(a.set))
		switch {
		case ours && gained != "":
			out = append(out, fmt.Sprintf("%s would take on %s", manager, gained))
		case gained != "":
			out = append(out, fmt.Sprintf("%s would gain %s", k, gained))
		}
		switch {
		case ours && lost != "":
			out = append(out, fmt.Sprintf("%s no longer renders %s (the apply removes what no other manager owns)", manager, lost))
		case lost != "":
			out = append(out, fmt.Sprintf("%s would lose %s to %s", k, lost, manager))
		}
		if ours && gained == "" && lost == "" && a.time != b.time {
			out = append(out, fmt.Sprintf("%s's apply time would change", manager))
		}
	}
	return out
}

// paths lists the leaf paths of s, the first few of them.
func paths(s *fieldpath.Set) string {
	if s == nil || s.Empty() {
		return ""
	}
	var all []string
	s.Leaves().Iterate(func(p fieldpath.Path) { all = append(all, p.String()) })
	if len(all) == 0 {
		s.Iterate(func(p fieldpath.Path) { all = append(all, p.String()) })
	}
	slices.Sort(all)
	if len(all) > shown {
		return strings.Join(all[:shown], ", ") + fmt.Sprintf(" and %d more", len(all)-shown)
	}
	return strings.Join(all, ", ")
}

// firstDifference is the path of the first place where a and b differ, for a reason of last resort.
func firstDifference(a, b any, at string) string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if !aok || !bok {
		return at
	}
	keys := make([]string, 0, len(am)+len(bm))
	for k := range am {
		keys = append(keys, k)
	}
	for k := range bm {
		if _, ok := am[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !reflect.DeepEqual(am[k], bm[k]) {
			return firstDifference(am[k], bm[k], at+"."+k)
		}
	}
	return at
}
