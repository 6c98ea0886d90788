package lint

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	projectcalicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/selector"
)

// policy is any of the four policy kinds, in the GlobalNetworkPolicy shape (a namespaced policy
// leaves the global-only fields empty).
type policy struct {
	global, staged bool
	stagedAction   projectcalicov1.StagedAction
	spec           projectcalicov1.GlobalNetworkPolicySpec
	specPresent    bool
}

// selectorRole is what a selector field selects, which decides what global() means there.
type selectorRole int

const (
	roleEndpoints selectorRole = iota
	roleNamespaces
	roleServiceAccounts
)

// check runs the checks of one object.
func (o *object) check(ctx *context) {
	if o.list || (o.policy == nil && o.set == nil) {
		return
	}
	if o.name == "" {
		o.add(o.path("metadata", "name"), SeverityError, "required", "Required value: every object needs a name")
	}
	if o.policy != nil {
		o.checkPolicy(ctx)
		return
	}
	o.checkSet()
}

func (o *object) checkPolicy(ctx *context) {
	p := o.policy
	spec := o.path("spec")
	if p.staged {
		switch p.stagedAction {
		case "", projectcalicov1.StagedActionSet:
		case projectcalicov1.StagedActionDelete:
			return // only the name matters when the staged change is a deletion
		default:
			o.add(spec.Child("stagedAction"), SeverityError, "enum", "Unsupported value: %q: supported values: \"Set\", \"Delete\"", p.stagedAction)
		}
	}
	s := p.spec
	noDefaulting := "the crd.projectcalico.org/v1 API does no defaulting"
	if s.Order == nil {
		o.add(spec.Child("order"), SeverityError, "required", "Required value: %s; without an order the policy is applied after every policy that has one: write it (e.g. order: 100)", noDefaulting)
	}
	if strings.TrimSpace(s.Selector) == "" {
		o.add(spec.Child("selector"), SeverityError, "required", "Required value: %s; write the endpoints the policy applies to (all() for every endpoint%s)", noDefaulting, map[bool]string{false: " of the namespace", true: ""}[p.global])
	} else if n := o.checkSelector(spec.Child("selector"), s.Selector, roleEndpoints); n != nil {
		o.checkNeverMatches(spec.Child("selector"), n, "the policy applies to no endpoint")
	}
	o.checkTypes(spec, s)
	if s.ServiceAccountSelector != "" {
		o.checkSelector(spec.Child("serviceAccountSelector"), s.ServiceAccountSelector, roleServiceAccounts)
	}
	if s.NamespaceSelector != "" {
		o.checkSelector(spec.Child("namespaceSelector"), s.NamespaceSelector, roleNamespaces)
	}
	if p.global {
		o.checkHostEndpointFlags(spec, s)
	}
	for i, h := range s.PerformanceHints {
		if h != "AssumeNeededOnEveryNode" {
			o.add(spec.Child("performanceHints").Index(i), SeverityError, "enum", "Unsupported value: %q: supported values: \"AssumeNeededOnEveryNode\"", h)
		}
	}
	for i := range s.Ingress {
		o.checkRule(ctx, spec.Child("ingress").Index(i), projectcalicov1.PolicyTypeIngress, &s.Ingress[i])
	}
	for i := range s.Egress {
		o.checkRule(ctx, spec.Child("egress").Index(i), projectcalicov1.PolicyTypeEgress, &s.Egress[i])
	}
}

// checkTypes requires spec.types (no defaulting) and reports rules of a direction it leaves out,
// which Calico ignores.
func (o *object) checkTypes(spec *field.Path, s projectcalicov1.GlobalNetworkPolicySpec) {
	typesPath := spec.Child("types")
	if len(s.Types) == 0 {
		// What the Calico API server would have derived: Ingress, plus Egress when there are egress rules.
		suggest := "[Ingress]"
		switch {
		case len(s.Egress) > 0 && len(s.Ingress) > 0:
			suggest = "[Ingress, Egress]"
		case len(s.Egress) > 0:
			suggest = "[Egress] (or [Ingress, Egress] to also deny all ingress)"
		}
		o.add(typesPath, SeverityError, "required", "Required value: the crd.projectcalico.org/v1 API does no defaulting, and without types the policy enforces no direction: write types: %s", suggest)
		return
	}
	seen := map[projectcalicov1.PolicyType]bool{}
	for i, t := range s.Types {
		switch {
		case t != projectcalicov1.PolicyTypeIngress && t != projectcalicov1.PolicyTypeEgress:
			o.add(typesPath.Index(i), SeverityError, "enum", "Unsupported value: %q: supported values: \"Ingress\", \"Egress\"", t)
		case seen[t]:
			o.add(typesPath.Index(i), SeverityError, "enum", "Duplicate value: %q", t)
		}
		seen[t] = true
	}
	if len(s.Ingress) > 0 && !seen[projectcalicov1.PolicyTypeIngress] {
		o.add(spec.Child("ingress"), SeverityError, "ignored-rules", "Forbidden: types does not include Ingress, so Calico ignores the ingress rules: add Ingress to types or remove them")
	}
	if len(s.Egress) > 0 && !seen[projectcalicov1.PolicyTypeEgress] {
		o.add(spec.Child("egress"), SeverityError, "ignored-rules", "Forbidden: types does not include Egress, so Calico ignores the egress rules: add Egress to types or remove them")
	}
}

// checkHostEndpointFlags checks doNotTrack, preDNAT and applyOnForward of a GlobalNetworkPolicy.
func (o *object) checkHostEndpointFlags(spec *field.Path, s projectcalicov1.GlobalNetworkPolicySpec) {
	if s.DoNotTrack && s.PreDNAT {
		o.add(spec.Child("preDNAT"), SeverityError, "host-endpoint-flags", "Forbidden: doNotTrack and preDNAT cannot both be true")
	}
	if (s.DoNotTrack || s.PreDNAT) && !s.ApplyOnForward {
		o.add(spec.Child("applyOnForward"), SeverityError, "host-endpoint-flags", "Required value: must be true when doNotTrack or preDNAT is true")
	}
	if s.PreDNAT {
		if len(s.Egress) > 0 {
			o.add(spec.Child("egress"), SeverityError, "host-endpoint-flags", "Forbidden: a preDNAT policy can only have ingress rules")
		}
		for i, t := range s.Types {
			if t == projectcalicov1.PolicyTypeEgress {
				o.add(spec.Child("types").Index(i), SeverityError, "host-endpoint-flags", "Forbidden: a preDNAT policy applies to ingress only")
			}
		}
	}
	if (s.DoNotTrack || s.PreDNAT) && s.NamespaceSelector != "" {
		o.add(spec.Child("namespaceSelector"), SeverityWarning, "never-matches",
			"doNotTrack and preDNAT policies apply to host endpoints, which are in no namespace, so with a namespaceSelector the policy applies to nothing")
	}
}

// checkSelector parses a selector field; it returns the tree, or nil after reporting a syntax error.
func (o *object) checkSelector(p *field.Path, expr string, role selectorRole) selector.Node {
	n, err := selector.Parse(expr)
	if err != nil {
		f := finding{path: p, severity: SeverityError, rule: "selector-syntax", detail: "Invalid value: " + quoteValue(expr) + ": invalid selector: " + err.Error()}
		if pe, ok := err.(*selector.Error); ok {
			f.valueColumn = pe.Column
		}
		o.findings = append(o.findings, f)
		return nil
	}
	for _, ke := range selector.InvalidKeys(n) {
		o.findings = append(o.findings, finding{path: p, severity: SeverityWarning, rule: "selector-key", valueColumn: selector.Column(expr, ke.Offset),
			detail: fmt.Sprintf("label key %q (column %d) is not a valid Kubernetes label key, so no label can match it: %s", ke.Key, selector.Column(expr, ke.Offset), ke.Reason)})
	}
	if role != roleNamespaces {
		selector.Walk(n, func(x selector.Node) {
			if g, ok := x.(*selector.Global); ok {
				o.findings = append(o.findings, finding{path: p, severity: SeverityWarning, rule: "selector-global", valueColumn: selector.Column(expr, g.At),
					detail: "global() selects resources that are in no namespace and belongs in a namespaceSelector; next to a selector write namespaceSelector: global()"})
			}
		})
	}
	return n
}

// quoteValue quotes a value for a message, shortened when long.
func quoteValue(v string) string {
	if len(v) > 200 {
		v = v[:200] + "..."
	}
	return fmt.Sprintf("%q", v)
}
