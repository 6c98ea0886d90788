package bump

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Patch statuses.
const (
	// StatusApplied means the patch landed and upstream did not touch the same lines.
	StatusApplied = "applied"
	// StatusAppliedOverUpstream means the patch landed on lines upstream changed too; the
	// downstream text was kept (or, for a commented-out block, upstream's new text commented out).
	StatusAppliedOverUpstream = "applied-over-upstream-change"
	// StatusConflict means the patch could not be placed; the output holds a conflict block.
	StatusConflict = "conflict"
)

// LineRange is an inclusive, 1-based range of lines. The zero value means "none".
type LineRange struct {
	From int `json:"from"`
	To   int `json:"to"`
}

func (r *LineRange) String() string {
	switch {
	case r == nil || r.From == 0:
		return "-"
	case r.From == r.To:
		return fmt.Sprintf("%d", r.From)
	default:
		return fmt.Sprintf("%d-%d", r.From, r.To)
	}
}

func (r *LineRange) add(n int) {
	if r.From == 0 || n < r.From {
		r.From = n
	}
	if n > r.To {
		r.To = n
	}
}

// Patch is one downstream change found between the old upstream and the old downstream.
type Patch struct {
	ID int `json:"id"`
	// Kind is added, changed, removed or commented-out.
	Kind string `json:"kind"`
	// Document is the YAML document (kind/namespace/name) the patch is in.
	Document string `json:"document"`
	// Anchor is the key path the patch is attached to.
	Anchor string `json:"anchor"`
	// Summary is the first meaningful line of the patch, for people.
	Summary string `json:"summary"`
	// OldUpstreamLines, OldDownstreamLines and OutputLines (where the patch landed) are
	// omitted when the patch has no line there (an addition has no old upstream lines, a
	// dropped patch no output lines).
	OldUpstreamLines   *LineRange `json:"oldUpstreamLines,omitempty"`
	OldDownstreamLines *LineRange `json:"oldDownstreamLines,omitempty"`
	OutputLines        *LineRange `json:"outputLines,omitempty"`
	Status             string     `json:"status"`
	// Notes explain decisions: upstream changes that were overridden, versions updated.
	Notes []string `json:"notes,omitempty"`
	// Conflict says why the patch could not be applied.
	Conflict string `json:"conflict,omitempty"`
}

// Check is the outcome of one post-merge check.
type Check struct {
	Name    string `json:"name"`
	OK      bool   `json:"ok"`
	Message string `json:"message"`
}

// Report describes a bump: the patches found, where they went, and the checks.
type Report struct {
	OldUpstream   string `json:"oldUpstream"`
	OldDownstream string `json:"oldDownstream"`
	NewUpstream   string `json:"newUpstream"`
	FromVersion   string `json:"fromVersion,omitempty"`
	ToVersion     string `json:"toVersion,omitempty"`
	// VersionSource says where the versions came from: flags or image tags.
	VersionSource   string  `json:"versionSource,omitempty"`
	MaskedTemplates int     `json:"maskedTemplates"`
	Patches         []Patch `json:"patches"`
	Conflicts       int     `json:"conflicts"`
	// Notes are decisions that concern the whole file.
	Notes  []string `json:"notes,omitempty"`
	Checks []Check  `json:"checks"`
}

// Clean reports whether every patch applied and every check passed.
func (r *Report) Clean() bool {
	if r.Conflicts > 0 {
		return false
	}
	for _, c := range r.Checks {
		if !c.OK {
			return false
		}
	}
	return true
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("writing JSON report: %w", err)
	}
	return nil
}

// WriteText writes the report for people.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "calico-pilot bump report\n")
	fmt.Fprintf(&b, "  old upstream:   %s\n  old downstream: %s\n  new upstream:   %s\n", r.OldUpstream, r.OldDownstream, r.NewUpstream)
	if r.FromVersion != "" || r.ToVersion != "" {
		fmt.Fprintf(&b, "  versions:       %s -> %s (from %s)\n", orDash(r.FromVersion), orDash(r.ToVersion), r.VersionSource)
	} else {
		fmt.Fprintf(&b, "  versions:       unknown (no upstream image tags; use --from-version/--to-version)\n")
	}
	fmt.Fprintf(&b, "  masked template pieces: %d\n\n", r.MaskedTemplates)
	fmt.Fprintf(&b, "%d downstream patches, %d conflicts\n", len(r.Patches), r.Conflicts)
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for _, p := range r.Patches {
		fmt.Fprintf(&b, "\npatch %d [%s] %s: %s\n", p.ID, p.Status, p.Kind, p.Summary)
		fmt.Fprintf(&b, "  at:     %s %s\n", p.Document, p.Anchor)
		fmt.Fprintf(&b, "  lines:  old upstream %s, old downstream %s, output %s\n", p.OldUpstreamLines, p.OldDownstreamLines, p.OutputLines)
		for _, n := range p.Notes {
			fmt.Fprintf(&b, "  note:   %s\n", n)
		}
		if p.Conflict != "" {
			fmt.Fprintf(&b, "  CONFLICT: %s\n", p.Conflict)
		}
	}
	fmt.Fprintf(&b, "\nchecks:\n")
	for _, c := range r.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(&b, "  %s %s: %s\n", mark, c.Name, c.Message)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("writing text report: %w", err)
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
