package render

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/environment"
	"sigs.k8s.io/yaml"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/selector"
)

// TestSelectorPatternAgreesWithParser holds SelectorPattern to the parser: it accepts every selector
// the parser accepts and rejects the parser's rejections, but for unbalanced or too deep parentheses
// (which a regular expression cannot count).
func TestSelectorPatternAgreesWithParser(t *testing.T) {
	re := regexp.MustCompile(SelectorPattern)
	valid := []string{
		"all()", " all( ) ", "global()", "has(app)", "has( projectcalico.org/name )", "app == 'web'", `app=="web"`,
		`msg == "it's"`, `msg == 'say "hi"'`, "app == ''", "a == ' && || ! ( '", "app!='web'",
		"networking.gardener.cloud/endpoint == 'kube-apiserver'", "role in {'db', \"cache\"}", "role in{'db','cache'}",
		"role in {}", "role not in { 'db' }", "role  not \t in {'db'}", "name contains 'web'", "name starts with 'web-'",
		"name ends with \"-db\"", "in == 'x'", "all == 'x'", "!has(app)", "!!has(app)", "!a == 'x' && b == 'y'",
		"a == 'x' || b == 'y' && c == 'z'", "(a == 'x' || b == 'y') && c == 'z'", "((has(a)))", "!(has(a) || has(b))",
		"a == 'x'\n&&\tb == 'y'", "team == 'équipe'", "has (a)", "a contains'x'",
	}
	for _, s := range valid {
		if _, err := selector.Parse(s); err != nil {
			t.Fatalf("test input %q does not parse: %v", s, err)
		}
		if !re.MatchString(s) {
			t.Errorf("SelectorPattern rejects %q, which Calico accepts", s)
		}
	}
	invalid := []string{
		"", "   ", "app", "app = 'web'", "app == web", "app ==", "app == 'web", `app == "web`, `app == 'it\'s'`,
		"app is 'web'", "app not 'x'", "app starts 'x'", "app in 'x'", "app in {x}", "app in {'x',}", "app in {'x' 'y'}",
		"app in {'x'", "a == 'x' & b == 'y'", "a == 'x' | b == 'y'", "a == 'x' &&", "|| a == 'x'", "a == 'x' and b == 'y'",
		"()", "all(x)", "global(x)", "has()", "has(a", "has(a == 'x')", "any()", "!", "!= 'x'", "app:name == 'x'",
	}
	for _, s := range invalid {
		if _, err := selector.Parse(s); err == nil {
			t.Fatalf("test input %q parses", s)
		}
		if re.MatchString(s) {
			t.Errorf("SelectorPattern accepts %q, which Calico rejects", s)
		}
	}
	// What a regular expression cannot see, documented by test.
	for _, s := range []string{"(a == 'x'", "a == 'x')", strings.Repeat("(", 101) + "all()" + strings.Repeat(")", 101)} {
		if !re.MatchString(s) {
			t.Errorf("SelectorPattern now rejects %q: update its doc comment", s)
		}
	}
}

// FuzzSelectorPattern checks on any input that a selector the parser accepts matches the pattern.
func FuzzSelectorPattern(f *testing.F) {
	for _, s := range []string{"all()", "a in {'x'}", "!(a == 'x' || has(b)) && c not in {}", "a starts with 'x'"} {
		f.Add(s)
	}
	re := regexp.MustCompile(SelectorPattern)
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := selector.Parse(s); err == nil && !re.MatchString(s) {
			t.Fatalf("the parser accepts %q but SelectorPattern rejects it", s)
		}
	})
}

// TestPolicyAdmissionCEL compiles every expression of the ValidatingAdmissionPolicy with the API
// server's CEL environment and evaluates it on policies, as the API server does.
func TestPolicyAdmissionCEL(t *testing.T) {
	objs, err := PolicyAdmission("Deny")
	if err != nil {
		t.Fatal(err)
	}
	vap := objs[0].(*admissionregistrationv1.ValidatingAdmissionPolicy)
	compiler := cel.NewCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	type check struct {
		message string
		program func(object map[string]any) (bool, error)
	}
	compile := func(expr, message string) check {
		res := compiler.CompileCELExpression(&validating.ValidationCondition{Expression: expr}, cel.OptionalVariableDeclarations{}, environment.StoredExpressions)
		if res.Error != nil {
			t.Fatalf("compiling %q: %v", expr, res.Error)
		}
		return check{message: message, program: func(object map[string]any) (bool, error) {
			out, _, err := res.Program.Eval(map[string]any{"object": object})
			if err != nil {
				return false, err
			}
			return out.Value().(bool), nil
		}}
	}
	var checks []check
	for _, v := range vap.Spec.Validations {
		checks = append(checks, compile(v.Expression, v.Message))
	}
	match := compile(vap.Spec.MatchConditions[0].Expression, "match")

	tests := []struct {
		name string
		yaml string
		// failing are the start of the messages of the failing validations, in order.
		failing []string
	}{
		{name: "seed 004 example policy", yaml: seedPolicy},
		{name: "missing order, selector, types", yaml: `
spec:
  egress:
  - action: Allow
    protocol: TCP
    destination: {ports: [443]}`,
			failing: []string{"spec.selector is required", "spec.types is required", "spec.order is required", "spec.egress: types does not include Egress"}},
		{name: "ports without protocol or with ICMP, icmp with TCP", yaml: `
spec:
  order: 1
  selector: all()
  types: [Ingress, Egress]
  ingress:
  - action: Allow
    protocol: 1
    source: {notPorts: [22]}
  egress:
  - action: Allow
    destination: {ports: [443]}
  - action: Allow
    protocol: tcp
    icmp: {type: 8}`,
			failing: []string{"spec.ingress: a rule with ports needs protocol", "spec.egress: a rule with ports needs protocol", "spec.egress: ICMP type and code need protocol"}},
		{name: "protocol numbers and names in any case pass", yaml: `
spec:
  order: 1
  selector: all()
  types: [Ingress]
  ingress:
  - {action: Allow, protocol: 6, destination: {ports: [80]}}
  - {action: Allow, protocol: sctp, destination: {ports: [80]}}
  - {action: Allow, protocol: ICMPv6, icmp: {type: 128}}
  - {action: Allow, protocol: 58, notICMP: {type: 1}}`},
		{name: "invalid selectors", yaml: `
spec:
  order: 1
  selector: app = 'web'
  serviceAccountSelector: "has(x"
  types: [Egress]
  egress:
  - action: Allow
    protocol: TCP
    destination:
      namespaceSelector: global()
      selector: networking.gardener.cloud/endpoint == kube-apiserver`,
			failing: []string{"spec.egress: a selector of a rule is not a valid Calico selector", "spec.selector is not a valid Calico selector", "spec.serviceAccountSelector is not a valid Calico selector"}},
		{name: "blank selector", yaml: "spec: {order: 1, selector: ' ', types: [Ingress]}", failing: []string{"spec.selector is required"}},
		{name: "no spec", yaml: "metadata: {name: x}", failing: []string{"spec.selector is required", "spec.types is required", "spec.order is required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var object map[string]any
			if err := yaml.Unmarshal([]byte(tt.yaml), &object); err != nil {
				t.Fatal(err)
			}
			if ok, err := match.program(object); err != nil || !ok {
				t.Fatalf("match condition = %v, %v; want true", ok, err)
			}
			var failing []string
			for _, c := range checks {
				ok, err := c.program(object)
				if err != nil {
					t.Fatalf("evaluating %q: %v", c.message, err)
				}
				if !ok {
					failing = append(failing, c.message)
				}
			}
			if len(failing) != len(tt.failing) {
				t.Fatalf("failing validations:\n%s\nwant %d starting with %q", strings.Join(failing, "\n"), len(tt.failing), tt.failing)
			}
			for i := range failing {
				if !strings.HasPrefix(failing[i], tt.failing[i]) {
					t.Errorf("failing[%d] = %q, want prefix %q", i, failing[i], tt.failing[i])
				}
			}
		})
	}

	var deletion map[string]any
	if err := yaml.Unmarshal([]byte("spec: {stagedAction: Delete}"), &deletion); err != nil {
		t.Fatal(err)
	}
	if ok, err := match.program(deletion); err != nil || ok {
		t.Errorf("a staged deletion must not be checked: match = %v, %v", ok, err)
	}
}

func TestPolicyAdmissionActions(t *testing.T) {
	for _, action := range []calicov1alpha1.PolicyValidationMode{"Deny", "Warn"} {
		objs, err := PolicyAdmission(action)
		if err != nil {
			t.Fatal(err)
		}
		binding := objs[1].(*admissionregistrationv1.ValidatingAdmissionPolicyBinding)
		if d := cmp.Diff([]admissionregistrationv1.ValidationAction{admissionregistrationv1.ValidationAction(action)}, binding.Spec.ValidationActions); d != "" {
			t.Errorf("validationActions (-want +got):\n%s", d)
		}
		if binding.Spec.PolicyName != objs[0].GetName() {
			t.Errorf("binding names policy %q, want %q", binding.Spec.PolicyName, objs[0].GetName())
		}
	}
	if objs, err := PolicyAdmissionFor(nil); err != nil || objs != nil {
		t.Errorf("PolicyAdmissionFor(nil) = %v, %v; want nothing (opt-in)", objs, err)
	}
	objs, err := PolicyAdmissionFor(&calicov1alpha1.PolicyValidation{Mode: calicov1alpha1.PolicyValidationModeWarn})
	if err != nil || len(objs) != 2 {
		t.Fatalf("PolicyAdmissionFor(Warn) = %d objects, %v", len(objs), err)
	}
	if got := objs[1].(*admissionregistrationv1.ValidatingAdmissionPolicyBinding).Spec.ValidationActions; len(got) != 1 || got[0] != admissionregistrationv1.Warn {
		t.Errorf("PolicyAdmissionFor(Warn) validationActions = %v", got)
	}
	if _, err := PolicyAdmission("Audit"); err == nil || err.Error() != `rendering policy validation: action "Audit" is not Deny or Warn` {
		t.Errorf("PolicyAdmission(Audit) error = %v", err)
	}
}

const seedPolicy = `
apiVersion: crd.projectcalico.org/v1
kind: GlobalNetworkPolicy
metadata:
  name: allow-to-kube-apiserver
spec:
  order: 100
  selector: all()
  types:
  - Egress
  egress:
  - action: Allow
    protocol: TCP
    destination:
      services:
        name: kubernetes
        namespace: default
  - action: Allow
    protocol: TCP
    destination:
      selector: networking.gardener.cloud/endpoint == 'kube-apiserver'
      ports:
      - 443
`
