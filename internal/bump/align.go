package bump

import (
	"context"
	"strings"
)

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
		out[i] = t.id(l.doc + "\x00" + l.path + "\x00" + l.text)
	}
	return out
}

// id is k's number: the next free one the first time k is seen.
func (t keyTable) id(k string) int {
	id, ok := t[k]
	if !ok {
		id = len(t)
		t[k] = id
	}
	return id
}

// align aligns base with other in two passes: exact identity and text first, then inside each gap
// lines that share a key path (a changed value) or, when allowCommented is set, lines of other
// that are commented-out copies of base lines.
// A cancelled ctx leaves the alignment partial; the caller checks ctx.Err().
func align(ctx context.Context, base, other *document, keys keyTable, allowCommented bool) alignment {
	exact := matchLines(ctx, keys.keys(base), keys.keys(other))
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
		for _, q := range matchGap(ctx, base, other, pa, p[0], pb, p[1], eq) {
			link(q)
		}
		if p[0] < len(base.lines) {
			link(p)
		}
		pa, pb = p[0]+1, p[1]+1
	}
	return al
}

// directTableCells is the gap size (cells of the LCS table) up to which matchGap uses a table
// directly. Each cell evaluates eq (string comparisons), about 250 ns: a 1,000 x 1,000 gap took
// 260 ms as a table and takes a few ms anchored on key paths first.
const directTableCells = 64 * 1024

// matchGap aligns the gap base.lines[alo:ahi] / other.lines[blo:bhi] by eq. A gap small enough
// for a quick LCS table gets one; a larger one (a 5,000-key ConfigMap the downstream reordered and
// upstream changed has no common line at all) is first anchored on key paths that occur once on
// each side (patience on the structure, O(n log n)), and the smaller gaps between those anchors
// are aligned the same way. Giving up on a large gap instead would make every line of it look
// removed and re-added upstream, and a downstream change to such a line would be dropped without
// a conflict.
func matchGap(ctx context.Context, base, other *document, alo, ahi, blo, bhi int, eq func(i, j int) bool) [][2]int {
	n, m := ahi-alo, bhi-blo
	if n == 0 || m == 0 || ctx.Err() != nil {
		return nil
	}
	if n*m <= directTableCells {
		return matchBy(ctx, alo, ahi, blo, bhi, eq)
	}
	type occ struct{ countA, countB, posA, posB int }
	occs := make(map[string]*occ, n)
	key := func(l line) string { return l.doc + "\x00" + l.path }
	for i := alo; i < ahi; i++ {
		if l := base.lines[i]; l.path != "" {
			o := occs[key(l)]
			if o == nil {
				o = &occ{}
				occs[key(l)] = o
			}
			o.countA++
			o.posA = i
		}
	}
	for j := blo; j < bhi; j++ {
		if l := other.lines[j]; l.path != "" {
			if o := occs[key(l)]; o != nil {
				o.countB++
				o.posB = j
			}
		}
	}
	var uniq [][2]int
	for i := alo; i < ahi; i++ {
		if l := base.lines[i]; l.path != "" {
			if o := occs[key(l)]; o.countA == 1 && o.countB == 1 {
				uniq = append(uniq, [2]int{i, o.posB})
			}
		}
	}
	if len(uniq) == 0 {
		// No structural anchor: one table if it fits, else the gap stays unaligned.
		return matchBy(ctx, alo, ahi, blo, bhi, eq)
	}
	var out [][2]int
	pa, pb := alo, blo
	for _, an := range longestIncreasing(uniq) {
		out = append(out, matchGap(ctx, base, other, pa, an[0], pb, an[1], eq)...)
		out = append(out, an)
		pa, pb = an[0]+1, an[1]+1
	}
	return append(out, matchGap(ctx, base, other, pa, ahi, pb, bhi, eq)...)
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
