package safefile

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/calico-pilot/calico-pilot/internal/testcheck"
)

func TestWriteRegularFileKeepsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "deployed.sls")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteContext(context.Background(), path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if got := testcheck.ReadFile(t, path); got != "new" {
		t.Errorf("content = %q, want %q", got, "new")
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want 0640 (kept)", fi.Mode().Perm())
	}
	assertNoTemp(t, dir, 1)
}

func TestWriteNewFileHonoursUmask(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	path := filepath.Join(t.TempDir(), "out.yaml")
	if err := WriteContext(context.Background(), path, []byte("x")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want 0640 (0666 minus umask 027)", fi.Mode().Perm())
	}
}

func TestWriteFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	realDir := filepath.Join(dir, "real")
	if err := os.Mkdir(realDir, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(realDir, "deployed.sls")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.sls")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteContext(context.Background(), link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	li, err := os.Lstat(link)
	if err != nil {
		t.Fatal(err)
	}
	if li.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("%s is no longer a symlink (mode %v)", link, li.Mode())
	}
	if got := testcheck.ReadFile(t, target); got != "new" {
		t.Errorf("target content = %q, want %q", got, "new")
	}
	assertNoTemp(t, dir, 2)     // real/ and link.sls
	assertNoTemp(t, realDir, 1) // the temporary file was created next to the target and renamed
}

func TestWriteFIFOInPlace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		b, err := os.ReadFile(path) // opens the read end; Write opens the write end
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		got <- string(b)
	}()
	if err := WriteContext(context.Background(), path, []byte("through the pipe")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("read from FIFO = %q", s)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("FIFO was replaced: mode %v", fi.Mode())
	}
}

// TestWriteDevNull writes to the real /dev/null: it must still be the character device after
// (as root, the old rename replaced it with a regular file).
func TestWriteDevNull(t *testing.T) {
	if err := WriteContext(context.Background(), "/dev/null", []byte("discarded")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat("/dev/null")
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a character device: %v", fi.Mode())
	}
}

// TestWriteStreamPathAppends: /dev/fd/N leads to a regular file the shell opened (>> out):
// written in place, after what is there, and not replaced.
func TestWriteStreamPathAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(path, []byte("before\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	fdPath := "/dev/fd/" + strconv.Itoa(int(f.Fd()))
	if _, err := os.Stat(fdPath); err != nil {
		t.Skipf("no /dev/fd: %v", err)
	}
	if err := WriteContext(context.Background(), fdPath, []byte("after\n")); err != nil {
		t.Fatal(err)
	}
	if got := testcheck.ReadFile(t, path); got != "before\nafter\n" {
		t.Errorf("content = %q", got)
	}
	fi2, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(fi, fi2) {
		t.Errorf("the file behind %s was replaced", fdPath)
	}
}

func TestWriteRefused(t *testing.T) {
	dir := t.TempDir()
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "missing"), dangling); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{dir, "cannot write " + dir + ": it is a directory; give a file name"},
		{dangling, "cannot write " + dangling + ": it is a symlink to a missing file"},
		{filepath.Join(dir, "nodir", "out"), "cannot write " + filepath.Join(dir, "nodir", "out") + ": directory " + filepath.Join(dir, "nodir") + ": no such file or directory"},
		{filepath.Join(file, "out"), "cannot write " + filepath.Join(file, "out") + ": not a directory"},
		{"", "no file name given"},
	} {
		err := Check(tc.path)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Check(%q) = %v, want %q", tc.path, err, tc.want)
		}
		if werr := WriteContext(context.Background(), tc.path, []byte("x")); werr == nil || werr.Error() != tc.want {
			t.Errorf("WriteContext(context.Background(), %q) = %v, want %q", tc.path, werr, tc.want)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Errorf("refused writes left files behind: %v", entries)
	}
}

func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(a, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.yaml")
	if err := os.Link(a, hard); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	subLink := filepath.Join(dir, "sublink")
	if err := os.Symlink(sub, subLink); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{a, a, true},
		{a, link, true},
		{a, hard, true},
		{a, dir + "/./a.yaml", true},
		{filepath.Join(sub, "new"), filepath.Join(subLink, "new"), true}, // neither exists yet
		{filepath.Join(sub, "new"), filepath.Join(sub, "other"), false},
		{a, filepath.Join(sub, "new"), false},
		{"/dev/null", "/dev/null", false}, // writing a device twice is harmless
	} {
		if got := SameFile(tc.a, tc.b); got != tc.want {
			t.Errorf("SameFile(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// assertNoTemp checks that dir holds exactly n entries and none is a leftover temporary file.
func assertNoTemp(t *testing.T, dir string, n int) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left in %s: %s", dir, e.Name())
		}
	}
	if len(entries) != n {
		t.Errorf("%s has %d entries, want %d", dir, len(entries), n)
	}
}

// A write to a FIFO that nobody opens, or whose reader stops reading, returns when ctx is done.
func TestWriteContextFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := WriteContext(ctx, path, []byte("x")); err == nil || err.Error() != "cannot write "+path+": no reader opened the FIFO: context deadline exceeded" {
		t.Fatalf("no reader: %v", err)
	}

	// A reader that opens and never reads: the pipe fills up.
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close() //nolint:errcheck // test reader
	ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := WriteContext(ctx, path, make([]byte, 8<<20)); err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("stalled reader: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("returned after %s", d)
	}
}
