package selector

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Matches evaluates n against the labels of an endpoint with Calico's semantics: == , in, contains,
// starts with and ends with need the label; != and not in also match when it is absent. namespaced
// says whether the resource is namespaced (global() matches only resources that are not).
func Matches(n Node, labels map[string]string, namespaced bool) bool {
	switch n := n.(type) {
	case *All:
		return true
	case *Global:
		return !namespaced
	case *Has:
		_, ok := labels[n.Key]
		return ok
	case *Match:
		v, ok := labels[n.Key]
		return matchesValue(n, v, ok)
	case *Not:
		return !Matches(n.X, labels, namespaced)
	case *And:
		return allMatch(n.Terms, labels, namespaced)
	case *Or:
		return anyMatches(n.Terms, labels, namespaced)
	}
	return false
}

// matchesValue evaluates m against the label's value v (ok: the label is present).
func matchesValue(m *Match, v string, ok bool) bool {
	switch m.Op {
	case OpEqual:
		return ok && v == m.Value
	case OpNotEqual:
		return !ok || v != m.Value
	case OpIn:
		return ok && contains(m.Values, v)
	case OpNotIn:
		return !ok || !contains(m.Values, v)
	case OpContains:
		return ok && strings.Contains(v, m.Value)
	case OpStartsWith:
		return ok && strings.HasPrefix(v, m.Value)
	case OpEndsWith:
		return ok && strings.HasSuffix(v, m.Value)
	}
	return false
}

// allMatch says every term matches (true for none).
func allMatch(terms []Node, labels map[string]string, namespaced bool) bool {
	for _, t := range terms {
		if !Matches(t, labels, namespaced) {
			return false
		}
	}
	return true
}

// anyMatches says at least one term matches (false for none).
func anyMatches(terms []Node, labels map[string]string, namespaced bool) bool {
	for _, t := range terms {
		if Matches(t, labels, namespaced) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// NeverMatches reports whether n can match no endpoint at all, and why. It is sound but not
// complete: when it says yes, no set of labels matches (!all(), an empty "in {}", or terms of one
// And that contradict each other on one label, such as a == 'x' && a == 'y' or has(a) && !has(a));
// it does not try to decide every contradiction a selector could hide. Its work is bounded
// (MaxAnalysisWork); Analyze says when the bound cut it short.
func NeverMatches(n Node) (bool, string) {
	a := Analyze(n)
	return a.Never, a.Why
}

// MaxAnalysisWork bounds the value tests of Analyze: for one label, the values an "in" or "=="
// leaves possible times the string tests (contains, starts with, ends with) on it. Real selectors
// need a few; 4 million take about 0.1 s. Beyond it, the label is not analysed and Analysis says so.
const MaxAnalysisWork = 4 << 20

// Analysis is the outcome of Analyze.
type Analysis struct {
	// Never says that no set of labels matches; Why says which terms contradict each other.
	Never bool
	Why   string
	// Skipped, when not empty, says which part was not analysed because it would take more than
	// MaxAnalysisWork: Never false then means "not known".
	Skipped string
}

// Analyze is NeverMatches with a note when the analysis was cut short. Its time is linear in the
// selector's size plus at most MaxAnalysisWork value tests.
func Analyze(n Node) Analysis {
	var skipped []string
	never, why := neverMatches(n, &skipped)
	return Analysis{Never: never, Why: why, Skipped: strings.Join(skipped, "; ")}
}

func neverMatches(n Node, skipped *[]string) (bool, string) {
	switch n := n.(type) {
	case *Not:
		switch x := n.X.(type) {
		case *All:
			return true, "!all() matches nothing"
		case *Not:
			return neverMatches(x.X, skipped)
		}
	case *Match:
		if n.Op == OpIn && len(n.Values) == 0 {
			return true, fmt.Sprintf("%s in {} matches nothing (the set is empty)", n.Key)
		}
	case *Or:
		reasons := make([]string, 0, len(n.Terms))
		for _, t := range n.Terms {
			never, why := neverMatches(t, skipped)
			if !never {
				return false, ""
			}
			reasons = append(reasons, why)
		}
		return true, "no alternative of || can match: " + strings.Join(reasons, "; ")
	case *And:
		c := conjunction{}
		if never, why := c.add(n, skipped); never {
			return true, why
		}
		return c.contradiction(skipped)
	}
	return false, ""
}

// constraint is what the terms of one And require of one label.
type constraint struct {
	present, absent bool
	// allowed is nil for any value, else the values still possible.
	allowed  map[string]bool
	excluded map[string]bool
	// checks are the string tests (contains, starts with, ends with) the value must pass, each
	// distinct test once.
	checks    []*Match
	checkSeen map[checkKey]bool
	// first is where the first term about the label was written, for the message.
	terms []string
}

type checkKey struct {
	op    Op
	value string
}

type conjunction map[string]*constraint

func (c conjunction) of(key string) *constraint {
	k := c[key]
	if k == nil {
		k = &constraint{}
		c[key] = k
	}
	return k
}

// add records the terms of an And (nested Ands included) and reports a term that never matches.
func (c conjunction) add(n Node, skipped *[]string) (bool, string) {
	switch n := n.(type) {
	case *And:
		for _, t := range n.Terms {
			if never, why := c.add(t, skipped); never {
				return true, why
			}
		}
		return false, ""
	case *Has:
		c.addHas(n.Key, String(n), false)
	case *Match:
		c.addMatch(n, false)
	case *Not:
		switch x := n.X.(type) {
		case *Has:
			c.addHas(x.Key, String(n), true)
		case *Match:
			c.addMatch(x, true)
			c.of(x.Key).terms[len(c.of(x.Key).terms)-1] = String(n)
		}
	}
	return neverMatches(n, skipped)
}

// addHas records term, has(key) or (absent) !has(key).
func (c conjunction) addHas(key, term string, absent bool) {
	k := c.of(key)
	if absent {
		k.absent = true
	} else {
		k.present = true
	}
	k.terms = append(k.terms, term)
}

func (c conjunction) addMatch(m *Match, negated bool) {
	k := c.of(m.Key)
	k.terms = append(k.terms, String(m))
	op := m.Op
	if negated {
		switch op {
		case OpEqual:
			op = OpNotEqual
		case OpNotEqual:
			op = OpEqual
		case OpIn:
			op = OpNotIn
		case OpNotIn:
			op = OpIn
		default:
			return // !(a contains 'x') and friends: not tracked
		}
	}
	switch op {
	case OpEqual:
		k.present = true
		k.restrict([]string{m.Value})
	case OpIn:
		k.present = true
		k.restrict(m.Values)
	case OpNotEqual:
		k.exclude([]string{m.Value})
	case OpNotIn:
		k.exclude(m.Values)
	case OpContains, OpStartsWith, OpEndsWith:
		k.present = true
		ck := checkKey{op, m.Value}
		if !k.checkSeen[ck] {
			if k.checkSeen == nil {
				k.checkSeen = map[checkKey]bool{}
			}
			k.checkSeen[ck] = true
			k.checks = append(k.checks, m)
		}
	}
}

func (k *constraint) restrict(values []string) {
	next := map[string]bool{}
	for _, v := range values {
		if k.allowed == nil || k.allowed[v] {
			next[v] = true
		}
	}
	k.allowed = next
}

func (k *constraint) exclude(values []string) {
	if k.excluded == nil {
		k.excluded = map[string]bool{}
	}
	for _, v := range values {
		k.excluded[v] = true
	}
}

// contradiction reports the first label (in sorted order) whose terms cannot all hold. A label
// whose values times string tests exceed what is left of MaxAnalysisWork is skipped and named in
// skipped.
func (c conjunction) contradiction(skipped *[]string) (bool, string) {
	keys := make([]string, 0, len(c))
	for key := range c {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	work := MaxAnalysisWork
	for _, key := range keys {
		k := c[key]
		if len(k.terms) < 2 {
			continue
		}
		if k.present && k.absent {
			return true, k.why() + fmt.Sprintf(" (label %s is required and forbidden)", key)
		}
		if k.allowed == nil {
			continue
		}
		cost := len(k.allowed) * max(len(k.checks), 1)
		if cost > work {
			*skipped = append(*skipped, fmt.Sprintf("label %s: %d value(s) × %d string test(s) not analysed (more than %d tests)", key, len(k.allowed), len(k.checks), MaxAnalysisWork))
			continue
		}
		work -= cost
		possible := false
		for v := range k.allowed {
			if !k.excluded[v] && passes(v, k.checks) {
				possible = true
				break
			}
		}
		if !possible {
			return true, k.why() + fmt.Sprintf(" (no value of label %s satisfies them)", key)
		}
	}
	return false, ""
}

// why lists the terms about one label (built only for a contradiction: the list can be long).
func (k *constraint) why() string {
	return fmt.Sprintf("%s cannot all hold", strings.Join(k.terms, " && "))
}

// passes says whether the value v passes every string test.
func passes(v string, checks []*Match) bool {
	for _, m := range checks {
		var ok bool
		switch m.Op {
		case OpContains:
			ok = strings.Contains(v, m.Value)
		case OpStartsWith:
			ok = strings.HasPrefix(v, m.Value)
		case OpEndsWith:
			ok = strings.HasSuffix(v, m.Value)
		}
		if !ok {
			return false
		}
	}
	return true
}

// KeyError is a label key in a selector that no Kubernetes label can have.
type KeyError struct {
	// Offset is the byte offset of the key in the selector.
	Offset int
	Key    string
	Reason string
}

// InvalidKeys lists the keys of n that are not valid Kubernetes label keys (Calico accepts them,
// but such a term never matches a label of a pod, namespace or service account).
func InvalidKeys(n Node) []KeyError {
	var out []KeyError
	check := func(key string, at int) {
		if errs := validation.IsQualifiedName(key); len(errs) > 0 {
			out = append(out, KeyError{Offset: at, Key: key, Reason: strings.Join(errs, "; ")})
		}
	}
	Walk(n, func(n Node) {
		switch n := n.(type) {
		case *Has:
			check(n.Key, n.KeyAt)
		case *Match:
			check(n.Key, n.At)
		}
	})
	return out
}

// Column returns the 1-based column (in characters) of a byte offset of input.
func Column(input string, offset int) int {
	if offset > len(input) {
		offset = len(input)
	}
	if offset < 0 {
		offset = 0
	}
	return len([]rune(input[:offset])) + 1
}
