package manifestdiff

import "sort"

// Class is how a change affects the running cluster, ordered by severity.
type Class string

const (
	// ClassNotApplied: the resource manager will not apply the change (it keeps the live value,
	// ignores or keeps the object).
	ClassNotApplied Class = "not-applied"
	// ClassSafe: applied in place; running pods are not restarted and the data plane does not change.
	ClassSafe Class = "safe"
	// ClassDeferred: applied, but running pods only pick it up when they restart for another reason.
	ClassDeferred Class = "deferred"
	// ClassRestart: the pods of the named workloads are replaced (a rollout).
	ClassRestart Class = "restart"
	// ClassDisruptive: the change can break traffic or lose data (an immutable field, deleting a CRD
	// or an IP pool, changing encapsulation live), or the resource manager's apply fails on it.
	ClassDisruptive Class = "disruptive"
	// ClassBlocked: a caller's rule (plan) refuses the change. No default rule returns it.
	ClassBlocked Class = "blocked"
)

// Severity orders the classes: not-applied < safe < deferred < restart < disruptive < blocked.
func (c Class) Severity() int {
	switch c {
	case ClassNotApplied:
		return 0
	case ClassSafe:
		return 1
	case ClassDeferred:
		return 2
	case ClassRestart:
		return 3
	case ClassDisruptive:
		return 4
	case ClassBlocked:
		return 5
	}
	return 1
}

// Impact is what one rule says about one change.
type Impact struct {
	Class Class
	// Workloads are the workloads that restart (ClassRestart) or whose running pods keep the old
	// value (ClassDeferred), as ObjectID.Short (e.g. "DaemonSet kube-system/calico-node").
	Workloads []string
	// Reason says why, in words an operator can act on.
	Reason string
	// Rule is the name of the rule that decided.
	Rule string
}

// Rule classifies changes. Either function may be nil. A rule returns nothing for changes it has
// no opinion on.
type Rule struct {
	// Name identifies the rule in Impact.Rule.
	Name string
	// Object classifies an added or removed object.
	Object func(d *Diff, o *ObjectDiff) []Impact
	// Change classifies one field change of a changed object.
	Change func(d *Diff, o *ObjectDiff, c *FieldChange) []Impact
}

// Classifier runs rules over a Diff.
//
// For every added or removed object and every field change, the Gates run first, in order: the
// first gate that returns impacts decides alone (they say "the resource manager will not apply
// this", which makes every other consequence moot). Otherwise every Rule runs and all their
// impacts are kept; the effective class is the most severe one. A change no rule speaks about is
// ClassSafe ("applied in place").
//
// plan extends the default classifier by appending rules that return ClassBlocked impacts.
type Classifier struct {
	Gates []Rule
	Rules []Rule
}

// DefaultClassifier returns the gates and rules docs/manifestdiff.md describes.
func DefaultClassifier() *Classifier {
	return &Classifier{
		Gates: []Rule{ignoredObjectGate, keptObjectGate, liveMetadataGate, preservedResourcesGate, preservedReplicasGate},
		Rules: []Rule{podTemplateRule, immutableFieldRule, configReferenceRule, ipPoolRule, crdRule, rbacRule, removedObjectRule},
	}
}

// Classify sets the Impacts of every object and change of d, replacing earlier ones.
func (cl *Classifier) Classify(d *Diff) {
	for _, o := range d.Objects {
		o.Impacts = nil
		if o.Op != OpChanged {
			o.Impacts = cl.run(func(r Rule) []Impact {
				if r.Object == nil {
					return nil
				}
				return r.Object(d, o)
			})
			if len(o.Impacts) == 0 {
				reason := "created by the resource manager"
				if o.Op == OpRemoved {
					reason = "deleted by the resource manager"
				}
				o.Impacts = []Impact{{Class: ClassSafe, Reason: reason, Rule: "default"}}
			}
			continue
		}
		for _, c := range o.Changes {
			c.Impacts = cl.run(func(r Rule) []Impact {
				if r.Change == nil {
					return nil
				}
				return r.Change(d, o, c)
			})
			if len(c.Impacts) == 0 {
				c.Impacts = []Impact{{Class: ClassSafe, Reason: "applied in place", Rule: "default"}}
			}
		}
	}
}

func (cl *Classifier) run(call func(Rule) []Impact) []Impact {
	for _, g := range cl.Gates {
		if out := call(g); len(out) > 0 {
			return name(out, g.Name)
		}
	}
	var all []Impact
	for _, r := range cl.Rules {
		all = append(all, name(call(r), r.Name)...)
	}
	return all
}

func name(impacts []Impact, rule string) []Impact {
	for i := range impacts {
		if impacts[i].Rule == "" {
			impacts[i].Rule = rule
		}
	}
	return impacts
}

// Effective returns the most severe of impacts (the first one among equals), or a zero Impact.
func Effective(impacts []Impact) Impact {
	var best Impact
	for i, im := range impacts {
		if i == 0 || im.Class.Severity() > best.Class.Severity() {
			best = im
		}
	}
	return best
}

// Impacts returns every impact of the object: its own and those of its changes.
func (o *ObjectDiff) AllImpacts() []Impact {
	out := append([]Impact(nil), o.Impacts...)
	for _, c := range o.Changes {
		out = append(out, c.Impacts...)
	}
	return out
}

// Summary is the overall result of a classified Diff.
type Summary struct {
	Added, Removed, Changed, Unchanged int
	// Highest is the most severe class of any impact ("" when there are no differences).
	Highest Class
	// Restarts are the workloads whose pods are replaced, sorted.
	Restarts []string
	// Deferred are the workloads whose running pods keep an old value until their next restart.
	Deferred []string
	// Counts is the number of object-level and field-level effective impacts per class.
	Counts map[Class]int
}

// Summarize computes the Summary of a classified Diff.
func (d *Diff) Summarize() Summary {
	s := Summary{Unchanged: d.Unchanged, Counts: map[Class]int{}}
	restarts, deferred := map[string]bool{}, map[string]bool{}
	note := func(impacts []Impact) {
		if len(impacts) == 0 {
			return
		}
		e := Effective(impacts)
		s.Counts[e.Class]++
		for _, im := range impacts {
			if s.Highest == "" || im.Class.Severity() > s.Highest.Severity() {
				s.Highest = im.Class
			}
			for _, w := range im.Workloads {
				switch im.Class {
				case ClassRestart:
					restarts[w] = true
				case ClassDeferred:
					deferred[w] = true
				}
			}
		}
	}
	for _, o := range d.Objects {
		switch o.Op {
		case OpAdded:
			s.Added++
		case OpRemoved:
			s.Removed++
		default:
			s.Changed++
		}
		note(o.Impacts)
		for _, c := range o.Changes {
			note(c.Impacts)
		}
	}
	for w := range deferred {
		if restarts[w] {
			delete(deferred, w) // the restart picks the value up
		}
	}
	s.Restarts, s.Deferred = sortedKeys(restarts), sortedKeys(deferred)
	return s
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
