package manifestdiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// SchemaVersion identifies the JSON format written by WriteJSON. It changes only when a field is
// removed or changes meaning; new fields may be added within a version.
const SchemaVersion = "calico-pilot.manifestdiff/v1"

type jsonDiff struct {
	Schema   string       `json:"schema"`
	Summary  jsonSummary  `json:"summary"`
	Problems jsonProblems `json:"problems"`
	Objects  []jsonObject `json:"objects"`
}

type jsonSummary struct {
	Added     int           `json:"added"`
	Removed   int           `json:"removed"`
	Changed   int           `json:"changed"`
	Unchanged int           `json:"unchanged"`
	Highest   Class         `json:"highest"`
	Restarts  []string      `json:"restarts"`
	Deferred  []string      `json:"deferred"`
	Counts    map[Class]int `json:"counts"`
}

type jsonProblems struct {
	Old []Problem `json:"old"`
	New []Problem `json:"new"`
}

type jsonImpact struct {
	Class     Class    `json:"class"`
	Workloads []string `json:"workloads"`
	Reason    string   `json:"reason"`
	Rule      string   `json:"rule"`
}

type jsonObject struct {
	ID            string       `json:"id"`
	Group         string       `json:"group"`
	Kind          string       `json:"kind"`
	Namespace     string       `json:"namespace"`
	Name          string       `json:"name"`
	Op            Op           `json:"op"`
	OldAPIVersion string       `json:"oldApiVersion"`
	NewAPIVersion string       `json:"newApiVersion"`
	Impact        *jsonImpact  `json:"impact"`
	Impacts       []jsonImpact `json:"impacts"`
	Changes       []jsonChange `json:"changes"`
}

type jsonChange struct {
	Path     string       `json:"path"`
	Op       Op           `json:"op"`
	Old      any          `json:"old"`
	New      any          `json:"new"`
	Redacted bool         `json:"redacted"`
	Impact   *jsonImpact  `json:"impact"`
	Impacts  []jsonImpact `json:"impacts"`
}

func toJSONImpacts(in []Impact) []jsonImpact {
	out := make([]jsonImpact, 0, len(in))
	for _, im := range in {
		out = append(out, toJSONImpact(im))
	}
	return out
}

func toJSONImpact(im Impact) jsonImpact {
	w := im.Workloads
	if w == nil {
		w = []string{}
	}
	return jsonImpact{Class: im.Class, Workloads: w, Reason: im.Reason, Rule: im.Rule}
}

func effectivePtr(impacts []Impact) *jsonImpact {
	if len(impacts) == 0 {
		return nil
	}
	e := toJSONImpact(Effective(impacts))
	return &e
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// WriteJSON writes the diff in the documented JSON format (SchemaVersion; docs/manifestdiff.md).
// Classify it first to get impacts. The output is deterministic.
func (d *Diff) WriteJSON(w io.Writer) error {
	s := d.Summarize()
	out := jsonDiff{
		Schema: SchemaVersion,
		Summary: jsonSummary{Added: s.Added, Removed: s.Removed, Changed: s.Changed, Unchanged: s.Unchanged,
			Highest: s.Highest, Restarts: nonNil(s.Restarts), Deferred: nonNil(s.Deferred), Counts: s.Counts},
		Problems: jsonProblems{Old: nonNil(problemsOf(d.Old)), New: nonNil(problemsOf(d.New))},
		Objects:  make([]jsonObject, 0, len(d.Objects)),
	}
	for _, o := range d.Objects {
		jo := jsonObject{ID: o.ID.String(), Group: o.ID.Group, Kind: o.ID.Kind, Namespace: o.ID.Namespace, Name: o.ID.Name,
			Op: o.Op, OldAPIVersion: o.OldAPIVersion, NewAPIVersion: o.NewAPIVersion,
			Impact: effectivePtr(o.AllImpacts()), Impacts: toJSONImpacts(o.Impacts), Changes: make([]jsonChange, 0, len(o.Changes))}
		for _, c := range o.Changes {
			jo.Changes = append(jo.Changes, jsonChange{Path: c.Path, Op: c.Op, Old: c.Old, New: c.New, Redacted: c.Redacted,
				Impact: effectivePtr(c.Impacts), Impacts: toJSONImpacts(c.Impacts)})
		}
		out.Objects = append(out.Objects, jo)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func problemsOf(s *Set) []Problem {
	if s == nil {
		return nil
	}
	return s.Problems
}

// maxValue bounds how much of one value the text output prints.
const maxValue = 160

// WriteText writes the diff for people: a summary, then one block per object (`+` added, `-`
// removed, `~` changed) with its changed fields and, once per distinct reason, why it matters.
func (d *Diff) WriteText(w io.Writer) error { return d.WriteTextFolding(w) }

// WriteTextFolding is WriteText with the field changes of the objects of the given kinds folded into
// one line each (how many fields are added, removed and changed): their impacts are still listed.
// apply folds CustomResourceDefinitions, whose schema text would fill every screen of a takeover.
func (d *Diff) WriteTextFolding(w io.Writer, foldKinds ...string) error {
	var b bytes.Buffer
	s := d.Summarize()
	fmt.Fprintf(&b, "%d added, %d removed, %d changed, %d unchanged\n", s.Added, s.Removed, s.Changed, s.Unchanged)
	if len(d.Objects) == 0 {
		b.WriteString("no changes\n")
	} else {
		fmt.Fprintf(&b, "highest impact: %s\n", s.Highest)
	}
	if len(s.Restarts) > 0 {
		fmt.Fprintf(&b, "restarts: %s\n", strings.Join(s.Restarts, ", "))
	}
	if len(s.Deferred) > 0 {
		fmt.Fprintf(&b, "deferred until next restart: %s\n", strings.Join(s.Deferred, ", "))
	}
	for _, p := range problemsOf(d.Old) {
		fmt.Fprintf(&b, "problem in deployed manifest: %s\n", p)
	}
	for _, p := range problemsOf(d.New) {
		fmt.Fprintf(&b, "problem in new manifest: %s\n", p)
	}
	for _, o := range d.Objects {
		b.WriteByte('\n')
		sign := map[Op]string{OpAdded: "+", OpRemoved: "-", OpChanged: "~"}[o.Op]
		eff := Effective(o.AllImpacts())
		fmt.Fprintf(&b, "%s %s", sign, o.ID.Short())
		if o.ID.Group != "" {
			fmt.Fprintf(&b, " (%s)", o.ID.Group)
		}
		if eff.Class != "" {
			fmt.Fprintf(&b, "  [%s]", eff.Class)
		}
		b.WriteByte('\n')
		if o.OldAPIVersion != "" && o.NewAPIVersion != "" && o.OldAPIVersion != o.NewAPIVersion {
			fmt.Fprintf(&b, "    apiVersion %s -> %s\n", o.OldAPIVersion, o.NewAPIVersion)
		}
		if slices.Contains(foldKinds, o.ID.Kind) && len(o.Changes) > 0 {
			n := map[Op]int{}
			for _, c := range o.Changes {
				n[c.Op]++
			}
			fmt.Fprintf(&b, "    %d field(s) changed (%d added, %d removed, %d changed; folded)\n", len(o.Changes), n[OpAdded], n[OpRemoved], len(o.Changes)-n[OpAdded]-n[OpRemoved])
		} else {
			for _, c := range o.Changes {
				writeChange(&b, c)
			}
		}
		seen := map[string]bool{}
		for _, im := range o.AllImpacts() {
			if im.Class == ClassSafe && im.Rule == "default" {
				continue
			}
			line := fmt.Sprintf("%s: %s", im.Class, im.Reason)
			if seen[line] {
				continue
			}
			seen[line] = true
			fmt.Fprintf(&b, "    why %s\n", line)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func writeChange(b *bytes.Buffer, c *FieldChange) {
	tag := ""
	if len(c.Impacts) > 0 {
		tag = "  [" + string(Effective(c.Impacts).Class) + "]"
	}
	switch {
	case c.Redacted:
		fmt.Fprintf(b, "    %s %s: (Secret value %s; not shown)%s\n", sign(c.Op), c.Path, c.Op, tag)
	case c.Op == OpReordered:
		fmt.Fprintf(b, "    ~ %s: order %s -> %s%s\n", c.Path, short(c.Old), short(c.New), tag)
	case c.Op == OpAdded:
		fmt.Fprintf(b, "    + %s: %s%s\n", c.Path, short(c.New), tag)
	case c.Op == OpRemoved:
		fmt.Fprintf(b, "    - %s: %s%s\n", c.Path, short(c.Old), tag)
	default:
		os, ns := c.Old.(string)
		nstr, nok := c.New.(string)
		if ns && nok && (strings.Contains(os, "\n") || strings.Contains(nstr, "\n")) {
			fmt.Fprintf(b, "    ~ %s:%s\n", c.Path, tag)
			for _, l := range lineDiff(os, nstr) {
				fmt.Fprintf(b, "        %s\n", l)
			}
			return
		}
		fmt.Fprintf(b, "    ~ %s: %s -> %s%s\n", c.Path, short(c.Old), short(c.New), tag)
	}
}

func sign(op Op) string {
	switch op {
	case OpAdded:
		return "+"
	case OpRemoved:
		return "-"
	}
	return "~"
}

// short renders a value as compact JSON, cut to maxValue bytes.
func short(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	s := strings.TrimSuffix(buf.String(), "\n")
	if len(s) > maxValue {
		return fmt.Sprintf("%s… (%d bytes)", s[:maxValue], len(s))
	}
	return s
}

// lineDiff returns the changed lines of two texts, "- old" and "+ new", aligned by a longest
// common subsequence of lines (texts over 2000 lines are shown whole).
func lineDiff(a, b string) []string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	n, m := len(al), len(bl)
	var out []string
	if n > 2000 || m > 2000 {
		for _, l := range al {
			out = append(out, "- "+l)
		}
		for _, l := range bl {
			out = append(out, "+ "+l)
		}
		return out
	}
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if al[i] == bl[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && al[i] == bl[j]:
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, "- "+al[i])
			i++
		default:
			out = append(out, "+ "+bl[j])
			j++
		}
	}
	return out
}
