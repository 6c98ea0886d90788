package lint

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/calico-pilot/calico-pilot/internal/decode"
)

// prefix is prepended to the paths of document i when the input has several documents, as
// `calico-pilot validate` does.
func (r *Result) prefix(i int) string {
	if len(r.Documents) < 2 {
		return ""
	}
	return fmt.Sprintf("documents[%d]", i)
}

// WriteText writes one line per finding, PATH: SEVERITY: DETAIL (line L, column C), a line per
// clean document, and a summary when there are findings.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	errs, warns := 0, 0
	for i, d := range r.Documents {
		prefix := r.prefix(i)
		if len(d.Findings) == 0 {
			if prefix == "" {
				fmt.Fprintf(&b, "%s: clean\n", d.Describe)
			} else {
				fmt.Fprintf(&b, "%s (%s, line %d): clean\n", prefix, d.Describe, d.Line)
			}
			continue
		}
		for _, f := range d.Findings {
			path := decode.JoinPath(prefix, f.Field)
			if path == "" {
				path = d.Describe
			}
			fmt.Fprintf(&b, "%s: %s: %s", path, f.Severity, f.Detail)
			switch {
			case f.Line > 0 && f.Column > 0:
				fmt.Fprintf(&b, " (line %d, column %d)", f.Line, f.Column)
			case f.Line > 0:
				fmt.Fprintf(&b, " (line %d)", f.Line)
			}
			b.WriteByte('\n')
			if f.Severity == SeverityError {
				errs++
			} else {
				warns++
			}
		}
	}
	if errs+warns > 0 {
		fmt.Fprintf(&b, "%s, %s in %s\n", plural(errs, "error"), plural(warns, "warning"), plural(len(r.Documents), "document"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// jsonFinding is one finding in `-o json` output.
type jsonFinding struct {
	Document int    `json:"document"`
	Object   string `json:"object"`
	Field    string `json:"field"`
	Severity string `json:"severity"`
	Rule     string `json:"rule"`
	Detail   string `json:"detail"`
	Line     int    `json:"line,omitempty"`
	Column   int    `json:"column,omitempty"`
}

// WriteJSON writes all findings as a JSON array (empty when everything is clean).
func (r *Result) WriteJSON(w io.Writer) error {
	out := []jsonFinding{}
	for i, d := range r.Documents {
		for _, f := range d.Findings {
			out = append(out, jsonFinding{Document: i, Object: d.Describe, Field: f.Field, Severity: string(f.Severity),
				Rule: f.Rule, Detail: f.Detail, Line: f.Line, Column: f.Column})
		}
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding findings as JSON: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}
