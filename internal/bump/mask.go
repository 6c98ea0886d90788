package bump

import (
	"fmt"
	"strconv"
	"strings"
)

// Masker replaces template expressions with YAML-safe tokens and restores them byte for byte.
// One Masker is shared by all inputs of a bump, so a token means the same text everywhere.
type Masker struct {
	prefix    string
	originals []string
}

// NewMasker returns a Masker whose token prefix occurs in none of inputs, so Unmask can never
// mistake input text for a token.
func NewMasker(inputs ...[]byte) *Masker {
	prefix := "CPMASK"
	for n := 0; ; n++ {
		candidate := prefix
		if n > 0 {
			candidate = prefix + strconv.Itoa(n)
		}
		clash := false
		for _, in := range inputs {
			if strings.Contains(string(in), candidate) {
				clash = true
				break
			}
		}
		if !clash {
			prefix = candidate
			break
		}
	}
	return &Masker{prefix: prefix}
}

// Masked reports how many template pieces have been masked so far.
func (m *Masker) Masked() int { return len(m.originals) }

func (m *Masker) token(original string) string {
	m.originals = append(m.originals, original)
	return fmt.Sprintf("%s_%d_", m.prefix, len(m.originals)-1)
}

// commentToken masks original as a YAML comment. The leading '#' is part of the token (the "c"
// marks it), so Unmask removes it again.
func (m *Masker) commentToken(original string) string {
	m.originals = append(m.originals, original)
	return fmt.Sprintf("#%s_c%d_", m.prefix, len(m.originals)-1)
}

// Mask returns text with every template construct replaced by tokens. A construct that spans
// lines is masked one line piece at a time, so line numbers stay the same. Statement and comment
// constructs that start a line (`{% ... %}`, `{# ... #}`) and a leading `#!` renderer line become
// YAML comments; expressions become plain scalars.
func (m *Masker) Mask(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	i := 0
	if strings.HasPrefix(text, "#!") {
		i = lineEnd(text, 0)
		b.WriteString(m.commentToken(text[:i]))
	}
	for i < len(text) {
		c := text[i]
		if c == '{' {
			if end, ok := m.maskConstruct(&b, text, i); ok {
				i = end
				continue
			}
		}
		if c == '_' && strings.HasPrefix(text[i:], "__slot__:") {
			end := slotEnd(text, i)
			b.WriteString(m.token(text[i:end]))
			i = end
			continue
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// maskConstruct masks the template construct (`{{ }}`, `{% %}`, `{# #}`) that starts at text[i],
// if it is one and closed, and returns where it ends. A statement or comment construct that starts
// its line becomes a YAML comment.
func (m *Masker) maskConstruct(b *strings.Builder, text string, i int) (int, bool) {
	if i+1 >= len(text) {
		return 0, false
	}
	var closer string
	switch text[i+1] {
	case '{':
		closer = "}}"
	case '%':
		closer = "%}"
	case '#':
		closer = "#}"
	default:
		return 0, false
	}
	end := strings.Index(text[i+2:], closer)
	if end < 0 {
		return 0, false
	}
	end = i + 2 + end + len(closer)
	lineStart := strings.LastIndexByte(text[:i], '\n') + 1
	startsLine := strings.TrimLeft(text[lineStart:i], " \t") == ""
	comment := text[i+1] != '{' && startsLine
	m.maskPieces(b, text[i:end], comment)
	return end, true
}

// slotEnd returns where the slot placeholder at text[i] ends: at the end of its line, or at its
// closing quote when it is quoted.
func slotEnd(text string, i int) int {
	end := lineEnd(text, i)
	if i > 0 && (text[i-1] == '"' || text[i-1] == '\'') {
		if q := strings.IndexByte(text[i:end], text[i-1]); q >= 0 {
			end = i + q
		}
	}
	return end
}

// lineEnd returns the index of the newline that ends the line holding text[i], or len(text).
func lineEnd(text string, i int) int {
	if end := strings.IndexByte(text[i:], '\n'); end >= 0 {
		return i + end
	}
	return len(text)
}

func (m *Masker) maskPieces(b *strings.Builder, construct string, comment bool) {
	for k, piece := range strings.Split(construct, "\n") {
		if k > 0 {
			b.WriteByte('\n')
		}
		if piece == "" {
			continue
		}
		if comment && k == 0 {
			b.WriteString(m.commentToken(piece))
			continue
		}
		b.WriteString(m.token(piece))
	}
}

// Unmask restores every token in text to the original it stands for. (A hand-written scan: a
// regular expression over a whole manifest was a sixth of the bump's time.)
func (m *Masker) Unmask(text string) string {
	if len(m.originals) == 0 || !strings.Contains(text, m.prefix) {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	i := 0
	for {
		k := strings.Index(text[i:], m.prefix)
		if k < 0 {
			b.WriteString(text[i:])
			return b.String()
		}
		k += i
		after := k + len(m.prefix)
		n, end, comment, ok := m.parseToken(text[after:])
		start := k
		if ok && comment {
			// A comment token carries the '#' in front of it.
			ok = k > 0 && text[k-1] == '#'
			start = k - 1
		}
		if !ok {
			b.WriteString(text[i:after])
			i = after
			continue
		}
		b.WriteString(text[i:start])
		b.WriteString(m.originals[n])
		i = after + end
	}
}

// parseToken reads "_<n>_" or "_c<n>_" (what follows the prefix of a token) and returns the
// original's index, the length read, and whether it is a comment token.
func (m *Masker) parseToken(rest string) (int, int, bool, bool) {
	p, comment := 0, false
	switch {
	case strings.HasPrefix(rest, "_c"):
		p, comment = 2, true
	case strings.HasPrefix(rest, "_"):
		p = 1
	default:
		return 0, 0, false, false
	}
	q := p
	for q < len(rest) && rest[q] >= '0' && rest[q] <= '9' {
		q++
	}
	if q == p || q >= len(rest) || rest[q] != '_' {
		return 0, 0, false, false
	}
	n, err := strconv.Atoi(rest[p:q])
	if err != nil || n >= len(m.originals) {
		return 0, 0, false, false
	}
	return n, q + 1, comment, true
}

// isStatement reports whether a masked line holds a template statement or comment that was
// masked as a YAML comment ({% ... %}, {# ... #}, the #! line).
func (m *Masker) isStatement(masked string) bool {
	return strings.Contains(masked, "#"+m.prefix+"_c")
}
