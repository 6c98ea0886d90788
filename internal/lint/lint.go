package lint

import (
	"encoding/json"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/calico-pilot/calico-pilot/internal/decode"
	"github.com/calico-pilot/calico-pilot/internal/manifest"
)

// Severity says whether a finding makes the input wrong (error) or probably not what was meant.
type Severity string

// Severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Finding is one problem at a field of a document.
type Finding struct {
	// Field is the path of the value, rooted at the document (items[2].spec.selector in a List).
	Field    string
	Severity Severity
	// Rule names the check (see docs/lint.md), e.g. "selector-syntax".
	Rule   string
	Detail string
	// Line and Column locate the value in the input (0: unknown). For a selector syntax error the
	// column is that of the offending character when the selector is written on one line.
	Line, Column int
}

// Document is the outcome for one document of the input.
type Document struct {
	// Index counts the non-empty documents from 0.
	Index int
	// Describe names the document ("GlobalNetworkPolicy allow-to-kube-apiserver").
	Describe string
	// Line is where the document starts.
	Line     int
	Findings []Finding
}

// Result is the outcome for a whole input.
type Result struct {
	Documents []Document
}

// HasErrors reports whether any finding is an error.
func (r *Result) HasErrors() bool {
	for _, d := range r.Documents {
		for _, f := range d.Findings {
			if f.Severity == SeverityError {
				return true
			}
		}
	}
	return false
}

// Lint checks every document of a YAML or JSON stream. The error is for input that cannot be read
// as documents at all (not YAML, a document that is not a mapping, no documents); everything else
// is a finding.
func Lint(data []byte) (*Result, error) {
	docs, err := decode.SplitDocuments(data)
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("no YAML documents found")
	}
	locators := locateDocuments(data)
	if len(locators) != len(docs) {
		locators = nil // positions are a help only; never point at the wrong line
	}

	// Objects first, so that the checks of a policy can look at every network set of the input.
	var objs []*object
	for _, doc := range docs {
		var loc *locator
		if locators != nil {
			loc = locators[doc.Index]
		}
		objs = append(objs, readDocument(doc, loc)...)
	}
	ctx := newContext(objs)
	results := make([]Document, len(docs))
	for i, doc := range docs {
		results[i] = Document{Index: i, Describe: describe(doc)}
		if locators != nil {
			results[i].Line = locators[i].start.line
		}
	}
	for _, o := range objs {
		o.check(ctx)
		d := &results[o.doc]
		if o.list {
			d.Describe = fmt.Sprintf("%s of %d items", docs[o.doc].Kind, o.listLen)
		}
		for _, f := range o.findings {
			d.Findings = append(d.Findings, o.locate(f))
		}
	}
	for i := range results {
		sortFindings(results[i].Findings)
	}
	return &Result{Documents: results}, nil
}

// describe names a document as messages name an object ("<Kind> [<namespace>/]<name>",
// manifest.ObjectKey without the group), or says what it lacks.
func describe(doc decode.Document) string {
	switch {
	case doc.Kind == "":
		return "document without kind"
	case doc.Namespace == "" && doc.Name == "":
		return doc.Kind
	default:
		return manifest.ObjectKey("", doc.Kind, doc.Namespace, doc.Name)
	}
}

// sortFindings orders findings by position in the document, then path, so output is stable.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Field != b.Field {
			return a.Field < b.Field
		}
		return a.Rule < b.Rule
	})
}

// finding is a finding before it is located: its path and, for selector errors, the column
// inside the string value.
type finding struct {
	path     *field.Path
	severity Severity
	rule     string
	detail   string
	// valueColumn is a 1-based column inside the string value at path (0: none).
	valueColumn int
}

// fromFieldErrors turns decoding errors into findings.
func fromFieldErrors(errs field.ErrorList) []finding {
	out := make([]finding, 0, len(errs))
	for _, e := range errs {
		out = append(out, finding{path: pathOf(e.Field), severity: SeverityError, rule: "decode", detail: e.ErrorBody()})
	}
	return out
}

// pathOf wraps a printed path as a field.Path (lint only prints paths).
func pathOf(s string) *field.Path { return field.NewPath(s) }

// raw is a document as generic JSON, for looking at what was written before typed decoding.
func raw(js []byte) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		return nil
	}
	return m
}
