package bump

import "strings"

// alignment maps every line of a base document to its partner in another document, or -1.
type alignment struct {
	partner []int // base index -> other index or -1
	back    []int // other index -> base index or -1
}

// keyTable interns line identities (document, path, text) to ints for the diff.
type keyTable map[string]int

func (t keyTable) keys(d *document) []int {
	out := make([]int, len(d.lines))
	for i, l := range d.lines {
		k := l.doc + "\x00" + l.path + "\x00" + l.text
		id, ok := t[k]
		if !ok {
			id = len(t)
			t[k] = id
		}
		out[i] = id
	}
	return out
}

// align aligns base with other in two passes: exact identity and text first, then inside each gap
// lines that share a key path (a changed value) or, when allowCommented is set, lines of other
// that are commented-out copies of base lines.
func align(base, other *document, keys keyTable, allowCommented bool) alignment {
	exact := matchLines(keys.keys(base), keys.keys(other))
	al := alignment{partner: make([]int, len(base.lines)), back: make([]int, len(other.lines))}
	for i := range al.partner {
		al.partner[i] = -1
	}
	for j := range al.back {
		al.back[j] = -1
	}
	eq := func(i, j int) bool {
		bl, ol := base.lines[i], other.lines[j]
		if bl.doc != ol.doc {
			return false
		}
		if bl.path != "" && bl.path == ol.path {
			return true
		}
		if allowCommented {
			if _, _, ok := commentedOut(ol.text, bl.text); ok && !bl.isBlank() {
				return true
			}
		}
		return false
	}
	link := func(p [2]int) {
		al.partner[p[0]] = p[1]
		al.back[p[1]] = p[0]
	}
	pa, pb := 0, 0
	for _, p := range append(exact, [2]int{len(base.lines), len(other.lines)}) {
		for _, q := range matchBy(pa, p[0], pb, p[1], eq) {
			link(q)
		}
		if p[0] < len(base.lines) {
			link(p)
		}
		pa, pb = p[0]+1, p[1]+1
	}
	return al
}

// commentedOut reports whether commented is original commented out by inserting "#" or "# " at
// some column, and returns that column and marker.
func commentedOut(commented, original string) (int, string, bool) {
	idx := strings.IndexByte(commented, '#')
	if idx < 0 || strings.TrimLeft(commented[:idx], " \t") != "" {
		return 0, "", false
	}
	for _, marker := range []string{"#", "# "} {
		if strings.HasPrefix(commented[idx:], marker) && commented[:idx]+commented[idx+len(marker):] == original {
			return idx, marker, true
		}
	}
	return 0, "", false
}

// commentOut comments text out the same way: marker inserted at col when the line is indented at
// least that far, at its own indentation otherwise.
func commentOut(text string, col int, marker string) string {
	ind := len(text) - len(strings.TrimLeft(text, " "))
	if strings.TrimSpace(text) == "" {
		return strings.Repeat(" ", col) + strings.TrimRight(marker, " ")
	}
	if ind < col {
		col = ind
	}
	return text[:col] + marker + text[col:]
}

func indentOf(text string) int { return len(text) - len(strings.TrimLeft(text, " ")) }
