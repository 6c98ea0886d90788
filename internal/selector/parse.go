package selector

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxDepth is how deeply parentheses and "!" may nest. Real selectors nest a few levels; the limit
// keeps a hostile input from exhausting the stack.
const MaxDepth = 100

// Error is a selector the parser rejects.
type Error struct {
	// Offset is the byte offset in the input where the problem is (len(input) at the end).
	Offset int
	// Column is the 1-based column of Offset, counted in characters.
	Column int
	// Reason says what is wrong and what was expected.
	Reason string
}

func (e *Error) Error() string {
	return fmt.Sprintf("column %d: %s", e.Column, e.Reason)
}

// Parse parses a Calico selector expression. An empty or blank input is an error: whether an empty
// selector field means "all" depends on the field, which the caller knows.
func Parse(input string) (Node, error) {
	p := &parser{in: input}
	p.skipSpace()
	if p.pos == len(p.in) {
		return nil, p.errAt(p.pos, "empty selector; use all() to select everything")
	}
	n, err := p.parseOr(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.in) {
		return nil, p.unexpected("&&, || or the end of the selector")
	}
	return n, nil
}

type parser struct {
	in  string
	pos int
}

func (p *parser) errAt(offset int, format string, args ...any) *Error {
	if offset > len(p.in) {
		offset = len(p.in)
	}
	prefix := p.in[:offset]
	return &Error{Offset: offset, Column: utf8.RuneCountInString(prefix) + 1, Reason: fmt.Sprintf(format, args...)}
}

// unexpected reports the input at the current position when something else was expected.
func (p *parser) unexpected(expected string) *Error {
	if p.pos >= len(p.in) {
		return p.errAt(p.pos, "unexpected end of selector, expected %s", expected)
	}
	r, _ := utf8.DecodeRuneInString(p.in[p.pos:])
	switch {
	case p.hasPrefix("&") && !p.hasPrefix("&&"):
		return p.errAt(p.pos, "single '&': use && for \"and\"")
	case p.hasPrefix("|") && !p.hasPrefix("||"):
		return p.errAt(p.pos, "single '|': use || for \"or\"")
	case p.hasPrefix("=") && !p.hasPrefix("=="):
		return p.errAt(p.pos, "single '=': use == to compare")
	}
	if isKeyByte(p.in[p.pos]) {
		return p.errAt(p.pos, "unexpected %q, expected %s", p.word(), expected)
	}
	return p.errAt(p.pos, "unexpected %q, expected %s", string(r), expected)
}

// word returns the run of key characters at the current position (for messages), shortened.
func (p *parser) word() string {
	end := p.pos
	for end < len(p.in) && isKeyByte(p.in[end]) {
		end++
	}
	w := p.in[p.pos:end]
	if len(w) > 40 {
		w = w[:40] + "..."
	}
	return w
}

func (p *parser) skipSpace() {
	for p.pos < len(p.in) {
		switch p.in[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) hasPrefix(s string) bool { return strings.HasPrefix(p.in[p.pos:], s) }

func isKeyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '/' || c == '-'
}

// parseOr parses and-expressions separated by ||. depth counts the enclosing parentheses and "!".
func (p *parser) parseOr(depth int) (Node, error) {
	return p.parseJoined(depth, "||", p.parseAnd, func(at int, terms []Node) Node { return &Or{At: at, Terms: terms} })
}

func (p *parser) parseAnd(depth int) (Node, error) {
	return p.parseJoined(depth, "&&", p.parseUnary, func(at int, terms []Node) Node { return &And{At: at, Terms: terms} })
}

// parseJoined parses operands separated by op: the operand alone, or join of the operands and where
// the first starts.
func (p *parser) parseJoined(depth int, op string, operand func(depth int) (Node, error), join func(at int, terms []Node) Node) (Node, error) {
	start := p.pos
	terms, err := p.parseTerms(depth, op, operand)
	switch {
	case err != nil:
		return nil, err
	case len(terms) == 1:
		return terms[0], nil
	}
	return join(start, terms), nil
}

// parseTerms parses one or more operands (each by operand) separated by op.
func (p *parser) parseTerms(depth int, op string, operand func(depth int) (Node, error)) ([]Node, error) {
	first, err := operand(depth)
	if err != nil {
		return nil, err
	}
	terms := []Node{first}
	for {
		p.skipSpace()
		if !p.hasPrefix(op) {
			return terms, nil
		}
		p.pos += len(op)
		p.skipSpace()
		t, err := operand(depth)
		if err != nil {
			return nil, err
		}
		terms = append(terms, t)
	}
}

const operandExpected = "a label, '(', '!', all(), global() or has(label)"

func (p *parser) parseUnary(depth int) (Node, error) {
	p.skipSpace()
	start := p.pos
	if p.hasPrefix("!") && !p.hasPrefix("!=") {
		if depth+1 > MaxDepth {
			return nil, p.errAt(start, "nested more than %d levels deep", MaxDepth)
		}
		p.pos++
		x, err := p.parseUnary(depth + 1)
		if err != nil {
			return nil, err
		}
		return &Not{At: start, X: x}, nil
	}
	return p.parsePrimary(depth)
}

func (p *parser) parsePrimary(depth int) (Node, error) {
	start := p.pos
	if p.pos >= len(p.in) {
		return nil, p.unexpected(operandExpected)
	}
	if p.in[p.pos] == '(' {
		if depth+1 > MaxDepth {
			return nil, p.errAt(start, "nested more than %d levels deep", MaxDepth)
		}
		p.pos++
		p.skipSpace()
		x, err := p.parseOr(depth + 1)
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if !p.hasPrefix(")") {
			if p.pos >= len(p.in) {
				return nil, p.errAt(p.pos, "missing ')' to close the '(' at column %d", p.errAt(start, "").Column)
			}
			return nil, p.unexpected(fmt.Sprintf("&&, || or ')' to close the '(' at column %d", p.errAt(start, "").Column))
		}
		p.pos++
		return x, nil
	}
	if !isKeyByte(p.in[p.pos]) {
		return nil, p.unexpected(operandExpected)
	}
	key := p.readKey()
	// all(), global() and has(...) are functions only when "(" follows; otherwise the word is a label.
	afterKey := p.pos
	p.skipSpace()
	if p.hasPrefix("(") {
		switch key {
		case "all", "global":
			p.pos++
			p.skipSpace()
			if !p.hasPrefix(")") {
				return nil, p.unexpected(fmt.Sprintf("')': %s() takes no argument", key))
			}
			p.pos++
			if key == "all" {
				return &All{At: start}, nil
			}
			return &Global{At: start}, nil
		case "has":
			p.pos++
			p.skipSpace()
			keyAt := p.pos
			if p.pos >= len(p.in) || !isKeyByte(p.in[p.pos]) {
				return nil, p.unexpected("a label name in has(...)")
			}
			label := p.readKey()
			p.skipSpace()
			if !p.hasPrefix(")") {
				return nil, p.unexpected("')' to close has(")
			}
			p.pos++
			return &Has{At: start, Key: label, KeyAt: keyAt}, nil
		default:
			return nil, p.errAt(afterKey, "unexpected '(' after %q: the functions are all(), global() and has(label)", key)
		}
	}
	return p.parseMatch(start, key)
}

// readKey reads a run of key characters.
func (p *parser) readKey() string {
	start := p.pos
	for p.pos < len(p.in) && isKeyByte(p.in[p.pos]) {
		p.pos++
	}
	return p.in[start:p.pos]
}

const opExpected = "an operator (==, !=, in, not in, contains, starts with, ends with)"

// parseMatch parses the operator and operand after a label key; the position is after the key and
// any whitespace.
func (p *parser) parseMatch(start int, key string) (Node, error) {
	m := &Match{At: start, Key: key}
	if p.pos >= len(p.in) {
		return nil, p.errAt(p.pos, "unexpected end of selector after label %q, expected %s", key, opExpected)
	}
	switch {
	case p.hasPrefix("=="):
		p.pos += 2
		m.Op = OpEqual
	case p.hasPrefix("!="):
		p.pos += 2
		m.Op = OpNotEqual
	case p.hasPrefix("="):
		return nil, p.errAt(p.pos, "single '=': use == to compare")
	case p.keyword("in"):
		m.Op = OpIn
	case p.keyword("contains"):
		m.Op = OpContains
	case p.keyword("not"):
		if !p.keyword("in") {
			return nil, p.unexpected("\"in\" after \"not\"")
		}
		m.Op = OpNotIn
	case p.keyword("starts"):
		if !p.keyword("with") {
			return nil, p.unexpected("\"with\" after \"starts\"")
		}
		m.Op = OpStartsWith
	case p.keyword("ends"):
		if !p.keyword("with") {
			return nil, p.unexpected("\"with\" after \"ends\"")
		}
		m.Op = OpEndsWith
	default:
		return nil, p.unexpected(fmt.Sprintf("%s after label %q", opExpected, key))
	}
	p.skipSpace()
	if m.Op == OpIn || m.Op == OpNotIn {
		values, err := p.parseSet(m.Op)
		if err != nil {
			return nil, err
		}
		m.Values = values
		return m, nil
	}
	v, err := p.parseString(m.Op)
	if err != nil {
		return nil, err
	}
	m.Value = v
	return m, nil
}

// keyword consumes word (and the whitespace before and after it) when it stands at the current
// position as a whole word.
func (p *parser) keyword(word string) bool {
	save := p.pos
	p.skipSpace()
	if p.hasPrefix(word) && (p.pos+len(word) == len(p.in) || !isKeyByte(p.in[p.pos+len(word)])) {
		p.pos += len(word)
		p.skipSpace()
		return true
	}
	p.pos = save
	return false
}

// parseString reads a single- or double-quoted string; there are no escapes. after is the operator
// the value follows, 0 for a value in a set (for the message only).
func (p *parser) parseString(after Op) (string, error) {
	if p.pos >= len(p.in) || (p.in[p.pos] != '\'' && p.in[p.pos] != '"') {
		expected := "a quoted value in the set"
		if after != 0 {
			expected = "a quoted value after " + after.String()
		}
		if p.pos < len(p.in) && isKeyByte(p.in[p.pos]) {
			return "", p.errAt(p.pos, "unexpected %q, expected %s (values must be quoted: '%s')", p.word(), expected, p.word())
		}
		return "", p.unexpected(expected)
	}
	quote := p.in[p.pos]
	start := p.pos
	end := strings.IndexByte(p.in[p.pos+1:], quote)
	if end < 0 {
		return "", p.errAt(start, "unterminated string: no closing %c (strings have no escapes; quote a value containing %c with the other quote)", quote, quote)
	}
	s := p.in[p.pos+1 : p.pos+1+end]
	p.pos += end + 2
	return s, nil
}

// parseSet reads {'a', "b", ...}; an empty set {} is allowed.
func (p *parser) parseSet(op Op) ([]string, error) {
	if !p.hasPrefix("{") {
		return nil, p.unexpected(fmt.Sprintf("'{' starting the set of values after %s", op))
	}
	open := p.pos
	p.pos++
	p.skipSpace()
	values := []string{}
	if p.hasPrefix("}") {
		p.pos++
		return values, nil
	}
	for {
		v, err := p.parseString(0)
		if err != nil {
			return nil, err
		}
		values = append(values, v)
		p.skipSpace()
		switch {
		case p.hasPrefix(","):
			p.pos++
			p.skipSpace()
			if p.hasPrefix("}") {
				return nil, p.errAt(p.pos, "'}' after ',': a set has no trailing comma")
			}
		case p.hasPrefix("}"):
			p.pos++
			return values, nil
		case p.pos >= len(p.in):
			return nil, p.errAt(p.pos, "missing '}' to close the set at column %d", p.errAt(open, "").Column)
		default:
			return nil, p.unexpected("',' or '}' in the set")
		}
	}
}
