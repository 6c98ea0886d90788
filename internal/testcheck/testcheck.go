// Package testcheck holds the checks the unit tests of several packages share; imported only by
// tests.
package testcheck

import (
	"os"
	"strings"
	"testing"
)

// Err checks err against want, the exact text of the error a table case expects ("" for none); a
// mismatch fails the test at once. It returns true when an error was expected, so that the case
// stops there:
//
//	if testcheck.Err(t, err, tt.wantErr) {
//		return
//	}
func Err(t testing.TB, err error, want string) bool {
	t.Helper()
	if want != "" {
		if err == nil || err.Error() != want {
			t.Fatalf("error %v, want %q", err, want)
		}
		return true
	}
	if err != nil {
		t.Fatal(err)
	}
	return false
}

// ReadFile returns the contents of the file at path; a file that cannot be read fails the test.
func ReadFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Contains reports each of wants that text lacks (what names the text: "dry-run output") and says
// whether text has them all, so that a caller can print text once:
//
//	if !testcheck.Contains(t, "dry-run output", out, "kept", "restarts") || code != 0 { t.Fatalf(...) }
func Contains(t testing.TB, what, text string, wants ...string) bool {
	t.Helper()
	ok := true
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s lacks %q", what, want)
			ok = false
		}
	}
	return ok
}
