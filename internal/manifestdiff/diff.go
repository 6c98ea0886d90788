package manifestdiff

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// Op is what happened to an object or a field.
type Op string

const (
	// OpAdded is an object or field only the new set has.
	OpAdded Op = "added"
	// OpRemoved is an object or field only the old set has.
	OpRemoved Op = "removed"
	// OpChanged is an object or field both sets have, with different content.
	OpChanged Op = "changed"
	// OpReordered is a keyed list whose items are all equal but in another order. Kubernetes
	// stores lists in order, so for a pod template this still starts a rollout.
	OpReordered Op = "reordered"
)

// Diff is the result of Compare.
type Diff struct {
	// Objects are the added, removed and changed objects, sorted by identity (kind, group,
	// namespace, name).
	Objects []*ObjectDiff
	// Unchanged counts the objects that are equal in both sets.
	Unchanged int
	// Old and New are the compared sets; rules read them for cross-object questions (which
	// workloads mount this ConfigMap?).
	Old, New *Set
}

// ObjectDiff is one added, removed or changed object.
type ObjectDiff struct {
	ID ObjectID
	Op Op
	// OldAPIVersion and NewAPIVersion are the apiVersions as written (empty on the missing side).
	OldAPIVersion, NewAPIVersion string
	// Changes are the changed fields of a changed object, in document order (map keys sorted,
	// list items in the new order, removed items after them).
	Changes []*FieldChange
	// Impacts are the impacts of adding or removing the whole object (set by Classify).
	Impacts []Impact
	// Old and New are the objects (nil on the missing side).
	Old, New *Object
}

// FieldChange is one changed field of a changed object.
type FieldChange struct {
	// Path is JSONPath-like: map keys joined by dots (a key that is not a plain word is written
	// ["key"]), list items selected by their merge key ([name=calico-node],
	// [kind=ServiceAccount,namespace=kube-system,name=calico-node]) or, in lists without one, by
	// index ([2]; the old index for a removed item, the new index otherwise).
	Path string
	Op   Op
	// Old and New are the values (nil when absent or Redacted). For OpReordered they are the key
	// lists in old and new order.
	Old, New any
	// Redacted is true for Secret data: the values are never kept.
	Redacted bool
	// Impacts are set by Classify.
	Impacts []Impact
	// fields are the map keys along Path; list selections appear as "[]".
	fields []string
}

// Fields returns the map keys along the path, with "[]" for each list item selection, e.g.
// [spec template spec containers [] env [] value].
func (c *FieldChange) Fields() []string { return c.fields }

// HasPrefix tells whether the change is at or below the given field names ("[]" matches any list
// item), e.g. HasPrefix("spec", "template").
func (c *FieldChange) HasPrefix(fields ...string) bool {
	if len(fields) > len(c.fields) {
		return false
	}
	for i, f := range fields {
		if c.fields[i] != f {
			return false
		}
	}
	return true
}

// Compare returns the differences between old (deployed now) and new (would deploy).
func Compare(old, new *Set) *Diff {
	d := &Diff{Old: old, New: new}
	ids := map[ObjectID]bool{}
	for id := range old.objects {
		ids[id] = true
	}
	for id := range new.objects {
		ids[id] = true
	}
	sorted := make([]ObjectID, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].less(sorted[j]) })
	for _, id := range sorted {
		o, n := old.objects[id], new.objects[id]
		switch {
		case o == nil:
			d.Objects = append(d.Objects, &ObjectDiff{ID: id, Op: OpAdded, NewAPIVersion: n.APIVersion, New: n})
		case n == nil:
			d.Objects = append(d.Objects, &ObjectDiff{ID: id, Op: OpRemoved, OldAPIVersion: o.APIVersion, Old: o})
		default:
			w := &walker{secret: id.Group == "" && id.Kind == "Secret"}
			w.value(nil, "", o.Content, n.Content)
			if len(w.changes) == 0 {
				d.Unchanged++
				continue
			}
			d.Objects = append(d.Objects, &ObjectDiff{ID: id, Op: OpChanged, OldAPIVersion: o.APIVersion,
				NewAPIVersion: n.APIVersion, Changes: w.changes, Old: o, New: n})
		}
	}
	return d
}

// walker collects the changes of one object.
type walker struct {
	secret  bool
	changes []*FieldChange
}

func (w *walker) add(fields []string, path string, op Op, old, new any) {
	c := &FieldChange{Path: path, Op: op, Old: old, New: new, fields: append([]string(nil), fields...)}
	if w.secret && len(fields) > 0 && (fields[0] == "data" || fields[0] == "stringData") {
		c.Old, c.New, c.Redacted = nil, nil, true
	}
	w.changes = append(w.changes, c)
}

// value compares two values at path.
func (w *walker) value(fields []string, path string, old, new any) {
	switch o := old.(type) {
	case map[string]any:
		if n, ok := new.(map[string]any); ok {
			w.maps(fields, path, o, n)
			return
		}
	case []any:
		if n, ok := new.([]any); ok {
			w.lists(fields, path, o, n)
			return
		}
	}
	if !reflect.DeepEqual(old, new) {
		w.add(fields, path, OpChanged, old, new)
	}
}

func (w *walker) maps(fields []string, path string, old, new map[string]any) {
	keys := make([]string, 0, len(old)+len(new))
	for k := range old {
		keys = append(keys, k)
	}
	for k := range new {
		if _, ok := old[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := joinKey(path, k)
		f := append(fields, k)
		ov, inOld := old[k]
		nv, inNew := new[k]
		switch {
		case !inOld:
			w.add(f, p, OpAdded, nil, nv)
		case !inNew:
			w.add(f, p, OpRemoved, ov, nil)
		default:
			w.value(f, p, ov, nv)
		}
	}
}

// joinKey appends a map key to a path.
func joinKey(path, k string) string {
	if plainWord(k) {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	return path + "[" + fmt.Sprintf("%q", k) + "]"
}

// mergeKeys are the fields that identify the items of a list, by the list's field name, in order
// of preference. They follow the Kubernetes API's patch merge keys where those are unique (env,
// containers, volumes by name; volumeMounts by mountPath), and name-first for ports so that a port
// renumbering shows as a value change. A candidate is used only if every item of both lists has
// its first field and the key tuples are unique; otherwise items are aligned by content.
var mergeKeys = map[string][][]string{
	"containers": {{"name"}}, "initContainers": {{"name"}}, "ephemeralContainers": {{"name"}},
	"env": {{"name"}}, "volumes": {{"name"}}, "volumeMounts": {{"mountPath"}}, "volumeDevices": {{"devicePath"}},
	"ports":            {{"name"}, {"containerPort", "protocol"}, {"port", "protocol"}},
	"imagePullSecrets": {{"name"}}, "secrets": {{"name"}}, "hostAliases": {{"ip"}},
	"conditions": {{"type"}}, "readinessGates": {{"conditionType"}}, "resourceClaims": {{"name"}},
	"containerPolicies": {{"containerName"}}, "versions": {{"name"}}, "webhooks": {{"name"}},
	"subjects": {{"kind", "namespace", "name"}}, "items": {{"key"}}, "sources": {{"name"}},
	"topologySpreadConstraints": {{"topologyKey", "whenUnsatisfiable"}},
}

// keyOf returns the selector of item for key ("name=calico-node"), or ok=false.
func keyOf(item any, key []string) (string, bool) {
	m, ok := item.(map[string]any)
	if !ok {
		return "", false
	}
	parts := make([]string, 0, len(key))
	for i, f := range key {
		v, present := m[f]
		if !present {
			if i == 0 {
				return "", false
			}
			continue
		}
		var s string
		switch t := v.(type) {
		case string:
			s = t
		case int64, float64, bool:
			s = fmt.Sprint(t)
		default:
			return "", false
		}
		parts = append(parts, f+"="+quoteSelector(s))
	}
	return strings.Join(parts, ","), true
}

// quoteSelector quotes a selector value that would make the path ambiguous.
func quoteSelector(s string) string {
	if s == "" || strings.ContainsAny(s, "[]=,\" \t\n") {
		return fmt.Sprintf("%q", s)
	}
	return s
}

// chooseKey returns the first merge key that identifies every item of both lists uniquely.
func chooseKey(field string, old, new []any) []string {
	for _, key := range mergeKeys[field] {
		if uniqueKeys(old, key) && uniqueKeys(new, key) {
			return key
		}
	}
	return nil
}

func uniqueKeys(items []any, key []string) bool {
	seen := make(map[string]bool, len(items))
	for _, it := range items {
		k, ok := keyOf(it, key)
		if !ok || seen[k] {
			return false
		}
		seen[k] = true
	}
	return true
}

func (w *walker) lists(fields []string, path string, old, new []any) {
	if reflect.DeepEqual(old, new) {
		return
	}
	field := ""
	if len(fields) > 0 {
		field = fields[len(fields)-1]
	}
	if !allMaps(old) || !allMaps(new) {
		// Lists of scalars (command, args, allowedUses) are one value: their order matters.
		w.add(fields, path, OpChanged, old, new)
		return
	}
	f := append(fields, "[]")
	if key := chooseKey(field, old, new); key != nil {
		w.keyed(f, path, key, old, new)
		return
	}
	w.aligned(f, path, old, new)
}

func allMaps(items []any) bool {
	for _, it := range items {
		if _, ok := it.(map[string]any); !ok {
			return false
		}
	}
	return true
}

// keyed compares lists whose items have a merge key.
func (w *walker) keyed(fields []string, path string, key []string, old, new []any) {
	oldIdx := make(map[string]int, len(old))
	for i, it := range old {
		k, _ := keyOf(it, key)
		oldIdx[k] = i
	}
	var newOrder []string
	inNew := make(map[string]bool, len(new))
	for _, it := range new {
		k, _ := keyOf(it, key)
		inNew[k] = true
		p := path + "[" + k + "]"
		if i, ok := oldIdx[k]; ok {
			newOrder = append(newOrder, k)
			w.value(fields, p, old[i], it)
		} else {
			w.add(fields, p, OpAdded, nil, it)
		}
	}
	var oldOrder []string
	for _, it := range old {
		k, _ := keyOf(it, key)
		if inNew[k] {
			oldOrder = append(oldOrder, k)
			continue
		}
		w.add(fields, path+"["+k+"]", OpRemoved, it, nil)
	}
	if !reflect.DeepEqual(oldOrder, newOrder) {
		w.add(fields[:len(fields)-1], path, OpReordered, toAny(oldOrder), toAny(newOrder))
	}
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// maxAlign bounds the size of the table used to align lists without a merge key.
const maxAlign = 1 << 20

// aligned compares lists without a merge key: equal items are matched in order (longest common
// subsequence); between matches, removed and added items are paired by position and compared
// field by field, and the rest are removed or added.
func (w *walker) aligned(fields []string, path string, old, new []any) {
	n, m := len(old), len(new)
	type step struct{ i, j int } // a matched pair
	var matches []step
	if n*m <= maxAlign {
		lcs := make([][]int32, n+1)
		for i := range lcs {
			lcs[i] = make([]int32, m+1)
		}
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if reflect.DeepEqual(old[i], new[j]) {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		for i, j := 0, 0; i < n && j < m; {
			switch {
			case reflect.DeepEqual(old[i], new[j]):
				matches = append(matches, step{i, j})
				i++
				j++
			case lcs[i+1][j] >= lcs[i][j+1]:
				i++
			default:
				j++
			}
		}
	}
	matches = append(matches, step{n, m}) // sentinel
	pi, pj := 0, 0
	for _, s := range matches {
		dels, adds := s.i-pi, s.j-pj
		pairs := min(dels, adds)
		for k := 0; k < pairs; k++ {
			w.value(fields, fmt.Sprintf("%s[%d]", path, pj+k), old[pi+k], new[pj+k])
		}
		for k := pairs; k < adds; k++ {
			w.add(fields, fmt.Sprintf("%s[%d]", path, pj+k), OpAdded, nil, new[pj+k])
		}
		for k := pairs; k < dels; k++ {
			w.add(fields, fmt.Sprintf("%s[%d]", path, pi+k), OpRemoved, old[pi+k], nil)
		}
		pi, pj = s.i+1, s.j+1
	}
}
