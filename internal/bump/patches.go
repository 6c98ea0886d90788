package bump

import (
	"regexp"
	"sort"
	"strings"
)

// hunk is one downstream patch while merging: the downstream and base lines it covers and what
// happened to it.
type hunk struct {
	id     int
	aLines []int // old-downstream indexes (added and changed lines)
	oLines []int // old-upstream indexes (removed and changed lines)
	// modified counts changed line pairs; commented those that are commented-out copies.
	modified  int
	commented int
	notes     []string
	conflict  string    // first conflict reason, empty when applied
	outLines  LineRange // where it landed in the output
	// overridden is set when the patch won over an upstream change of the same lines.
	overridden bool
}

// findHunks groups the downstream changes into patches: maximal runs of inserted, removed and
// changed lines between lines the downstream left alone.
func (m *merger) findHunks() {
	m.hunkOfA = fill(len(m.a.lines), -1)
	m.hunkOfO = fill(len(m.o.lines), -1)
	cur := (*hunk)(nil)
	open := func() *hunk {
		if cur == nil {
			cur = &hunk{id: len(m.hunks) + 1}
			m.hunks = append(m.hunks, cur)
		}
		return cur
	}
	j := 0
	for i := 0; i <= len(m.o.lines); i++ {
		target := len(m.a.lines)
		if i < len(m.o.lines) {
			target = m.oa.partner[i]
		}
		if target >= 0 {
			for ; j < target; j++ {
				h := open()
				h.aLines = append(h.aLines, j)
				m.hunkOfA[j] = h.id
			}
		}
		if i == len(m.o.lines) {
			break
		}
		ai := m.oa.partner[i]
		switch {
		case ai < 0:
			h := open()
			h.oLines = append(h.oLines, i)
			m.hunkOfO[i] = h.id
		case m.a.lines[ai].text != m.o.lines[i].text:
			h := open()
			h.oLines = append(h.oLines, i)
			h.aLines = append(h.aLines, ai)
			h.modified++
			if _, _, ok := commentedOut(m.a.lines[ai].text, m.o.lines[i].text); ok {
				h.commented++
			}
			m.hunkOfO[i] = h.id
			m.hunkOfA[ai] = h.id
			j = ai + 1
		default:
			cur = nil
			j = ai + 1
		}
	}
}

// numberHunks numbers the patches in the order they appear in the old downstream (documents
// were reordered for the alignment).
func (m *merger) numberHunks() {
	pos := func(h *hunk) int {
		if len(h.aLines) > 0 {
			p := m.a.lines[h.aLines[0]].num
			for _, j := range h.aLines {
				p = min(p, m.a.lines[j].num)
			}
			return p
		}
		// A pure removal sits where the next kept line is.
		for i := h.oLines[len(h.oLines)-1] + 1; i < len(m.o.lines); i++ {
			if ai := m.oa.partner[i]; ai >= 0 {
				return m.a.lines[ai].num
			}
		}
		return len(m.a.lines) + 1
	}
	sort.SliceStable(m.hunks, func(x, y int) bool { return pos(m.hunks[x]) < pos(m.hunks[y]) })
	renum := make(map[int]int, len(m.hunks))
	for k, h := range m.hunks {
		renum[h.id] = k + 1
		h.id = k + 1
	}
	for _, ids := range [][]int{m.hunkOfA, m.hunkOfO} {
		for k, id := range ids {
			if id > 0 {
				ids[k] = renum[id]
			}
		}
	}
}

func fill(n, v int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func describe(l line) string {
	if l.path != "" {
		return l.doc + " " + l.path
	}
	return l.doc + " line " + strings.TrimSpace(l.text)
}

func (h *hunk) addNote(n string) {
	for _, existing := range h.notes {
		if existing == n {
			return
		}
	}
	h.notes = append(h.notes, n)
}

// patchReports describes every hunk for the report.
func (m *merger) patchReports() []Patch {
	out := make([]Patch, 0, len(m.hunks))
	for _, h := range m.hunks {
		p := Patch{ID: h.id, Status: StatusApplied, Notes: h.notes, Conflict: h.conflict}
		var oldUp, oldDown LineRange
		for _, i := range h.oLines {
			oldUp.add(m.o.lines[i].num)
		}
		for _, j := range h.aLines {
			oldDown.add(m.a.lines[j].num)
		}
		p.OldUpstreamLines, p.OldDownstreamLines, p.OutputLines = rangeOrNil(oldUp), rangeOrNil(oldDown), rangeOrNil(h.outLines)
		switch {
		case h.commented > 0 && h.commented == h.modified:
			p.Kind = "commented-out"
		case h.modified > 0 || (len(h.oLines) > 0 && len(h.aLines) > 0):
			p.Kind = "changed"
		case len(h.aLines) > 0:
			p.Kind = "added"
		default:
			p.Kind = "removed"
		}
		if h.overridden {
			p.Status = StatusAppliedOverUpstream
		}
		if h.conflict != "" {
			p.Status = StatusConflict
		}
		p.Document, p.Anchor = m.anchorOf(h)
		p.Summary = m.summaryOf(h)
		out = append(out, p)
	}
	return out
}

func rangeOrNil(r LineRange) *LineRange {
	if r.From == 0 {
		return nil
	}
	return &r
}

// anchorOf names where a hunk sits: the first key path among its lines; for lines without a
// path (comments, block scalar content) the key path of the block they are in or the line they
// precede or follow in the same document.
func (m *merger) anchorOf(h *hunk) (string, string) {
	if doc, path, ok := m.firstPathOf(h); ok {
		return doc, path
	}
	first, last := m.downstreamSpan(h)
	if first < 0 {
		return "", "end of file"
	}
	doc := m.a.lines[first].doc
	if doc == "(preamble)" {
		return "(file header)", "before the first document"
	}
	return doc, m.anchorAround(first, last)
}

// firstPathOf returns the document and key path of the hunk's first downstream line with a path,
// else of its first base line with one.
func (m *merger) firstPathOf(h *hunk) (string, string, bool) {
	for _, j := range h.aLines {
		if l := m.a.lines[j]; l.path != "" {
			return l.doc, l.path, true
		}
	}
	for _, i := range h.oLines {
		if l := m.o.lines[i]; l.path != "" {
			return l.doc, l.path, true
		}
	}
	return "", "", false
}

// downstreamSpan locates the hunk in the downstream: its first and last lines, or for a pure
// removal the downstream line right after the removed base lines (first) and the one before it
// (last). first is -1 when there is no such line.
func (m *merger) downstreamSpan(h *hunk) (first, last int) {
	if len(h.aLines) > 0 {
		return h.aLines[0], h.aLines[len(h.aLines)-1]
	}
	if len(h.oLines) == 0 {
		return -1, -1
	}
	for i := h.oLines[len(h.oLines)-1] + 1; i < len(m.o.lines); i++ {
		if ai := m.oa.partner[i]; ai >= 0 {
			return ai, ai - 1
		}
	}
	return -1, -1
}

// anchorAround names where downstream lines first..last sit in their document by the key paths
// around them: inside the block scalar they continue, before the next path, after the previous
// one, or at the document start.
func (m *merger) anchorAround(first, last int) string {
	doc := m.a.lines[first].doc
	prev := -1 // the nearest line with a path above first in the same document
	for j := first - 1; j >= 0 && m.a.lines[j].doc == doc; j-- {
		if m.a.lines[j].path != "" {
			prev = j
			break
		}
	}
	if prev >= 0 && blockScalarKey.MatchString(m.a.lines[prev].text) && indentOf(m.a.lines[first].text) > indentOf(m.a.lines[prev].text) {
		return "inside " + m.a.lines[prev].path
	}
	for j := last + 1; j < len(m.a.lines) && m.a.lines[j].doc == doc; j++ {
		if l := m.a.lines[j]; l.path != "" {
			return "before " + l.path
		}
	}
	if prev >= 0 {
		return "after " + m.a.lines[prev].path
	}
	return "document start"
}

var blockScalarKey = regexp.MustCompile(`:\s*[|>][-+0-9]*\s*$`)

func (m *merger) summaryOf(h *hunk) string {
	for _, j := range h.aLines {
		if t := strings.TrimSpace(m.masker.Unmask(m.a.lines[j].text)); t != "" {
			return t
		}
	}
	for _, i := range h.oLines {
		if t := strings.TrimSpace(m.masker.Unmask(m.o.lines[i].text)); t != "" {
			return "removed: " + t
		}
	}
	return "(blank lines)"
}
