package decode

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxErrors is the most errors a decode (and the webhook's denial, and `validate` per document)
// reports one by one. The rest are counted in one last error ("Too many: N: more errors not reported"), so a
// document with 50,000 unknown fields costs a bounded message, not 50,000 of them.
const MaxErrors = 100

// moreErrors is the BadValue of the error that stands for errors not reported: their number.
type moreErrors int

// Truncate returns errs when it has at most MaxErrors errors (not counting a trailing summary), and
// otherwise the first MaxErrors and one summary error, of type TooMany with the number of the rest as
// its value ("spec.networking.providerConfig: Too many: 900: more errors not reported"); its path
// is the longest path all of the omitted errors share. Truncating a truncated list keeps the count.
func Truncate(errs field.ErrorList) field.ErrorList {
	if len(errs) <= MaxErrors || len(errs) == MaxErrors+1 && isSummary(errs[MaxErrors]) {
		return errs
	}
	more := 0
	prefix := ""
	for i, e := range errs[MaxErrors:] {
		if n, ok := e.BadValue.(moreErrors); ok && e.Type == field.ErrorTypeTooMany {
			more += int(n)
		} else {
			more++
		}
		if i == 0 {
			prefix = e.Field
		} else {
			prefix = commonPath(prefix, e.Field)
		}
	}
	out := make(field.ErrorList, 0, MaxErrors+1)
	out = append(out, errs[:MaxErrors]...)
	return append(out, summary(prefix, more))
}

// summary is the error standing for n errors not reported, below path (dotted, "" = the document).
func summary(path string, n int) *field.Error {
	if path == "" {
		path = "<document>"
	}
	return &field.Error{
		Type:     field.ErrorTypeTooMany,
		Field:    path,
		BadValue: moreErrors(n),
		Detail:   fmt.Sprintf("more errors not reported (the first %d are)", MaxErrors),
	}
}

func isSummary(e *field.Error) bool {
	_, ok := e.BadValue.(moreErrors)
	return ok && e.Type == field.ErrorTypeTooMany
}

// commonPath is the longest path a and b both start with, cut at a segment boundary.
func commonPath(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	if n == len(a) && (n == len(b) || b[n] == '.' || b[n] == '[') {
		return a
	}
	if n == len(b) && (a[n] == '.' || a[n] == '[') {
		return b
	}
	cut := strings.LastIndexAny(a[:n], ".[")
	if cut < 0 {
		return ""
	}
	return a[:cut]
}
