package bump

import (
	"context"
	"fmt"
	"regexp"
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

// Merge carries the patches of oldDown (relative to oldUp) onto newUp and reports what it did.
// Input that cannot be parsed gives an *InputError naming the file and line; everything else,
// including conflicts and failed checks, is in the Result (see Report.Clean). A cancelled ctx
// stops the merge promptly with an error wrapping ctx.Err() and no result.
func Merge(ctx context.Context, oldUp, oldDown, newUp Input, opts Options) (*Result, error) {
	cancelled := func() error {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("bump cancelled: %w", err)
		}
		return nil
	}
	masker := NewMasker(oldUp.Data, oldDown.Data, newUp.Data)
	docs := make([]*document, 3)
	for i, in := range []Input{oldUp, oldDown, newUp} {
		d, err := parseDocument(ctx, in.Name, masker.Mask(string(in.Data)))
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
	if reordered(m.a, m.o.positions()) {
		m.report.Notes = append(m.report.Notes, "the old downstream has documents in another order than the old upstream; the output follows the new upstream's document order")
	}
	oKeys := m.o.reorderLike(m.b.positions(), 1)
	m.a.reorderLike(oKeys, 2)
	// List items upstream renamed keep their patches: old paths take the new name.
	for _, r := range findRenames(m.o, m.b) {
		applyRenames(m.o, []rename{r})
		applyRenames(m.a, []rename{r})
		m.report.Notes = append(m.report.Notes, r.String())
	}
	if err := cancelled(); err != nil {
		return nil, err
	}
	keys := keyTable{}
	m.oa = align(ctx, m.o, m.a, keys, true)
	m.ob = align(ctx, m.o, m.b, keys, true)
	if err := cancelled(); err != nil {
		return nil, err
	}
	m.findHunks()
	m.numberHunks()
	m.findUpstreamCommentedRuns()
	m.findRelocations()
	m.findAddedByBoth()
	m.walk(ctx)
	if err := cancelled(); err != nil {
		return nil, err
	}
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

// outLine is one output line and the patch it came from.
type outLine struct {
	text string
	hunk int // -1 for upstream text
}

// merger holds the state of one Merge: the three parsed inputs (o = old upstream, a = old
// downstream, b = new upstream), their alignments, the patches and the output being built.
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
	// movedA marks downstream lines that travel with a relocated line; relocAbove and
	// relocTail list the added comment lines above and nested lines below a relocated base line.
	movedA     map[int]bool
	relocTail  map[int][]int
	relocAbove map[int][]int

	// addedByBoth maps new-upstream lines the downstream had added too to the downstream patch.
	addedByBoth map[int]*hunk

	// keepActive marks base lines that upstream commented out inside a block the downstream
	// changed: the downstream's active block is kept.
	keepActive []bool

	out      []outLine
	conflict *pendingConflict
	// commented is set while the previous base line was commented out by the downstream.
	commented *commentState
	report    Report
}
