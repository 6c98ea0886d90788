package selector

import "strings"

// String prints n as a canonical selector that Parse reads back into the same tree: single spaces
// around operators, single quotes unless the value contains one, and parentheses exactly where an
// And or Or is a term of another And, Or or Not.
func String(n Node) string {
	var b strings.Builder
	write(&b, n)
	return b.String()
}

func write(b *strings.Builder, n Node) {
	switch n := n.(type) {
	case *All:
		b.WriteString("all()")
	case *Global:
		b.WriteString("global()")
	case *Has:
		b.WriteString("has(" + n.Key + ")")
	case *Match:
		b.WriteString(n.Key + " " + n.Op.String() + " ")
		if n.Op == OpIn || n.Op == OpNotIn {
			b.WriteByte('{')
			for i, v := range n.Values {
				if i > 0 {
					b.WriteString(", ")
				}
				quote(b, v)
			}
			b.WriteByte('}')
			return
		}
		quote(b, n.Value)
	case *Not:
		b.WriteByte('!')
		group(b, n.X)
	case *And:
		for i, t := range n.Terms {
			if i > 0 {
				b.WriteString(" && ")
			}
			group(b, t)
		}
	case *Or:
		for i, t := range n.Terms {
			if i > 0 {
				b.WriteString(" || ")
			}
			group(b, t)
		}
	}
}

// group writes n, in parentheses when it is an And or Or.
func group(b *strings.Builder, n Node) {
	switch n.(type) {
	case *And, *Or:
		b.WriteByte('(')
		write(b, n)
		b.WriteByte(')')
	default:
		write(b, n)
	}
}

// quote writes v in single quotes, or in double quotes when it contains a single quote (a parsed
// value never contains both).
func quote(b *strings.Builder, v string) {
	q := byte('\'')
	if strings.IndexByte(v, '\'') >= 0 {
		q = '"'
	}
	b.WriteByte(q)
	b.WriteString(v)
	b.WriteByte(q)
}
