package bump

import (
	"fmt"
	"strings"
)

// emitRelocated writes base line i at the place upstream moved it to (upstream text text): the
// downstream's version of it if it changed the line, with the comments above it, then the lines
// the downstream nested below it.
func (m *merger) emitRelocated(i int, text string) {
	ai := m.oa.partner[i]
	for _, k := range m.relocAbove[i] {
		h := m.hunks[m.hunkOfA[k]-1]
		if !m.relocated[i] {
			h.addNote("upstream moved " + describe(m.o.lines[i]) + "; the comments above it moved with it")
		}
		m.emit(m.downText(k, h), h.id)
	}
	if m.relocated[i] {
		h := m.hunks[m.hunkOfA[ai]-1]
		if text != m.o.lines[i].text {
			h.overridden = true
			h.addNote(fmt.Sprintf("upstream changed %q to %q; the downstream replacement was kept",
				strings.TrimLeft(m.masker.Unmask(m.o.lines[i].text), " "), strings.TrimLeft(m.masker.Unmask(text), " ")))
		}
		m.emit(m.downText(ai, h), h.id)
	} else {
		m.emit(text, -1)
	}
	for _, k := range m.relocTail[i] {
		h := m.hunks[m.hunkOfA[k]-1]
		if !m.relocated[i] {
			h.addNote("upstream moved " + describe(m.o.lines[i]) + "; the lines added below it moved with it")
		}
		m.emit(m.downText(k, h), h.id)
	}
}

// findRelocations finds downstream-changed lines that the new upstream moved: the base line is
// unmatched in the new upstream, but exactly one unmatched new-upstream line in the same
// document has its key path. The downstream change follows the line.
func (m *merger) findRelocations() {
	m.relocatedTo = map[int]int{}
	m.relocated = map[int]bool{}
	m.movedA = map[int]bool{}
	m.relocTail = map[int][]int{}
	m.relocAbove = map[int][]int{}
	candidates := m.unmatchedNewByPath()
	for i, o := range m.o.lines {
		ai := m.oa.partner[i]
		if o.path == "" || m.ob.partner[i] >= 0 || ai < 0 {
			continue
		}
		c := candidates[o.doc+"\x00"+o.path]
		if len(c) != 1 {
			continue
		}
		modified := m.a.lines[ai].text != o.text
		tail, above := m.travellingTail(ai), m.travellingComments(ai)
		if !modified && tail == nil && above == nil {
			continue
		}
		m.relocatedTo[c[0]] = i
		m.relocAbove[i] = above
		m.relocTail[i] = tail
		for _, j := range append(above, tail...) {
			m.movedA[j] = true
		}
		if modified {
			m.relocated[i] = true
		}
	}
}

// unmatchedNewByPath returns the new-upstream lines unmatched in the base, by document and key
// path.
func (m *merger) unmatchedNewByPath() map[string][]int {
	candidates := map[string][]int{}
	for j, l := range m.b.lines {
		if m.ob.back[j] < 0 && l.path != "" {
			k := l.doc + "\x00" + l.path
			candidates[k] = append(candidates[k], j)
		}
	}
	return candidates
}

// travellingTail returns the lines the downstream added right below downstream line ai, nested
// deeper than what follows them (more keys of the same item): they travel with the line. It is nil
// when there are none.
func (m *merger) travellingTail(ai int) []int {
	var tail []int
	for j := ai + 1; j < len(m.a.lines) && m.oa.back[j] < 0; j++ {
		tail = append(tail, j)
	}
	after := -1 // indentation of the downstream line after the tail; -1 at the end
	if k := ai + 1 + len(tail); k < len(m.a.lines) {
		after = indentOf(m.a.lines[k].text)
	}
	if ind := firstContentIndent(m.a.lines, tail); ind < 0 || ind <= after {
		return nil
	}
	return tail
}

// travellingComments returns the comment lines the downstream put right above downstream line ai,
// in file order: they travel with the line. It is nil when there are none.
func (m *merger) travellingComments(ai int) []int {
	var above []int
	for j := ai - 1; j >= 0 && m.oa.back[j] < 0 && m.a.lines[j].isComment() && !m.masker.isStatement(m.a.lines[j].text); j-- {
		above = append([]int{j}, above...)
	}
	return above
}

// findUpstreamCommentedRuns finds runs of base lines the new upstream commented out, and marks
// the runs in which the downstream changed a line: a downstream that sets a value explicitly
// keeps it when upstream merely comments out its default.
func (m *merger) findUpstreamCommentedRuns() {
	n := len(m.o.lines)
	m.keepActive = make([]bool, n)
	upCommented := func(i int) bool {
		bi := m.ob.partner[i]
		if bi < 0 || m.b.lines[bi].text == m.o.lines[i].text {
			return false
		}
		_, _, ok := commentedOut(m.b.lines[bi].text, m.o.lines[i].text)
		return ok
	}
	for i := 0; i < n; {
		if !upCommented(i) {
			i++
			continue
		}
		end := i
		changed := false
		for end < n && upCommented(end) {
			if ai := m.oa.partner[end]; ai >= 0 && m.a.lines[ai].text != m.o.lines[end].text {
				changed = true
			}
			end++
		}
		for k := i; k < end && changed; k++ {
			m.keepActive[k] = true
		}
		i = end
	}
}

// keepActiveHunk returns the patch that made the block around base line i stay active.
func (m *merger) keepActiveHunk(i int) int {
	for k := i; k < len(m.o.lines) && m.keepActive[k]; k++ {
		if m.hunkOfO[k] > 0 {
			return m.hunkOfO[k]
		}
	}
	for k := i; k >= 0 && m.keepActive[k]; k-- {
		if m.hunkOfO[k] > 0 {
			return m.hunkOfO[k]
		}
	}
	return 0
}

// findAddedByBoth finds lines the new upstream added that the downstream had added too (same
// document and key path, or inside an item the downstream added): an env var the downstream
// enabled and upstream now enables as well, an imagePullPolicy both added. Keeping both would
// duplicate the key; the downstream's version wins. Unnamed list items ([]) are never taken as
// the same.
func (m *merger) findAddedByBoth() {
	m.addedByBoth = map[int]*hunk{}
	added := map[string]*hunk{}
	for j, l := range m.a.lines {
		if m.oa.back[j] >= 0 || l.path == "" || strings.Contains(l.path, "[]") {
			continue
		}
		added[l.doc+"\x00"+l.path] = m.hunks[m.hunkOfA[j]-1]
	}
	if len(added) == 0 {
		return
	}
	for j, l := range m.b.lines {
		if m.ob.back[j] >= 0 || l.path == "" {
			continue
		}
		for k := 1; k <= len(l.path); k++ {
			if k < len(l.path) && l.path[k] != '.' && l.path[k] != '[' {
				continue
			}
			if h, ok := added[l.doc+"\x00"+l.path[:k]]; ok {
				m.addedByBoth[j] = h
				break
			}
		}
	}
}
