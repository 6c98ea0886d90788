package render

import (
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// NamePolicyValidation names the ValidatingAdmissionPolicy and its binding that check Calico
// policies at admission in the shoot. (Kept here rather than in names.go so this opt-in feature
// stays in one file.)
const NamePolicyValidation = "calico-pilot-policy-validation"

// SelectorPattern is an RE2 expression of the Calico selector grammar with parentheses treated as
// free tokens: regular languages cannot count, so unbalanced parentheses pass, but everything else
// the parser of internal/selector rejects fails it too (unquoted values, a single =, & or |, an
// unterminated string, a dangling operator, an unknown function, a trailing comma in a set). Every
// selector the parser accepts matches it; a test holds the two to that.
const SelectorPattern = `^\s*` + selUnit + `(?:\s*(?:&&|\|\|)\s*` + selUnit + `)*\s*$`

const (
	selKey  = `[A-Za-z0-9_./-]+`
	selStr  = `(?:'[^']*'|"[^"]*")`
	selTerm = `(?:all\s*\(\s*\)|global\s*\(\s*\)|has\s*\(\s*` + selKey + `\s*\)` +
		`|` + selKey + `\s*(?:==|!=)\s*` + selStr +
		`|` + selKey + `\s+(?:contains|starts\s+with|ends\s+with)\s*` + selStr +
		`|` + selKey + `\s+(?:not\s+)?in\s*\{\s*(?:` + selStr + `(?:\s*,\s*` + selStr + `)*)?\s*\})`
	selUnit = `(?:[!(]\s*)*` + selTerm + `(?:\s*\))*`
)

// calicoPolicyResources are the policy kinds the checks cover (crd.projectcalico.org/v1).
var calicoPolicyResources = []string{"networkpolicies", "globalnetworkpolicies", "stagednetworkpolicies", "stagedglobalnetworkpolicies"}

// policyAdmission is the policyadmission component: the shoot's admission checks of Calico
// policies when the NetworkConfig opts in (policyValidation), nothing otherwise.
func policyAdmission(o *values.Options) ([]client.Object, error) {
	return PolicyAdmissionFor(o.PolicyValidation)
}

// PolicyAdmissionFor returns the admission objects for a NetworkConfig's policyValidation: none when
// it is unset (the feature is opt-in per shoot), else PolicyAdmission with its mode.
func PolicyAdmissionFor(pv *calicov1alpha1.PolicyValidation) ([]client.Object, error) {
	if pv == nil {
		return nil, nil
	}
	return PolicyAdmission(pv.Mode)
}

// PolicyAdmission returns the ValidatingAdmissionPolicy and binding that make the shoot's API server
// check Calico policies of the crd.projectcalico.org/v1 API, which itself does no defaulting and no
// selector validation: spec.selector, spec.types and spec.order written out, rules only of the
// directions types names, ports only with TCP, UDP or SCTP, ICMP fields only with ICMP or ICMPv6, and
// every selector matching SelectorPattern. action is what the binding does on a failed check (the
// NetworkConfig's policyValidation.mode: Deny rejects the policy, Warn admits it with a warning).
func PolicyAdmission(action calicov1alpha1.PolicyValidationMode) ([]client.Object, error) {
	if action != calicov1alpha1.PolicyValidationModeDeny && action != calicov1alpha1.PolicyValidationModeWarn {
		return nil, fmt.Errorf("rendering policy validation: action %q is not Deny or Warn", action)
	}
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: NamePolicyValidation},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
						Rule: admissionregistrationv1.Rule{
							APIGroups:   []string{"crd.projectcalico.org"},
							APIVersions: []string{"v1"},
							Resources:   calicoPolicyResources,
						},
					},
				}},
			},
			// A staged deletion carries no policy to check.
			MatchConditions: []admissionregistrationv1.MatchCondition{{
				Name:       "not-a-staged-deletion",
				Expression: `!has(object.spec) || !has(object.spec.stagedAction) || object.spec.stagedAction != 'Delete'`,
			}},
			Validations: policyValidations(),
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: NamePolicyValidation},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        NamePolicyValidation,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.ValidationAction(action)},
		},
	}
	return []client.Object{policy, binding}, nil
}

const noDefaulting = "crd.projectcalico.org/v1 does no defaulting"

// policyValidations are the CEL checks, each naming its field.
func policyValidations() []admissionregistrationv1.Validation {
	invalid := ptr.To(metav1.StatusReasonInvalid)
	v := []admissionregistrationv1.Validation{
		{
			Expression: `has(object.spec) && has(object.spec.selector) && object.spec.selector.trim() != ''`,
			Message:    "spec.selector is required: " + noDefaulting + "; write the endpoints the policy applies to, e.g. selector: all()",
			Reason:     invalid,
		},
		{
			Expression: `has(object.spec) && has(object.spec.types) && size(object.spec.types) > 0`,
			Message:    "spec.types is required: " + noDefaulting + "; without types the policy enforces no direction: write types: [Ingress], [Egress] or [Ingress, Egress]",
			Reason:     invalid,
		},
		{
			Expression: `has(object.spec) && has(object.spec.order)`,
			Message:    "spec.order is required: " + noDefaulting + "; without an order the policy is applied after every policy that has one",
			Reason:     invalid,
		},
	}
	for _, dir := range []struct{ field, typ string }{{"ingress", "Ingress"}, {"egress", "Egress"}} {
		rules := "object.spec." + dir.field
		noRules := "!has(object.spec) || !has(" + rules + ")"
		v = append(v,
			admissionregistrationv1.Validation{
				Expression: noRules + " || size(" + rules + ") == 0 || (has(object.spec.types) && '" + dir.typ + "' in object.spec.types)",
				Message:    fmt.Sprintf("spec.%s: types does not include %s, so Calico ignores these rules: add %s to spec.types or remove them", dir.field, dir.typ, dir.typ),
				Reason:     invalid,
			},
			admissionregistrationv1.Validation{
				Expression: noRules + " || " + rules + ".all(r, !(" + hasPorts("r.source") + " || " + hasPorts("r.destination") + ") || " +
					protocolIn("r", "TCP", "UDP", "SCTP", "6", "17", "132") + ")",
				Message: fmt.Sprintf("spec.%s: a rule with ports needs protocol TCP, UDP or SCTP", dir.field),
				Reason:  invalid,
			},
			admissionregistrationv1.Validation{
				Expression: noRules + " || " + rules + ".all(r, !(has(r.icmp) || has(r.notICMP)) || " + protocolIn("r", "ICMP", "ICMPV6", "1", "58") + ")",
				Message:    fmt.Sprintf("spec.%s: ICMP type and code need protocol ICMP or ICMPv6 on the rule", dir.field),
				Reason:     invalid,
			},
			admissionregistrationv1.Validation{
				Expression: noRules + " || " + rules + ".all(r, " + strings.Join([]string{
					selectorOK("r", "source", "selector"), selectorOK("r", "source", "notSelector"), selectorOK("r", "source", "namespaceSelector"),
					selectorOK("r", "destination", "selector"), selectorOK("r", "destination", "notSelector"), selectorOK("r", "destination", "namespaceSelector"),
				}, " && ") + ")",
				Message: fmt.Sprintf("spec.%s: a selector of a rule is not a valid Calico selector (values must be quoted, == not =, && and || doubled); check it with calico-pilot lint", dir.field),
				Reason:  invalid,
			},
		)
	}
	for _, f := range []string{"selector", "namespaceSelector", "serviceAccountSelector"} {
		v = append(v, admissionregistrationv1.Validation{
			Expression: "!has(object.spec) || !has(object.spec." + f + ") || object.spec." + f + ".trim() == '' || object.spec." + f + ".matches(" + celRawString(SelectorPattern) + ")",
			Message:    "spec." + f + " is not a valid Calico selector (values must be quoted, == not =, && and || doubled); check it with calico-pilot lint",
			Reason:     invalid,
		})
	}
	return v
}

func hasPorts(entity string) string {
	return "(has(" + entity + ") && (has(" + entity + ".ports) || has(" + entity + ".notPorts)))"
}

// protocolIn is true when the rule's protocol, a name (any case) or a number, is one of names.
func protocolIn(rule string, names ...string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "'" + n + "'"
	}
	return "(has(" + rule + ".protocol) && string(" + rule + ".protocol).upperAscii() in [" + strings.Join(quoted, ", ") + "])"
}

func selectorOK(rule, entity, field string) string {
	e := rule + "." + entity
	return "(!has(" + e + ") || !has(" + e + "." + field + ") || " + e + "." + field + ".matches(" + celRawString(SelectorPattern) + "))"
}

// celRawString quotes s as a CEL triple-quoted raw string (no escapes are interpreted).
func celRawString(s string) string { return "r'''" + s + "'''" }
