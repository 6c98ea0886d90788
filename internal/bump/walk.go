package bump

import (
	"context"
	"fmt"
	"strings"
)

// pendingConflict is the conflict block being collected; consecutive conflicting lines of one
// patch share a block.
type pendingConflict struct {
	hunk int
	// reasons are the distinct kinds of problem in this block, each with the first detail.
	reasons []string
	kinds   map[string]bool
	down    []string
	up      []string
}

// commentState describes how the downstream commented out a block: the column of the marker and
// the marker itself ("#" or "# ").
type commentState struct {
	col    int
	marker string
}

// walk decides every line of the old upstream in order and emits the output.
// A cancelled ctx stops it early; the caller checks ctx.Err().
func (m *merger) walk(ctx context.Context) {
	pa, pb := 0, 0
	n := len(m.o.lines)
	// prevSurvives tells whether the last base line kept by the downstream is still in the new
	// upstream: a downstream addition whose lines on both sides disappeared has lost its anchor.
	prevSurvives := true
	prevI := -1
	for i := 0; i <= n; i++ {
		if ctx.Err() != nil {
			return
		}
		ai, bi := len(m.a.lines), len(m.b.lines) // past the end: the insertions at the end
		if i < n {
			ai, bi = m.oa.partner[i], m.ob.partner[i]
		}
		var aIns, bIns []int
		if ai >= 0 {
			aIns = seq(pa, ai)
			pa = ai + 1
		}
		if bi >= 0 {
			bIns = seq(pb, bi)
			pb = bi + 1
		}
		aIns = m.dropTravelling(aIns)
		if !prevSurvives && len(aIns) > 0 && m.needsPrevious(i, aIns, bi) {
			m.emitInsertions(nil, bIns)
			m.orphanedInsertions(aIns, prevI)
		} else {
			m.emitInsertions(aIns, bIns)
		}
		if i == n {
			break
		}
		m.decide(i, ai, bi, m.commentedAt(i, ai))
		if ai >= 0 {
			prevSurvives = bi >= 0
			prevI = i
		}
	}
}

// needsPrevious tells whether the downstream lines aIns inserted before base line i (n: the end)
// hang on the line before them: the next line does not survive in the new upstream (bi < 0), or
// they are nested deeper than it and so belong to the previous item.
func (m *merger) needsPrevious(i int, aIns []int, bi int) bool {
	if i == len(m.o.lines) {
		return false
	}
	return bi < 0 || firstContentIndent(m.a.lines, aIns) > indentOf(m.o.lines[i].text)
}

// commentedAt returns how the downstream commented out base line i (its partner ai), or nil.
func (m *merger) commentedAt(i, ai int) *commentState {
	if ai < 0 {
		return nil
	}
	if col, marker, ok := commentedOut(m.a.lines[ai].text, m.o.lines[i].text); ok {
		return &commentState{col: col, marker: marker}
	}
	return nil
}

// firstContentIndent returns the indentation of the first content line among lines[idx...], or
// -1 when there is none.
func firstContentIndent(lines []line, idx []int) int {
	for _, j := range idx {
		if l := lines[j]; !l.isBlank() && !l.isComment() {
			return indentOf(l.text)
		}
	}
	return -1
}

// dropTravelling removes from downstream insertions the lines that are placed elsewhere (comments
// moving with a relocated line) or not at all (the comments of a commented-out block upstream
// removed).
func (m *merger) dropTravelling(aIns []int) []int {
	kept := aIns[:0:0]
	for _, j := range aIns {
		if m.movedA[j] {
			continue
		}
		if h := m.hunks[m.hunkOfA[j]-1]; m.commentedBlockRemoved(h) {
			h.addNote("the new upstream removed the block this patch commented out; the commented copy and its comments were dropped")
			continue
		}
		kept = append(kept, j)
	}
	return kept
}

// orphanedInsertions turns downstream additions whose surrounding upstream lines are gone into
// conflicts, one block per patch.
func (m *merger) orphanedInsertions(aIns []int, prevI int) {
	detail := ""
	if prevI >= 0 {
		detail = "it followed " + describe(m.o.lines[prevI])
	}
	for _, j := range aIns {
		h := m.hunks[m.hunkOfA[j]-1]
		m.addConflict(h, "the new upstream no longer has the lines around this addition", detail, []string{m.downText(j, h)}, nil)
	}
}

// commentedBlockRemoved reports whether h only comments out upstream lines and the new upstream
// removed all of them.
func (m *merger) commentedBlockRemoved(h *hunk) bool {
	if h.modified == 0 || h.commented != h.modified {
		return false
	}
	for _, i := range h.oLines {
		if m.ob.partner[i] >= 0 {
			return false
		}
	}
	return true
}

// seq returns the indexes from, from+1, ..., to-1.
func seq(from, to int) []int {
	if to <= from {
		return nil
	}
	s := make([]int, 0, to-from)
	for k := from; k < to; k++ {
		s = append(s, k)
	}
	return s
}

// emitInsertions writes the lines both sides inserted before the same base line. Where the
// downstream appended to the end of a block (the line after its addition is less indented:
// another list or key follows), upstream's additions to that block come first and the
// downstream's stay last. Elsewhere the downstream inserted after a specific line, so its lines
// come first, except a run of trailing comments, which describes the next line and stays right
// above it.
func (m *merger) emitInsertions(aIns, bIns []int) {
	if len(aIns) == 0 && len(bIns) == 0 {
		return
	}
	split := m.downstreamFirst(aIns)
	for _, j := range aIns[:split] {
		m.emitDown(j)
	}
	m.emitUpstreamInsertions(bIns)
	for _, j := range aIns[split:] {
		m.emitDown(j)
	}
}

// downstreamFirst returns how many of the downstream's inserted lines aIns come before upstream's
// insertions at the same place: none when they append to the end of a block, else all but a run
// of trailing comments.
func (m *merger) downstreamFirst(aIns []int) int {
	if m.appendsToBlock(aIns) {
		return 0
	}
	split := len(aIns)
	// Template statements ({% endif %}) masked as comments close what precedes them;
	// they are not comments about the next line.
	for split > 0 && m.a.lines[aIns[split-1]].isComment() && !m.masker.isStatement(m.a.lines[aIns[split-1]].text) {
		split--
	}
	return split
}

// emitUpstreamInsertions writes the lines the new upstream inserted: without those the downstream
// added too, at the place of a relocated line, and commented out inside a block the downstream
// commented out.
func (m *merger) emitUpstreamInsertions(bIns []int) {
	// Upstream lines added inside a block the downstream commented out (deeper than the
	// block's commented line) are commented out too; the first line back at the block's level
	// ends the block.
	inBlock := m.commented != nil
	skipIndent := -1 // while >= 0: skipping an upstream addition the downstream also made
	for _, j := range bIns {
		text := m.b.lines[j].text
		if skipIndent >= 0 && m.b.lines[j].path == "" && !m.b.lines[j].isComment() && (indentOf(text) > skipIndent || strings.TrimSpace(text) == "") {
			continue
		}
		skipIndent = -1
		if h, ok := m.addedByBoth[j]; ok {
			h.overridden = true
			h.addNote("the new upstream added " + describe(m.b.lines[j]) + " too; the downstream's version was kept")
			skipIndent = indentOf(text)
			continue
		}
		if i, ok := m.relocatedTo[j]; ok {
			m.emitRelocated(i, text)
			inBlock = false
			continue
		}
		if inBlock && indentOf(text) > m.commented.col && strings.TrimSpace(text) != "" {
			text = commentOut(text, m.commented.col, m.commented.marker)
		} else {
			inBlock = false
		}
		m.emit(text, -1)
	}
}

// appendsToBlock reports whether the downstream lines aIns end a block: the next downstream
// line with content is less indented than the first content line of aIns (or there is none).
func (m *merger) appendsToBlock(aIns []int) bool {
	ind := firstContentIndent(m.a.lines, aIns)
	if ind < 0 {
		return false
	}
	for j := aIns[len(aIns)-1] + 1; j < len(m.a.lines); j++ {
		if l := m.a.lines[j]; !l.isBlank() && !l.isComment() {
			return indentOf(l.text) < ind
		}
	}
	return true
}

// decide emits the merged form of base line i (ai and bi: its partners in the downstream and
// the new upstream, -1 if none; commented: how the downstream commented it out, if it did).
func (m *merger) decide(i, ai, bi int, commented *commentState) {
	o := m.o.lines[i]
	m.commented = nil
	switch {
	case ai >= 0 && m.a.lines[ai].text == o.text:
		m.decideKept(i, ai, bi)
	case ai >= 0:
		// Upstream lines inserted after a commented-out line belong to the commented block.
		m.commented = commented
		m.decideChanged(i, ai, bi, commented)
	default: // the downstream removed the line
		if bi >= 0 && m.b.lines[bi].text != o.text {
			h := m.hunks[m.hunkOfO[i]-1]
			m.addConflict(h, "the downstream removed a line the new upstream changed", describe(o),
				nil, []string{m.b.lines[bi].text})
		}
	}
}

// decideKept emits base line i that the downstream kept as it was: the downstream's active line
// where upstream commented out a block the downstream changed, else the new upstream's line if
// there is one.
func (m *merger) decideKept(i, ai, bi int) {
	switch {
	case m.keepActive[i]:
		h := m.hunks[m.keepActiveHunk(i)-1]
		m.emit(m.a.lines[ai].text, h.id)
	case bi >= 0:
		m.emit(m.b.lines[bi].text, -1)
	}
}

// decideChanged emits base line i that the downstream changed (to downstream line ai), by what
// the new upstream did to it (bi: its new-upstream partner, -1 if none), and notes it on the patch.
func (m *merger) decideChanged(i, ai, bi int, commented *commentState) {
	o := m.o.lines[i]
	h := m.hunks[m.hunkOfA[ai]-1]
	switch {
	case bi < 0 && m.relocated[i]:
		h.addNote("upstream moved " + describe(o) + "; the change moved with it")
	case bi < 0 && commented != nil:
		// The downstream disabled what upstream has now removed: nothing left to disable.
		m.commented = nil
		h.addNote("the new upstream removed the block this patch commented out; the commented copy and its comments were dropped")
	case bi < 0:
		m.addConflict(h, "the new upstream no longer has the line this patch changes", describe(o),
			[]string{m.downText(ai, h)}, nil)
	case m.b.lines[bi].text == o.text:
		m.emitDown(ai)
	case m.b.lines[bi].text == m.a.lines[ai].text:
		m.emitDown(ai)
		h.addNote("the new upstream made the same change")
	case m.keepActive[i]:
		m.emitDown(ai)
		h.overridden = true
		h.addNote("upstream commented out the block this patch sets a value in; the downstream's active block was kept")
	case commented != nil:
		m.emit(commentOut(m.b.lines[bi].text, commented.col, commented.marker), h.id)
		h.overridden = true
		h.addNote("commented-out copy updated to the new upstream text")
	default:
		m.emitDown(ai)
		h.overridden = true
		h.addNote(fmt.Sprintf("upstream changed %q to %q; the downstream replacement was kept",
			strings.TrimLeft(m.masker.Unmask(o.text), " "), strings.TrimLeft(m.masker.Unmask(m.b.lines[bi].text), " ")))
	}
}

// downText returns downstream line j with old-version strings moved to the new version.
func (m *merger) downText(j int, h *hunk) string {
	text := m.a.lines[j].text
	updated := m.followVersion(text)
	if updated != text && h != nil {
		h.addNote(fmt.Sprintf("version in %q updated to %s", strings.TrimSpace(m.masker.Unmask(text)), m.toVersion))
	}
	return updated
}

// followVersion rewrites the old upstream version, and the version of calico release URLs, to
// the new version.
func (m *merger) followVersion(text string) string {
	if m.versionRe == nil || !strings.Contains(text, m.fromVersion) && !strings.Contains(text, "projectcalico/calico/") {
		return text
	}
	return m.versionRe.ReplaceAllStringFunc(text, func(s string) string {
		if calicoURLVersion.MatchString(s) {
			return calicoURLVersion.ReplaceAllString(s, "${1}"+m.toVersion)
		}
		return strings.Replace(s, m.fromVersion, m.toVersion, 1)
	})
}

func (m *merger) emitDown(j int) {
	h := (*hunk)(nil)
	if id := m.hunkOfA[j]; id > 0 {
		h = m.hunks[id-1]
	}
	id := -1
	if h != nil {
		id = h.id
	}
	m.emit(m.downText(j, h), id)
}

func (m *merger) emit(text string, hunkID int) {
	m.finishConflict()
	m.out = append(m.out, outLine{text: text, hunk: hunkID})
	if hunkID > 0 {
		m.hunks[hunkID-1].outLines.add(len(m.out))
	}
}

// addConflict adds lines to the open conflict block of patch h, or opens one. kind says what is
// wrong, detail where (only the first detail of each kind is kept, so a block stays readable).
func (m *merger) addConflict(h *hunk, kind, detail string, down, up []string) {
	reason := kind
	if detail != "" {
		reason += " (" + detail + ")"
	}
	c := m.conflict
	if c == nil || c.hunk != h.id {
		m.finishConflict()
		c = &pendingConflict{hunk: h.id, kinds: map[string]bool{}}
		m.conflict = c
	}
	if !c.kinds[kind] {
		c.kinds[kind] = true
		c.reasons = append(c.reasons, reason)
	}
	if h.conflict == "" {
		h.conflict = reason
	}
	c.down = append(c.down, down...)
	c.up = append(c.up, up...)
}

func (m *merger) finishConflict() {
	c := m.conflict
	if c == nil {
		return
	}
	m.conflict = nil
	m.report.Conflicts++
	h := m.hunks[c.hunk-1]
	lines := []string{fmt.Sprintf("%s (patch %d): %s", conflictStart, c.hunk, strings.Join(c.reasons, "; "))}
	lines = append(lines, c.down...)
	lines = append(lines, conflictMid)
	lines = append(lines, c.up...)
	lines = append(lines, fmt.Sprintf("%s (patch %d)", conflictEnd, c.hunk))
	for _, l := range lines {
		m.out = append(m.out, outLine{text: l, hunk: c.hunk})
		h.outLines.add(len(m.out))
	}
}
