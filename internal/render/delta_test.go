package render_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// deltaDir holds, for every scenario without whole golden files, what its decisions change in
// the render compared with the closest golden scenario: testdata/delta/<scenario>.txt. With the
// golden scenarios' files this pins every scenario's every rendered value, while a change common
// to all shoots (one env variable of calico-node) rewrites only the golden files.
var deltaDir = filepath.Join("testdata", "delta")

// flatObject is one rendered object as "path = value" lines, keyed by path.
type flatObject struct {
	id    string
	paths map[string]string
}

// flatten renders a scenario and flattens each object: leaf values JSON-encoded; an element of
// a list is addressed by its name when every element of that list is a map with a distinct
// "name" (containers, env, volumes, ports), else by its index; the names' order is the value of
// path[*].
func flatten(t testing.TB, sc scenario) []flatObject {
	t.Helper()
	objs := renderScenario(t, sc)
	out := make([]flatObject, 0, len(objs))
	for _, o := range objs {
		out = append(out, flattenObject(t, o))
	}
	return out
}

func flattenObject(t testing.TB, o client.Object) flatObject {
	t.Helper()
	raw, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	kind := o.GetObjectKind().GroupVersionKind().Kind
	f := flatObject{id: fmt.Sprintf("%s %s/%s", kind, o.GetNamespace(), o.GetName()), paths: map[string]string{}}
	flattenValue("", v, f.paths)
	return f
}

func flattenValue(path string, v any, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			out[path] = "{}"
			return
		}
		for k, e := range x {
			p := k
			if path != "" {
				p = path + "." + k
			}
			flattenValue(p, e, out)
		}
	case []any:
		if len(x) == 0 {
			out[path] = "[]"
			return
		}
		names := listNames(x)
		if names != nil {
			// Addressed by name, the elements' order is recorded on its own.
			out[path+"[*]"] = leaf(names)
		}
		for i, e := range x {
			key := strconv.Itoa(i)
			if names != nil {
				key = names[i]
			}
			flattenValue(path+"["+key+"]", e, out)
		}
	default:
		if _, dup := out[path]; dup {
			// Two values under one path would hide a difference: a key with "." or "[" in it.
			panic(fmt.Sprintf("flatten: path %q occurs twice", path))
		}
		out[path] = leaf(x)
	}
}

// leaf is a value as one line of JSON, without HTML escaping (readable "&&" and "<").
func leaf(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("flatten: %v", err))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// listNames returns the "name" of every element, or nil unless each element is a map with a
// distinct string name.
func listNames(list []any) []string {
	names := make([]string, len(list))
	seen := map[string]bool{}
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil
		}
		n, ok := m["name"].(string)
		if !ok || seen[n] {
			return nil
		}
		seen[n] = true
		names[i] = n
	}
	return names
}

// delta lists what scenario objects s change compared with base: objects added (with every
// value), objects removed, and per changed object the values removed (-) and added (+), paths in
// order. A multi-line string value that changed (a script, the CNI configuration) is shown line by
// line, "path | text" for each line removed or added (lineDiff), so a one-line change in it reads
// as one line.
func delta(base, s []flatObject) []string {
	var lines []string
	inBase := map[string]flatObject{}
	for _, o := range base {
		inBase[o.id] = o
	}
	inS := map[string]bool{}
	for _, o := range s {
		inS[o.id] = true
		b, ok := inBase[o.id]
		if !ok {
			lines = append(lines, "+ "+o.id)
			for _, p := range slices.Sorted(maps.Keys(o.paths)) {
				lines = append(lines, "    "+p+" = "+o.paths[p])
			}
			continue
		}
		var changes []string
		for _, p := range slices.Sorted(maps.Keys(union(b.paths, o.paths))) {
			old, hadOld := b.paths[p]
			nw, hasNew := o.paths[p]
			if hadOld && hasNew && old == nw {
				continue
			}
			if hadOld && hasNew {
				a, okA := stringLines(old)
				b, okB := stringLines(nw)
				if okA && okB {
					changes = append(changes, lineDiff(p, a, b)...)
					continue
				}
			}
			if hadOld {
				changes = append(changes, "  - "+p+" = "+old)
			}
			if hasNew {
				changes = append(changes, "  + "+p+" = "+nw)
			}
		}
		if len(changes) > 0 {
			lines = append(lines, "~ "+o.id)
			lines = append(lines, changes...)
		}
	}
	for _, o := range base {
		if !inS[o.id] {
			lines = append(lines, "- "+o.id)
		}
	}
	return lines
}

func union(a, b map[string]string) map[string]string {
	u := make(map[string]string, len(a)+len(b))
	for k, v := range a {
		u[k] = v
	}
	for k, v := range b {
		u[k] = v
	}
	return u
}

const deltaHeader = "# what this scenario's decisions change in the render compared with golden scenario "

func deltaFile(name, base string, lines []string) []byte {
	var b bytes.Buffer
	b.WriteString(deltaHeader + base + "\n")
	b.WriteString("# (+ object added, - object removed, ~ object changed: - value removed, + value added; \"path | text\": a line of a multi-line string)\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	return b.Bytes()
}

// TestDecisionDeltas compares every non-golden scenario with testdata/delta/<scenario>.txt: what
// its decisions change in the render compared with the golden scenario named in the file's first
// line. -update picks the golden scenario with the smallest delta.
func TestDecisionDeltas(t *testing.T) {
	golden := map[string][]flatObject{}
	var goldenNames []string
	for _, sc := range scenarios {
		if sc.Golden {
			golden[sc.Name] = flatten(t, sc)
			goldenNames = append(goldenNames, sc.Name)
		}
	}
	for _, sc := range scenarios {
		if sc.Golden {
			continue
		}
		t.Run(sc.Name, func(t *testing.T) {
			s := flatten(t, sc)
			path := filepath.Join(deltaDir, sc.Name+".txt")
			if *update {
				best, bestLines := "", []string(nil)
				for _, g := range goldenNames {
					if l := delta(golden[g], s); best == "" || len(l) < len(bestLines) {
						best, bestLines = g, l
					}
				}
				if err := os.MkdirAll(deltaDir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, deltaFile(sc.Name, best, bestLines), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("reading delta file: %v (run: go test ./internal/render/... -update)", err)
			}
			first, _, _ := strings.Cut(string(want), "\n")
			base, ok := strings.CutPrefix(first, deltaHeader)
			if !ok || golden[base] == nil {
				t.Fatalf("%s: first line %q does not name a golden scenario", path, first)
			}
			got := deltaFile(sc.Name, base, delta(golden[base], s))
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the rendered output (-file +rendered):\n%s\nIf the change is intended, run: go test ./internal/render/... -update",
					path, shortDiff(cmp.Diff(string(want), string(got))))
			}
		})
	}
}
