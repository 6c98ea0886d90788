package bump

import (
	"bytes"
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
	// Force merges a downstream that does not look made from the old upstream (see
	// MinRelatedness) without failing the downstream-origin check.
	Force bool
}

// MaxLines is the most lines Merge accepts per input. Calico's calico.yaml has about 5,000 lines
// (tigera-operator.yaml about 25,000); a bump holds every line with its key path and two
// alignments (measured: three inputs of 200,000 short lines, 250 MB peak), so this bounds its
// memory to a few hundred MB. YAML nesting is bounded by the parser (10,000 levels), and aliases are not
// expanded (the bump reads node positions, not values).
const MaxLines = 200_000

// MinRelatedness is the share of the old upstream's structure anchors (distinct document + key
// path pairs) the old downstream must have for Merge to take it as made from that upstream.
// Downstream patches change values, not keys: the real MetalK8s downstreams keep 86-100% of
// them, while a downstream of another manifest (or the wrong release's file) keeps few. Below
// this share the downstream-origin check fails unless Options.Force is set.
const MinRelatedness = 0.5

// Options.Force exists because the measure is a heuristic: a downstream that deleted most of the
// upstream on purpose is legitimate, only unusual.

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
	inputs := [3]Input{oldUp, oldDown, newUp}
	crlf, err := normalizeInputs(&inputs)
	if err != nil {
		return nil, err
	}
	masker := NewMasker(inputs[0].Data, inputs[1].Data, inputs[2].Data)
	docs, err := parseInputs(ctx, inputs, masker)
	if err != nil {
		return nil, err
	}
	m := &merger{o: docs[0], a: docs[1], b: docs[2], masker: masker}
	m.report = Report{OldUpstream: oldUp.Name, OldDownstream: oldDown.Name, NewUpstream: newUp.Name}
	m.noteLineEndings(crlf)
	if check, ok := originCheck(m.o, m.a, opts.Force); ok {
		m.report.Checks = append(m.report.Checks, check)
	}
	m.resolveVersions(opts)
	m.anchorDocuments()
	if err := mergeCancelled(ctx); err != nil {
		return nil, err
	}
	if err := m.merge(ctx); err != nil {
		return nil, err
	}
	output := m.output(crlf[1])
	m.report.MaskedTemplates = masker.Masked()
	m.report.Patches = m.patchReports()
	m.report.Checks = append(m.report.Checks, m.imageCheck(output))
	m.report.Checks = append(m.report.Checks, expectationChecks(output, opts)...)
	return &Result{Output: []byte(output), Report: m.report}, nil
}

// mergeCancelled returns an error wrapping ctx.Err() once ctx is cancelled.
func mergeCancelled(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("bump cancelled: %w", err)
	}
	return nil
}

// normalizeInputs checks each input's size and strips its carriage returns (line endings are
// compared without them), reporting which inputs had CRLF line endings.
func normalizeInputs(inputs *[3]Input) ([3]bool, error) {
	var crlf [3]bool
	for i := range inputs {
		in := &inputs[i]
		if n := bytes.Count(in.Data, []byte("\n")); n > MaxLines {
			return crlf, &InputError{File: in.Name, Reason: fmt.Sprintf("%d lines, more than the limit of %d lines per input", n, MaxLines)}
		}
		in.Data, crlf[i] = normalizeLineEndings(in.Data)
	}
	return crlf, nil
}

// parseInputs parses the masked inputs; both upstreams need YAML structure to anchor patches to.
func parseInputs(ctx context.Context, inputs [3]Input, masker *Masker) ([]*document, error) {
	docs := make([]*document, 3)
	for i, in := range inputs {
		d, err := parseDocument(ctx, in.Name, masker.Mask(string(in.Data)))
		if err != nil {
			return nil, err
		}
		docs[i] = d
	}
	for _, k := range []int{0, 2} {
		if !docs[k].hasStructure() {
			return nil, &InputError{File: docs[k].name, Reason: "no YAML documents (an upstream manifest with at least one key is needed)"}
		}
	}
	return docs, nil
}

// noteLineEndings notes inputs whose line endings differ; the output has the old downstream's.
func (m *merger) noteLineEndings(crlf [3]bool) {
	if crlf[0] != crlf[1] || crlf[1] != crlf[2] {
		m.report.Notes = append(m.report.Notes, fmt.Sprintf("line endings differ (old upstream %s, old downstream %s, new upstream %s): compared without carriage returns; the output has the old downstream's %s line endings",
			eolName(crlf[0]), eolName(crlf[1]), eolName(crlf[2]), eolName(crlf[1])))
	}
}

// anchorDocuments brings the old files into the new upstream's document order (documents are
// anchored by kind and name) and gives list items upstream renamed their new names in the old
// files, so that their patches follow them.
func (m *merger) anchorDocuments() {
	if reordered(m.a, m.o.positions()) {
		m.report.Notes = append(m.report.Notes, "the old downstream has documents in another order than the old upstream; the output follows the new upstream's document order")
	}
	oKeys := m.o.reorderLike(m.b.positions(), 1)
	m.a.reorderLike(oKeys, 2)
	for _, r := range findRenames(m.o, m.b) {
		applyRenames(m.o, []rename{r})
		applyRenames(m.a, []rename{r})
		m.report.Notes = append(m.report.Notes, r.String())
	}
}

// merge aligns the old files with each other and the new upstream, finds the patches and what
// upstream did to the lines they touch, and walks the new upstream writing the output lines.
func (m *merger) merge(ctx context.Context) error {
	keys := keyTable{}
	m.oa = align(ctx, m.o, m.a, keys, true)
	m.ob = align(ctx, m.o, m.b, keys, true)
	if err := mergeCancelled(ctx); err != nil {
		return err
	}
	m.findHunks()
	m.numberHunks()
	m.findUpstreamCommentedRuns()
	m.findRelocations()
	m.findAddedByBoth()
	m.walk(ctx)
	if err := mergeCancelled(ctx); err != nil {
		return err
	}
	m.finishConflict()
	return nil
}

// output joins the output lines, unmasked, with the final newline the downstream gave if it
// changed it (the new upstream's otherwise) and CRLF line endings if crlf.
func (m *merger) output(crlf bool) string {
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
	output := m.masker.Unmask(joined)
	if crlf {
		output = strings.ReplaceAll(output, "\n", "\r\n")
	}
	return output
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

// normalizeLineEndings replaces CRLF line endings by LF and reports whether the input used CRLF
// (for most of its lines: a file with a stray CRLF line is still an LF file).
func normalizeLineEndings(data []byte) ([]byte, bool) {
	crlf := bytes.Count(data, []byte("\r\n"))
	if crlf == 0 {
		return data, false
	}
	lf := bytes.Count(data, []byte("\n"))
	return bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), 2*crlf > lf
}

func eolName(crlf bool) string {
	if crlf {
		return "CRLF"
	}
	return "LF"
}

// hasStructure reports whether d has at least one YAML key or list item.
func (d *document) hasStructure() bool {
	for _, l := range d.lines {
		if l.path != "" {
			return true
		}
	}
	return false
}

// originCheck measures how much of the old upstream's structure the old downstream has (see
// MinRelatedness). It returns a check only when the share is below the threshold: a failed one,
// or a passed one saying --force accepted it.
func originCheck(o, a *document, force bool) (Check, bool) {
	anchors := func(d *document) map[string]bool {
		s := map[string]bool{}
		for _, l := range d.lines {
			if l.path != "" {
				s[l.doc+"\x00"+l.path] = true
			}
		}
		return s
	}
	oa, aa := anchors(o), anchors(a)
	common := 0
	for k := range oa {
		if aa[k] {
			common++
		}
	}
	share := float64(common) / float64(len(oa))
	if share >= MinRelatedness {
		return Check{}, false
	}
	msg := fmt.Sprintf("the old downstream has %d of the old upstream's %d key paths (%.0f%%, at least %.0f%% expected): it was probably not made from this old upstream; check --old-upstream",
		common, len(oa), 100*share, 100*MinRelatedness)
	if force {
		return Check{Name: "downstream-origin", OK: true, Message: msg + " (accepted with --force)"}, true
	}
	return Check{Name: "downstream-origin", OK: false, Message: msg + ", or pass --force"}, true
}
