// Package selector parses Calico label selector expressions (the language of spec.selector,
// namespaceSelector, serviceAccountSelector and the selectors of policy rules) into an AST.
//
// The grammar is the one Calico documents:
//
//	expr    = and { "||" and }
//	and     = unary { "&&" unary }
//	unary   = "!" unary | primary
//	primary = "(" expr ")" | "all()" | "global()" | "has(" key ")" | key op
//	op      = ("==" | "!=" | "contains" | "starts with" | "ends with") string
//	        | ("in" | "not in") "{" [ string { "," string } ] "}"
//	string  = "'" { any byte but "'" } "'" | `"` { any byte but `"` } `"`
//	key     = one or more of A-Z a-z 0-9 _ . / -
//
// Whitespace (space, tab, newline, carriage return) may separate tokens. Strings have no escapes: a
// single-quoted string may contain double quotes and vice versa. Keywords are recognised by position:
// after a key only an operator may follow, so a label may be called "in" or "all".
//
// A key is accepted with the characters Calico's tokenizer accepts; whether it is a key a
// Kubernetes label can have (optional DNS-subdomain prefix and "/", a name of at most 63 characters
// starting and ending with a letter or digit) is a separate check, InvalidKeys, because Calico
// itself accepts such a selector: it just never matches.
//
// The parser is a recursive-descent parser with one token of lookahead: it reads every byte once, so
// it is linear in the input, and it limits nesting (parentheses and "!") to MaxDepth so that no input
// can exhaust the stack. It never panics; every rejection is an *Error with the byte offset, the
// column and the reason.
package selector
