package selector

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// treeDiff compares trees without the byte offsets (a printed tree has other offsets).
func treeDiff(a, b Node) string {
	return cmp.Diff(a, b,
		cmpopts.IgnoreFields(All{}, "At"), cmpopts.IgnoreFields(Global{}, "At"),
		cmpopts.IgnoreFields(Has{}, "At", "KeyAt"), cmpopts.IgnoreFields(Match{}, "At"),
		cmpopts.IgnoreFields(Not{}, "At"), cmpopts.IgnoreFields(And{}, "At"), cmpopts.IgnoreFields(Or{}, "At"))
}

func TestParseValid(t *testing.T) {
	tests := []struct {
		name, in string
		want     Node
		// canonical is what String prints.
		canonical string
	}{
		{"all", "all()", &All{At: 0}, "all()"},
		{"all with inner space", " all( ) ", &All{At: 1}, "all()"},
		{"global", "global()", &Global{At: 0}, "global()"},
		{"has", "has(app)", &Has{At: 0, Key: "app", KeyAt: 4}, "has(app)"},
		{"has with prefix and spaces", "has( projectcalico.org/name )", &Has{At: 0, Key: "projectcalico.org/name", KeyAt: 5}, "has(projectcalico.org/name)"},
		{"equal single quotes", "app == 'web'", &Match{Key: "app", Op: OpEqual, Value: "web"}, "app == 'web'"},
		{"equal double quotes, no spaces", `app=="web"`, &Match{Key: "app", Op: OpEqual, Value: "web"}, "app == 'web'"},
		{"double quotes hold a single quote", `msg == "it's"`, &Match{Key: "msg", Op: OpEqual, Value: "it's"}, `msg == "it's"`},
		{"single quotes hold a double quote", `msg == 'say "hi"'`, &Match{Key: "msg", Op: OpEqual, Value: `say "hi"`}, `msg == 'say "hi"'`},
		{"empty value", "app == ''", &Match{Key: "app", Op: OpEqual, Value: ""}, "app == ''"},
		{"value with spaces and operators", "a == ' && || ! ( '", &Match{Key: "a", Op: OpEqual, Value: " && || ! ( "}, "a == ' && || ! ( '"},
		{"not equal", "app != 'web'", &Match{Key: "app", Op: OpNotEqual, Value: "web"}, "app != 'web'"},
		{"not equal no spaces", "app!='web'", &Match{Key: "app", Op: OpNotEqual, Value: "web"}, "app != 'web'"},
		{"prefixed key", "networking.gardener.cloud/endpoint == 'kube-apiserver'",
			&Match{Key: "networking.gardener.cloud/endpoint", Op: OpEqual, Value: "kube-apiserver"},
			"networking.gardener.cloud/endpoint == 'kube-apiserver'"},
		{"projectcalico.org/name", "projectcalico.org/name == 'kube-system'", &Match{Key: "projectcalico.org/name", Op: OpEqual, Value: "kube-system"}, "projectcalico.org/name == 'kube-system'"},
		{"in", "role in {'db', \"cache\"}", &Match{Key: "role", Op: OpIn, Values: []string{"db", "cache"}}, "role in {'db', 'cache'}"},
		{"in without spaces", "role in{'db','cache'}", &Match{Key: "role", Op: OpIn, Values: []string{"db", "cache"}}, "role in {'db', 'cache'}"},
		{"in empty set", "role in {}", &Match{Key: "role", Op: OpIn, Values: []string{}}, "role in {}"},
		{"not in", "role not in { 'db' }", &Match{Key: "role", Op: OpNotIn, Values: []string{"db"}}, "role not in {'db'}"},
		{"not in with extra space", "role  not \t in {'db'}", &Match{Key: "role", Op: OpNotIn, Values: []string{"db"}}, "role not in {'db'}"},
		{"contains", "name contains 'web'", &Match{Key: "name", Op: OpContains, Value: "web"}, "name contains 'web'"},
		{"starts with", "name starts with 'web-'", &Match{Key: "name", Op: OpStartsWith, Value: "web-"}, "name starts with 'web-'"},
		{"ends with", "name ends with \"-db\"", &Match{Key: "name", Op: OpEndsWith, Value: "-db"}, "name ends with '-db'"},
		{"label called in", "in == 'x'", &Match{Key: "in", Op: OpEqual, Value: "x"}, "in == 'x'"},
		{"label called all", "all == 'x'", &Match{Key: "all", Op: OpEqual, Value: "x"}, "all == 'x'"},
		{"not", "!has(app)", &Not{X: &Has{Key: "app", KeyAt: 5}}, "!has(app)"},
		{"not not", "!!has(app)", &Not{X: &Not{At: 1, X: &Has{Key: "app"}}}, "!!has(app)"},
		{"not binds to one term", "!a == 'x' && b == 'y'",
			&And{Terms: []Node{&Not{X: &Match{Key: "a", Op: OpEqual, Value: "x"}}, &Match{Key: "b", Op: OpEqual, Value: "y"}}},
			"!a == 'x' && b == 'y'"},
		{"and", "a == 'x' && has(b) && all()",
			&And{Terms: []Node{&Match{Key: "a", Op: OpEqual, Value: "x"}, &Has{Key: "b"}, &All{}}},
			"a == 'x' && has(b) && all()"},
		{"or", "a == 'x' || b == 'y'",
			&Or{Terms: []Node{&Match{Key: "a", Op: OpEqual, Value: "x"}, &Match{Key: "b", Op: OpEqual, Value: "y"}}},
			"a == 'x' || b == 'y'"},
		{"and binds tighter than or", "a == 'x' || b == 'y' && c == 'z'",
			&Or{Terms: []Node{&Match{Key: "a", Op: OpEqual, Value: "x"},
				&And{Terms: []Node{&Match{Key: "b", Op: OpEqual, Value: "y"}, &Match{Key: "c", Op: OpEqual, Value: "z"}}}}},
			"a == 'x' || (b == 'y' && c == 'z')"},
		{"parentheses", "(a == 'x' || b == 'y') && c == 'z'",
			&And{Terms: []Node{&Or{Terms: []Node{&Match{Key: "a", Op: OpEqual, Value: "x"}, &Match{Key: "b", Op: OpEqual, Value: "y"}}},
				&Match{Key: "c", Op: OpEqual, Value: "z"}}},
			"(a == 'x' || b == 'y') && c == 'z'"},
		{"redundant parentheses", "((has(a)))", &Has{Key: "a"}, "has(a)"},
		{"not of a group", "!(has(a) || has(b))", &Not{X: &Or{Terms: []Node{&Has{Key: "a"}, &Has{Key: "b"}}}}, "!(has(a) || has(b))"},
		{"newlines and tabs", "a == 'x'\n&&\tb == 'y'",
			&And{Terms: []Node{&Match{Key: "a", Op: OpEqual, Value: "x"}, &Match{Key: "b", Op: OpEqual, Value: "y"}}}, "a == 'x' && b == 'y'"},
		{"key with digits, dashes, dots, underscores", "k8s-app_x.y == '1'", &Match{Key: "k8s-app_x.y", Op: OpEqual, Value: "1"}, "k8s-app_x.y == '1'"},
		{"value with non-ASCII", "team == 'équipe'", &Match{Key: "team", Op: OpEqual, Value: "équipe"}, "team == 'équipe'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if d := treeDiff(tt.want, got); d != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.in, d)
			}
			if s := String(got); s != tt.canonical {
				t.Errorf("String = %q, want %q", s, tt.canonical)
			}
			again, err := Parse(String(got))
			if err != nil {
				t.Fatalf("re-parsing %q: %v", String(got), err)
			}
			if d := treeDiff(got, again); d != "" {
				t.Errorf("re-parsed tree differs (-first +again):\n%s", d)
			}
		})
	}
}

func TestParsePositions(t *testing.T) {
	got, err := Parse("  a == 'x' && !has( b )")
	if err != nil {
		t.Fatal(err)
	}
	want := &And{At: 2, Terms: []Node{&Match{At: 2, Key: "a", Op: OpEqual, Value: "x"}, &Not{At: 14, X: &Has{At: 15, Key: "b", KeyAt: 20}}}}
	if d := cmp.Diff(Node(want), got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestParseInvalid(t *testing.T) {
	tests := []struct {
		name, in string
		// column is the expected 1-based column; reason a substring of the reason.
		column int
		reason string
	}{
		{"empty", "", 1, "empty selector; use all() to select everything"},
		{"blank", "   ", 4, "empty selector"},
		{"bare label", "app", 4, `unexpected end of selector after label "app", expected an operator`},
		{"single =", "app = 'web'", 5, "single '=': use == to compare"},
		{"unquoted value", "app == web", 8, `unexpected "web", expected a quoted value after == (values must be quoted: 'web')`},
		{"missing value", "app ==", 7, "unexpected end of selector, expected a quoted value after =="},
		{"unterminated single quote", "app == 'web", 8, "unterminated string: no closing '"},
		{"unterminated double quote", `app == "web`, 8, `unterminated string: no closing "`},
		{"backslash is no escape", `app == 'it\'s'`, 13, `unexpected "s", expected &&, || or the end`},
		{"unknown operator", "app is 'web'", 5, `unexpected "is", expected an operator (==, !=, in, not in, contains, starts with, ends with) after label "app"`},
		{"not without in", "app not 'x'", 9, `expected "in" after "not"`},
		{"starts without with", "app starts 'x'", 12, `expected "with" after "starts"`},
		{"ends without with", "app ends by 'x'", 10, `unexpected "by", expected "with" after "ends"`},
		{"in without set", "app in 'x'", 8, "expected '{' starting the set of values after in"},
		{"unquoted set value", "app in {x}", 9, `unexpected "x", expected a quoted value in the set`},
		{"trailing comma", "app in {'x',}", 13, "'}' after ',': a set has no trailing comma"},
		{"missing comma", "app in {'x' 'y'}", 13, `unexpected "'", expected ',' or '}' in the set`},
		{"unclosed set", "app in {'x'", 12, "missing '}' to close the set at column 8"},
		{"single &", "a == 'x' & b == 'y'", 10, "single '&': use && for \"and\""},
		{"single |", "a == 'x' | b == 'y'", 10, "single '|': use || for \"or\""},
		{"dangling &&", "a == 'x' &&", 12, "unexpected end of selector, expected a label, '(', '!', all(), global() or has(label)"},
		{"leading ||", "|| a == 'x'", 1, `unexpected "|"`},
		{"words instead of operators", "a == 'x' and b == 'y'", 10, `unexpected "and", expected &&, || or the end of the selector`},
		{"unclosed paren", "(a == 'x'", 10, "missing ')' to close the '(' at column 1"},
		{"unbalanced close paren", "a == 'x')", 9, `unexpected ")", expected &&, || or the end`},
		{"empty parens", "()", 2, `unexpected ")", expected a label`},
		{"all with argument", "all(x)", 5, "expected ')': all() takes no argument"},
		{"global with argument", "global(x)", 8, "global() takes no argument"},
		{"has without label", "has()", 5, "expected a label name in has(...)"},
		{"has unclosed", "has(a", 6, "expected ')' to close has("},
		{"has with value", "has(a == 'x')", 7, "expected ')' to close has("},
		{"unknown function", "any()", 4, `unexpected '(' after "any": the functions are all(), global() and has(label)`},
		{"bang alone", "!", 2, "unexpected end of selector, expected a label"},
		{"!= at start", "!= 'x'", 1, `unexpected "!"`},
		{"illegal character in key", "app:name == 'x'", 4, `unexpected ":"`},
		{"column counts characters", "a == 'é' &&& b", 12, `single '&'`},
		{"too deep parens", strings.Repeat("(", MaxDepth+1) + "all()" + strings.Repeat(")", MaxDepth+1), MaxDepth + 1, "nested more than 100 levels deep"},
		{"too deep nots", strings.Repeat("!", MaxDepth+1) + "all()", MaxDepth + 1, "nested more than 100 levels deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %s, want an error", tt.in, String(n))
			}
			pe, ok := err.(*Error)
			if !ok {
				t.Fatalf("error is %T, want *Error", err)
			}
			if pe.Column != tt.column || !strings.Contains(pe.Reason, tt.reason) {
				t.Errorf("Parse(%q) = column %d %q, want column %d containing %q", tt.in, pe.Column, pe.Reason, tt.column, tt.reason)
			}
			if pe.Column != Column(tt.in, pe.Offset) {
				t.Errorf("Column %d does not match Offset %d", pe.Column, pe.Offset)
			}
		})
	}
}

func TestMaxDepthAccepted(t *testing.T) {
	in := strings.Repeat("(", MaxDepth) + "all()" + strings.Repeat(")", MaxDepth)
	if _, err := Parse(in); err != nil {
		t.Fatalf("nesting of exactly MaxDepth: %v", err)
	}
	// Long flat chains are not nesting.
	flat := strings.Repeat("has(a) && ", 10000) + "has(a)"
	n, err := Parse(flat)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(n.(*And).Terms); got != 10001 {
		t.Errorf("terms = %d, want 10001", got)
	}
}
