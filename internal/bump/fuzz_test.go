package bump

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzMerge feeds arbitrary inputs to Merge: it must never panic, bad input must come back as an
// *InputError, a downstream without patches must give exactly the new upstream, and an
// unchanged upstream must give back the downstream.
func FuzzMerge(f *testing.F) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "*", "old-upstream.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, ou := range dirs {
		dir := filepath.Dir(ou)
		od, _ := filepath.Glob(filepath.Join(dir, "old-downstream.*"))
		read := func(p string) string {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			return string(b)
		}
		f.Add(read(ou), read(od[0]), read(filepath.Join(dir, "new-upstream.yaml")))
	}
	f.Add("a: 1\n", "a: {{ x }}\n", "a: 2\n")
	f.Add("---\n---\n", "---\n#x\n---\n", "")
	f.Fuzz(func(t *testing.T, oldUp, oldDown, newUp string) {
		if _, err := Merge(context.Background(), Input{Name: "ou", Data: []byte(oldUp)}, Input{Name: "od", Data: []byte(oldDown)}, Input{Name: "nu", Data: []byte(newUp)}, Options{}); err != nil {
			var inErr *InputError
			if !errors.As(err, &inErr) {
				t.Fatalf("Merge error is not an *InputError: %v", err)
			}
			return
		}
		same, err := Merge(context.Background(), Input{Name: "ou", Data: []byte(oldUp)}, Input{Name: "od", Data: []byte(oldUp)}, Input{Name: "nu", Data: []byte(newUp)}, Options{})
		if err != nil {
			t.Fatalf("Merge with an unpatched downstream failed where the patched one did not: %v", err)
		}
		if string(same.Output) != newUp {
			t.Fatalf("unpatched downstream: output differs from the new upstream\n got: %q\nwant: %q", same.Output, newUp)
		}
		// Without an upstream change the downstream comes back unchanged, unless it reordered
		// documents (the upstream order wins, and the report says so).
		back, err := Merge(context.Background(), Input{Name: "ou", Data: []byte(oldUp)}, Input{Name: "od", Data: []byte(oldDown)}, Input{Name: "nu", Data: []byte(oldUp)}, Options{})
		if err != nil {
			t.Fatalf("Merge onto the same upstream failed where the bump did not: %v", err)
		}
		if len(back.Report.Notes) == 0 && string(back.Output) != oldDown {
			t.Fatalf("unchanged upstream: output differs from the old downstream\n got: %q\nwant: %q", back.Output, oldDown)
		}
	})
}
