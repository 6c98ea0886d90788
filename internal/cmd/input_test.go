package cmd

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// failingReader fails every read, as a closed or broken pipe would.
type failingReader struct{ err error }

func (r failingReader) Read([]byte) (int, error) { return 0, r.err }

func TestReadInput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "shoot.yaml")
	if err := os.WriteFile(file, []byte("kind: Shoot\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	broken := errors.New("broken pipe")
	tests := []struct {
		name     string
		path     string
		stdin    io.Reader
		want     string
		wantErr  string
		wantWrap error
	}{
		{name: "file", path: file, stdin: strings.NewReader("ignored"), want: "kind: Shoot\n"},
		{name: "file without stdin", path: file, want: "kind: Shoot\n"},
		{name: "stdin", path: "-", stdin: strings.NewReader("kind: NetworkConfig\n"), want: "kind: NetworkConfig\n"},
		{name: "empty stdin", path: "-", stdin: strings.NewReader(""), want: ""},
		{name: "stdin not accepted", path: "-", wantErr: "cannot read stdin: no input stream"},
		{name: "stdin fails", path: "-", stdin: failingReader{err: broken}, wantErr: "cannot read stdin: broken pipe", wantWrap: broken},
		{name: "missing file", path: filepath.Join(dir, "nope.yaml"), wantErr: "cannot read " + filepath.Join(dir, "nope.yaml") + ": no such file or directory", wantWrap: os.ErrNotExist},
		{name: "directory", path: dir, wantErr: "cannot read " + dir + ": is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readInput(tt.path, tt.stdin)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("readInput(%q) = %q, want error %q", tt.path, got, tt.wantErr)
				}
				if diff := cmp.Diff(tt.wantErr, err.Error()); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				if tt.wantWrap != nil && !errors.Is(err, tt.wantWrap) {
					t.Errorf("error %v does not wrap %v", err, tt.wantWrap)
				}
				return
			}
			if err != nil {
				t.Fatalf("readInput(%q): %v", tt.path, err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("data (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInputName(t *testing.T) {
	for path, want := range map[string]string{"-": "stdin", "shoot.yaml": "shoot.yaml", "./-": "./-"} {
		if got := inputName(path); got != want {
			t.Errorf("inputName(%q) = %q, want %q", path, got, want)
		}
	}
}
