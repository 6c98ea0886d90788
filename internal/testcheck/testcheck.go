// Package testcheck holds the checks the unit tests of several packages share; imported only by
// tests.
package testcheck

import (
	"os"
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
