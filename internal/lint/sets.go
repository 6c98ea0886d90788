package lint

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	projectcalicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/selector"
)

// The contract of the GlobalNetworkSet calico-pilot maintains in shoots (docs/kube-apiserver-globalnetworkset.md).
const (
	gardenerSetName     = "gardener-kube-apiserver"
	gardenerEndpointKey = "networking.gardener.cloud/endpoint"
	gardenerEndpointVal = "kube-apiserver"
)

// netset is a NetworkSet or GlobalNetworkSet.
type netset struct {
	global bool
	name   string
	labels map[string]string
	nets   []string
}

// context is what the checks of one object may know about the others: the GlobalNetworkSets a rule
// can select, those of the input plus the kube-apiserver set every shoot with the feature has.
type context struct {
	globalSets []*netset
	// matchWork is what is left of the budget for evaluating rule selectors against the sets
	// (MaxSetMatchWork selector nodes in all).
	matchWork int
}

// MaxSetMatchWork bounds the selector nodes evaluated against GlobalNetworkSets in one lint run:
// every rule selector that names a set's label is evaluated against that set's labels, which is
// sets × rules × terms (8k sets × 20 rules × 8k terms took 65 s). 32 million nodes take well under
// a second; beyond them the set checks of the remaining rules are skipped with a warning saying so.
const MaxSetMatchWork = 32 << 20

func newContext(objs []*object) *context {
	ctx := &context{matchWork: MaxSetMatchWork}
	byName := map[string]*netset{}
	for _, o := range objs {
		if o.set != nil && o.set.global {
			o.set.name = o.name
			byName[o.name] = o.set
		}
	}
	if byName[gardenerSetName] == nil {
		byName[gardenerSetName] = &netset{global: true, name: gardenerSetName, labels: map[string]string{gardenerEndpointKey: gardenerEndpointVal}}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ctx.globalSets = append(ctx.globalSets, byName[n])
	}
	return ctx
}

func (o *object) checkSet() {
	s := o.set
	nets := o.path("spec", "nets")
	if len(s.nets) == 0 {
		o.add(nets, SeverityWarning, "never-matches", "the set has no nets, so a rule selecting it matches no address")
	}
	for i, n := range s.nets {
		o.checkNet(nets.Index(i), n, 0)
	}
	if s.global && o.name == gardenerSetName {
		o.add(o.path("metadata", "name"), SeverityWarning, "gardener-set",
			"%s is maintained by Gardener through a ManagedResource in shoots with kubeAPIServerGlobalNetworkSet enabled: changes you apply are reverted; select it by its label %s=%s instead of writing it",
			gardenerSetName, gardenerEndpointKey, gardenerEndpointVal)
	}
}

// checkSetTraps warns about a rule selector that is meant for a GlobalNetworkSet but cannot match
// it, or matches it in a way networking-calico's end-user guide warns against.
func (o *object) checkSetTraps(ctx *context, ep *field.Path, side string, dir projectcalicov1.PolicyType, e *projectcalicov1.EntityRule, sel, nsSel selector.Node, r *projectcalicov1.Rule, proto protocol) {
	selPath := ep.Child("selector")
	o.checkEndpointLabelValue(selPath, e.Selector, sel)
	keys, size := labelKeys(sel)
	for i, set := range ctx.globalSets {
		if !mentionsLabelOf(keys, set.labels) {
			continue
		}
		if ctx.matchWork < size {
			o.add(selPath, SeverityWarning, "analysis-limit",
				"not checked against %d of the input's %d GlobalNetworkSets: evaluating every rule selector against every set would take more than %d selector terms in this input; lint smaller files to check them all",
				len(ctx.globalSets)-i, len(ctx.globalSets), MaxSetMatchWork)
			break
		}
		ctx.matchWork -= size
		if !selector.Matches(sel, set.labels, false) {
			continue
		}
		switch {
		case e.NamespaceSelector == "" && !o.policy.global:
			o.add(selPath, SeverityWarning, "set-namespace-selector",
				"selects the GlobalNetworkSet %s by its labels, but in a namespaced policy a selector without namespaceSelector matches only endpoints of the policy's namespace, and a GlobalNetworkSet is in no namespace: add namespaceSelector: global() next to the selector", set.name)
		case nsSel != nil && !hasPositiveGlobal(nsSel):
			o.add(ep.Child("namespaceSelector"), SeverityWarning, "set-namespace-selector",
				"the selector is meant for the GlobalNetworkSet %s, but namespaceSelector %q limits the rule to namespaced endpoints, so the set does not match: use namespaceSelector: global()", set.name, e.NamespaceSelector)
		}
		if set.name != gardenerSetName {
			continue
		}
		if dir == projectcalicov1.PolicyTypeIngress && side == "source" {
			o.add(selPath, SeverityWarning, "kube-apiserver-ingress",
				"the %s set holds the load balancer address clients use to reach the kube-apiserver; traffic from the kube-apiserver to pods (webhooks, exec, logs) arrives through the VPN with another source address, so this ingress rule matches none of it", gardenerSetName)
		}
		if dir == projectcalicov1.PolicyTypeEgress && side == "destination" && r.Action == projectcalicov1.ActionAllow && !only443TCP(proto, e) {
			o.add(selPath, SeverityWarning, "kube-apiserver-port",
				"the load balancer behind %s is shared by all shoots of the seed and serves other ports too (apiserver-proxy, VPN): restrict the rule to protocol: TCP and ports: [443]", gardenerSetName)
		}
	}
}

// checkEndpointLabelValue warns about terms on the kube-apiserver set's label that require another
// value than the set has, and about a misspelt key with the set's value.
func (o *object) checkEndpointLabelValue(p *field.Path, expr string, sel selector.Node) {
	selector.Walk(sel, func(n selector.Node) {
		m, ok := n.(*selector.Match)
		if !ok || (m.Op != selector.OpEqual && m.Op != selector.OpIn) {
			return
		}
		values := m.Values
		if m.Op == selector.OpEqual {
			values = []string{m.Value}
		}
		hasVal := false
		for _, v := range values {
			hasVal = hasVal || v == gardenerEndpointVal
		}
		col := selector.Column(expr, m.At)
		switch {
		case m.Key == gardenerEndpointKey && !hasVal:
			o.findings = append(o.findings, finding{path: p, severity: SeverityWarning, rule: "kube-apiserver-label", valueColumn: col,
				detail: fmt.Sprintf("%s requires another value than the %s GlobalNetworkSet carries (%s=%s), so it does not select the set", selector.String(m), gardenerSetName, gardenerEndpointKey, gardenerEndpointVal)})
		case m.Key != gardenerEndpointKey && hasVal && (strings.Contains(m.Key, "gardener") || strings.Contains(m.Key, "endpoint")):
			o.findings = append(o.findings, finding{path: p, severity: SeverityWarning, rule: "kube-apiserver-label", valueColumn: col,
				detail: fmt.Sprintf("label key %q: the %s GlobalNetworkSet is labelled %s=%s", m.Key, gardenerSetName, gardenerEndpointKey, gardenerEndpointVal)})
		}
	})
}

// labelKeys returns the label keys sel names (in has() or a comparison) and its number of nodes.
func labelKeys(sel selector.Node) (map[string]bool, int) {
	keys := map[string]bool{}
	size := 0
	selector.Walk(sel, func(n selector.Node) {
		size++
		switch n := n.(type) {
		case *selector.Match:
			keys[n.Key] = true
		case *selector.Has:
			keys[n.Key] = true
		}
	})
	return keys, size
}

// mentionsLabelOf reports whether a selector naming keys names any key of labels, so that it is
// meant for them rather than matching them by accident (as all() or !has(x) would).
func mentionsLabelOf(keys map[string]bool, labels map[string]string) bool {
	for k := range labels {
		if keys[k] {
			return true
		}
	}
	return false
}

// hasPositiveGlobal reports whether global() appears in sel outside a negation.
func hasPositiveGlobal(n selector.Node) bool {
	switch n := n.(type) {
	case *selector.Global:
		return true
	case *selector.And:
		for _, t := range n.Terms {
			if hasPositiveGlobal(t) {
				return true
			}
		}
	case *selector.Or:
		for _, t := range n.Terms {
			if hasPositiveGlobal(t) {
				return true
			}
		}
	}
	return false
}

// only443TCP reports whether the rule is limited to TCP port 443.
func only443TCP(proto protocol, e *projectcalicov1.EntityRule) bool {
	if proto.number != protoTCP || len(e.Ports) == 0 {
		return false
	}
	for _, p := range e.Ports {
		if p.String() != "443" && p.String() != "443:443" {
			return false
		}
	}
	return true
}
