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
	writeFile(t, file, "kind: Shoot\n")
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

// repeatReader yields its pattern forever, as `yes 'a: b'` does.
type repeatReader struct {
	block string // the pattern repeated, so reads copy in bulk
	off   int
	read  int64
}

func newRepeatReader(pattern string) *repeatReader {
	return &repeatReader{block: strings.Repeat(pattern, 8192)}
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.block[r.off:])
		n += c
		r.off = (r.off + c) % len(r.block)
	}
	r.read += int64(n)
	return n, nil
}

// TestReadInputLimit: endless or huge inputs stop at the limit with a one-line error naming the
// input and the limit, after reading at most limit+1 bytes.
func TestReadInputLimit(t *testing.T) {
	yes := newRepeatReader("a: b\n")
	_, err := readInput("-", yes)
	if want := "cannot read stdin: input is larger than the limit of 64 MiB"; err == nil || err.Error() != want {
		t.Errorf("endless stdin: error %v, want %q", err, want)
	}
	if !errors.Is(err, ErrInputTooLarge) {
		t.Errorf("error %v does not wrap ErrInputTooLarge", err)
	}
	if yes.read > MaxInputBytes+64<<10 {
		t.Errorf("read %d bytes of an endless stream, want about the limit (%d)", yes.read, MaxInputBytes)
	}
	if _, statErr := os.Stat("/dev/zero"); statErr == nil {
		_, err := readInput("/dev/zero", nil)
		if want := "cannot read /dev/zero: input is larger than the limit of 64 MiB"; err == nil || err.Error() != want {
			t.Errorf("/dev/zero: error %v, want %q", err, want)
		}
	}

	// The boundary, with a small limit: limit bytes are fine, one more is refused; a regular
	// file over the limit is refused from its size, before reading.
	dir := t.TempDir()
	exact := filepath.Join(dir, "exact.yaml")
	over := filepath.Join(dir, "over.yaml")
	writeFile(t, exact, "a: 12345\n")
	writeFile(t, over, "a: 123456\n")
	if _, err := readInputLimit(exact, nil, 9); err != nil {
		t.Errorf("file of exactly the limit: %v", err)
	}
	if _, err := readInputLimit(over, nil, 9); err == nil || err.Error() != "cannot read "+over+": input is larger than the limit of 9 bytes" {
		t.Errorf("file over the limit: %v", err)
	}
	if _, err := readInputLimit("-", strings.NewReader("a: 12345\n"), 9); err != nil {
		t.Errorf("stdin of exactly the limit: %v", err)
	}
	if _, err := readInputLimit("-", strings.NewReader("a: 123456\n"), 9); err == nil || err.Error() != "cannot read stdin: input is larger than the limit of 9 bytes" {
		t.Errorf("stdin over the limit: %v", err)
	}
}
