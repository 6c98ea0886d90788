package bump

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Input is one file given to Merge.
type Input struct {
	// Name is how the file is called in errors and the report (usually its path).
	Name string
	Data []byte
}

// CountCheck asks that exactly Count output lines match Pattern.
type CountCheck struct {
	Pattern *regexp.Regexp
	Count   int
}

// Options tunes a merge. The zero value infers versions from the upstream image tags.
type Options struct {
	// FromVersion and ToVersion override the versions inferred from upstream image tags.
	FromVersion string
	ToVersion   string
	// ExpectAbsent patterns must match no output line.
	ExpectAbsent []*regexp.Regexp
	// ExpectCount patterns must match exactly the given number of output lines.
	ExpectCount []CountCheck
}

// Result is the merged downstream and its report.
type Result struct {
	Output []byte
	Report Report
}

// Conflict markers written into the output. A file with them is not valid YAML, so it cannot be
// applied by mistake.
const (
	conflictStart = "<<<<<<< downstream"
	conflictMid   = "======= new upstream"
	conflictEnd   = ">>>>>>> end of conflict"
)

// Merge carries the patches of oldDown (relative to oldUp) onto newUp.
func Merge(oldUp, oldDown, newUp Input, opts Options) (*Result, error) {
	masker := NewMasker(oldUp.Data, oldDown.Data, newUp.Data)
	docs := make([]*document, 3)
	for i, in := range []Input{oldUp, oldDown, newUp} {
		d, err := parseDocument(in.Name, masker.Mask(string(in.Data)))
		if err != nil {
			return nil, err
		}
		docs[i] = d
	}
	m := &merger{o: docs[0], a: docs[1], b: docs[2], masker: masker}
	m.report = Report{OldUpstream: oldUp.Name, OldDownstream: oldDown.Name, NewUpstream: newUp.Name}
	m.resolveVersions(opts)
	// Documents are anchored by kind and name: bring the old files into the new upstream's
	// document order first.
	oKeys, _ := m.o.reorderLike(m.b.positions(), 1)
	if _, moved := m.a.reorderLike(oKeys, 2); moved {
		m.report.Notes = append(m.report.Notes, "the old downstream has documents in another order than the old upstream; the output follows the new upstream's document order")
	}
	keys := keyTable{}
	m.oa = align(m.o, m.a, keys, true)
	m.ob = align(m.o, m.b, keys, true)
	m.findHunks()
	m.numberHunks()
	m.findUpstreamCommentedRuns()
	m.findRelocations()
	m.walk()
	m.finishConflict()

	text := make([]string, len(m.out))
	for i, l := range m.out {
		text[i] = l.text
	}
	joined := strings.Join(text, "\n")
	// The final newline is a line-level change like any other: the downstream's if it changed
	// it, the new upstream's otherwise.
	trailing := m.b.trailingNewline
	if m.a.trailingNewline != m.o.trailingNewline {
		trailing = m.a.trailingNewline
	}
	if trailing && len(text) > 0 {
		joined += "\n"
	}
	output := masker.Unmask(joined)

	m.report.MaskedTemplates = masker.Masked()
	m.report.Patches = m.patchReports()
	m.report.Checks = append(m.report.Checks, m.imageCheck(output))
	m.report.Checks = append(m.report.Checks, expectationChecks(output, opts)...)
	return &Result{Output: []byte(output), Report: m.report}, nil
}

type outLine struct {
	text string
	hunk int // -1 for upstream text
}

type hunk struct {
	id         int
	aLines     []int
	oLines     []int
	modified   int
	commented  int
	notes      []string
	conflict   string
	outLines   LineRange
	overridden bool
}

type pendingConflict struct {
	hunk int
	// reasons are the distinct kinds of problem in this block, each with the first detail.
	reasons []string
	kinds   map[string]bool
	down    []string
	up      []string
}

type merger struct {
	o, a, b *document
	masker  *Masker
	oa, ob  alignment

	hunks   []*hunk
	hunkOfA []int
	hunkOfO []int

	fromVersion, toVersion string
	versionRe              *regexp.Regexp

	// relocatedTo maps a new-upstream line to the base line whose downstream change moves there
	// (upstream moved the line); relocated marks those base lines.
	relocatedTo map[int]int
	relocated   map[int]bool
	// movedA marks downstream lines that travel with a relocated line; relocTail lists the
	// added lines that follow a relocated base line.
	movedA    map[int]bool
	relocTail map[int][]int

	// keepActive marks base lines that upstream commented out inside a block the downstream
	// changed: the downstream's active block is kept.
	keepActive []bool

	out      []outLine
	conflict *pendingConflict
	// commented is set while the previous base line was commented out by the downstream.
	commented *commentState
	report    Report
}

type commentState struct {
	col    int
	marker string
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

// walk decides every line of the old upstream in order and emits the output.
func (m *merger) walk() {
	pa, pb := 0, 0
	n := len(m.o.lines)
	// prevSurvives tells whether the last base line kept by the downstream is still in the new
	// upstream: a downstream addition whose lines on both sides disappeared has lost its anchor.
	prevSurvives := true
	prevI := -1
	for i := 0; i <= n; i++ {
		ai, bi := len(m.a.lines), len(m.b.lines)
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
		nextCommented := (*commentState)(nil)
		if i < n && ai >= 0 {
			if col, marker, ok := commentedOut(m.a.lines[ai].text, m.o.lines[i].text); ok {
				nextCommented = &commentState{col: col, marker: marker}
			}
		}
		aIns = m.dropTravelling(aIns)
		nextSurvives := i == n || bi >= 0
		// Lines nested deeper than the next line belong to the previous item: they need the
		// previous line to survive.
		nested := i < n && firstContentIndent(m.a.lines, aIns) > indentOf(m.o.lines[i].text)
		if !prevSurvives && len(aIns) > 0 && (!nextSurvives || nested) {
			m.emitInsertions(nil, bIns)
			m.orphanedInsertions(aIns, prevI)
		} else {
			m.emitInsertions(aIns, bIns)
		}
		if i < n {
			m.decide(i, ai, bi, nextCommented)
			if ai >= 0 {
				prevSurvives = bi >= 0
				prevI = i
			}
		}
	}
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

// emitRelocated writes base line i at the place upstream moved it to (upstream text text): the
// downstream's version of it if it changed the line, with the comments above it, then the lines
// the downstream nested below it.
func (m *merger) emitRelocated(i int, text string) {
	ai := m.oa.partner[i]
	if m.relocated[i] {
		h := m.hunks[m.hunkOfA[ai]-1]
		if text != m.o.lines[i].text {
			h.overridden = true
			h.addNote(fmt.Sprintf("upstream changed %q to %q; the downstream replacement was kept",
				strings.TrimLeft(m.masker.Unmask(m.o.lines[i].text), " "), strings.TrimLeft(m.masker.Unmask(text), " ")))
		}
		start := ai
		for start > 0 && m.movedA[start-1] {
			start--
		}
		for k := start; k < ai; k++ {
			m.emit(m.downText(k, h), h.id)
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

// findRelocations finds downstream-changed lines that the new upstream moved: the base line is
// unmatched in the new upstream, but exactly one unmatched new-upstream line in the same
// document has its key path. The downstream change follows the line.
func (m *merger) findRelocations() {
	m.relocatedTo = map[int]int{}
	m.relocated = map[int]bool{}
	m.movedA = map[int]bool{}
	m.relocTail = map[int][]int{}
	candidates := map[string][]int{}
	for j, l := range m.b.lines {
		if m.ob.back[j] < 0 && l.path != "" {
			k := l.doc + "\x00" + l.path
			candidates[k] = append(candidates[k], j)
		}
	}
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
		// Lines the downstream added right below, nested deeper than what follows them (more
		// keys of the same item), travel with the line.
		var tail []int
		for j := ai + 1; j < len(m.a.lines) && m.oa.back[j] < 0; j++ {
			tail = append(tail, j)
		}
		after := -1 // indentation of the downstream line after the tail; -1 at the end
		if k := ai + 1 + len(tail); k < len(m.a.lines) {
			after = indentOf(m.a.lines[k].text)
		}
		if ind := firstContentIndent(m.a.lines, tail); ind < 0 || ind <= after {
			tail = nil
		}
		if !modified && tail == nil {
			continue
		}
		m.relocatedTo[c[0]] = i
		m.relocTail[i] = tail
		for _, j := range tail {
			m.movedA[j] = true
		}
		if modified {
			m.relocated[i] = true
			// Comment lines the downstream put right above the changed line travel with it.
			for j := ai - 1; j >= 0 && m.oa.back[j] < 0 && m.a.lines[j].isComment(); j-- {
				m.movedA[j] = true
			}
		}
	}
}

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

// emitInsertions writes the lines both sides inserted before the same base line. Downstream
// lines come first (they were added after the previous line), except a downstream run that ends
// in comments: those comments describe the next line and stay right above it.
func (m *merger) emitInsertions(aIns, bIns []int) {
	if len(aIns) == 0 && len(bIns) == 0 {
		return
	}
	split := len(aIns)
	for split > 0 && m.a.lines[aIns[split-1]].isComment() {
		split--
	}
	for _, j := range aIns[:split] {
		m.emitDown(j)
	}
	// Upstream lines added inside a block the downstream commented out (deeper than the
	// block's commented line) are commented out too; the first line back at the block's level
	// ends the block.
	inBlock := m.commented != nil
	for _, j := range bIns {
		text := m.b.lines[j].text
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
	for _, j := range aIns[split:] {
		m.emitDown(j)
	}
}

// decide emits the merged form of base line i.
func (m *merger) decide(i, ai, bi int, commented *commentState) {
	o := m.o.lines[i]
	m.commented = nil
	switch {
	case ai >= 0 && m.a.lines[ai].text == o.text:
		switch {
		case m.keepActive[i]:
			h := m.hunks[m.keepActiveHunk(i)-1]
			m.emit(m.a.lines[ai].text, h.id)
		case bi >= 0:
			m.emit(m.b.lines[bi].text, -1)
		}
	case ai >= 0:
		h := m.hunks[m.hunkOfA[ai]-1]
		// Upstream lines inserted after a commented-out line belong to the commented block.
		m.commented = commented
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
	default: // the downstream removed the line
		if bi >= 0 && m.b.lines[bi].text != o.text {
			h := m.hunks[m.hunkOfO[i]-1]
			m.addConflict(h, "the downstream removed a line the new upstream changed", describe(o),
				nil, []string{m.b.lines[bi].text})
		}
	}
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
	for _, j := range h.aLines {
		if l := m.a.lines[j]; l.path != "" {
			return l.doc, l.path
		}
	}
	for _, i := range h.oLines {
		if l := m.o.lines[i]; l.path != "" {
			return l.doc, l.path
		}
	}
	// Locate the hunk in the downstream: its first line, or the line after its removals.
	first, last := -1, -1
	if len(h.aLines) > 0 {
		first, last = h.aLines[0], h.aLines[len(h.aLines)-1]
	} else if len(h.oLines) > 0 {
		// A pure removal: the downstream line right after the removed base lines.
		for i := h.oLines[len(h.oLines)-1] + 1; i < len(m.o.lines); i++ {
			if ai := m.oa.partner[i]; ai >= 0 {
				first, last = ai, ai-1
				break
			}
		}
	}
	if first < 0 {
		return "", "end of file"
	}
	doc := m.a.lines[first].doc
	if doc == "(preamble)" {
		return "(file header)", "before the first document"
	}
	for j := first - 1; j >= 0 && m.a.lines[j].doc == doc; j-- {
		l := m.a.lines[j]
		if l.path == "" {
			continue
		}
		if blockScalarKey.MatchString(l.text) && indentOf(m.a.lines[first].text) > indentOf(l.text) {
			return doc, "inside " + l.path
		}
		break
	}
	for j := last + 1; j < len(m.a.lines) && m.a.lines[j].doc == doc; j++ {
		if l := m.a.lines[j]; l.path != "" {
			return doc, "before " + l.path
		}
	}
	for j := first - 1; j >= 0 && m.a.lines[j].doc == doc; j-- {
		if l := m.a.lines[j]; l.path != "" {
			return doc, "after " + l.path
		}
	}
	return doc, "document start"
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
