package safefile

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Check reports, without writing anything, why WriteContext(ctx, path, ...) would be refused: a directory,
// a symlink whose target is missing, a socket, or a missing parent directory. Commands call it
// for every output before doing their work, so that a bad output name fails before anything is
// written.
func Check(path string) error {
	_, err := plan(path)
	return err
}

// WriteContext writes data to path:
//   - a regular file (or a symlink to one) is replaced atomically by a temporary file created in
//     the target's own directory and renamed over it; the file keeps its permission bits;
//   - a new file gets mode 0666 minus the umask, as a shell redirection would;
//   - a FIFO, a character or block device, and a path under /dev/ or /proc/ (/dev/stdout,
//     /dev/fd/63 from >(...), which may lead to a regular file the shell opened) are opened and
//     written in place, never replaced; a regular file reached that way is appended to, so a
//     shell's >> redirection keeps its contents;
//   - anything else is refused (see Check).
//
// It gives up when ctx is done: a FIFO nobody reads from (open(2) would wait forever), or a reader
// that stops reading, ends the write with an error wrapping ctx.Err(). Nothing is written when no
// reader opened the FIFO; a reader that stopped may have got a part.
func WriteContext(ctx context.Context, path string, data []byte) error {
	p, err := plan(path)
	if err != nil {
		return err
	}
	if p.inPlace {
		return writeInPlace(ctx, path, p.flags, data)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return replace(path, p.target, p.mode, p.exists, data)
}

// target is how WriteContext writes one path.
type target struct {
	inPlace bool
	flags   int         // open flags for an in-place write
	target  string      // the regular file to replace (symlinks resolved)
	mode    fs.FileMode // permission bits to keep
	exists  bool
}

func plan(path string) (target, error) {
	if path == "" {
		return target{}, errors.New("no file name given")
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if li, lerr := os.Lstat(path); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
			return target{}, fmt.Errorf("cannot write %s: it is a symlink to a missing file", path)
		}
		if strings.HasSuffix(path, "/") {
			return target{}, fmt.Errorf("cannot write %s: no such directory (give a file name)", path)
		}
		dir, err := filepath.EvalSymlinks(filepath.Dir(path))
		if err != nil {
			return target{}, fmt.Errorf("cannot write %s: directory %s: %w", path, filepath.Dir(path), unwrapPath(err))
		}
		di, err := os.Stat(dir)
		if err != nil {
			return target{}, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
		}
		if !di.IsDir() {
			return target{}, fmt.Errorf("cannot write %s: %s is not a directory", path, filepath.Dir(path))
		}
		return target{target: filepath.Join(dir, filepath.Base(path))}, nil
	case err != nil:
		return target{}, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	mode := fi.Mode()
	switch {
	case mode.IsDir():
		return target{}, fmt.Errorf("cannot write %s: it is a directory; give a file name", path)
	case mode&(fs.ModeNamedPipe|fs.ModeCharDevice|fs.ModeDevice) != 0:
		return target{inPlace: true, flags: os.O_WRONLY}, nil
	case !mode.IsRegular():
		return target{}, fmt.Errorf("cannot write %s: not a regular file, FIFO or device (%s)", path, mode.Type())
	case isStreamPath(path):
		return target{inPlace: true, flags: os.O_WRONLY | os.O_APPEND}, nil
	}
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return target{}, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	return target{target: resolved, mode: mode.Perm(), exists: true}, nil
}

// isStreamPath reports whether path names an open stream rather than a file in a directory:
// /dev/stdout, /dev/fd/N, /proc/self/fd/N. Replacing what such a name resolves to would write
// past the stream the user meant.
func isStreamPath(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	return strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/")
}

// fifoPoll is how often a write to a FIFO without a reader looks for one.
const fifoPoll = 50 * time.Millisecond

func writeInPlace(ctx context.Context, path string, flags int, data []byte) error {
	fifo := false
	if fi, err := os.Stat(path); err == nil && fi.Mode()&fs.ModeNamedPipe != 0 {
		// Non-blocking: open fails with ENXIO while no reader has the FIFO open (instead of
		// waiting in open(2), where no signal reaches), and the runtime poller then serves the
		// writes, so a deadline can stop one that a reader no longer drains.
		fifo, flags = true, flags|syscall.O_NONBLOCK
	}
	var f *os.File
	for {
		var err error
		f, err = os.OpenFile(path, flags, 0)
		if err == nil {
			break
		}
		if !fifo || !errors.Is(err, syscall.ENXIO) {
			return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cannot write %s: no reader opened the FIFO: %w", path, ctx.Err())
		case <-time.After(fifoPoll):
		}
	}
	stop := context.AfterFunc(ctx, func() { _ = f.SetWriteDeadline(time.Unix(1, 0)) }) //nolint:errcheck // a file without deadlines is written to the end
	defer stop()
	if _, err := f.Write(data); err != nil {
		_ = f.Close() // the write error is the one to report
		if ctx.Err() != nil {
			return fmt.Errorf("cannot write %s: %w", path, ctx.Err())
		}
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	return nil
}

// replace writes data to a new file next to dst and renames it over dst. The temporary file is
// created with mode 0666 so that the umask applies to a new file; an existing file's permission
// bits are set explicitly.
func replace(path, dst string, mode fs.FileMode, exists bool, data []byte) error {
	dir := filepath.Dir(dst)
	var suffix [6]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	tmpName := filepath.Join(dir, "."+filepath.Base(dst)+".tmp-"+hex.EncodeToString(suffix[:]))
	tmp, err := os.OpenFile(tmpName, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	fail := func(err error) error {
		_ = tmp.Close()        // already failing; the first error is the one to report
		_ = os.Remove(tmpName) // best effort: do not leave the temporary file behind
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	if exists {
		if err := tmp.Chmod(mode); err != nil {
			return fail(err)
		}
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(tmpName) // best effort, as in fail
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	if err := os.Rename(tmpName, dst); err != nil {
		_ = os.Remove(tmpName) // best effort, as in fail
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	return nil
}

// SameFile reports whether the paths a and b name the same file: the same inode when both
// exist, else the same resolved location. It answers false for two paths that are the same
// FIFO or device (writing /dev/null twice is harmless).
func SameFile(a, b string) bool {
	ai, aerr := os.Stat(a)
	bi, berr := os.Stat(b)
	if aerr == nil && berr == nil {
		return ai.Mode().IsRegular() && os.SameFile(ai, bi)
	}
	if aerr == nil || berr == nil {
		return false // one exists and the other does not
	}
	return resolved(a) == resolved(b)
}

// resolved is a missing path's location with its directory's symlinks resolved.
func resolved(path string) string {
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		dir = filepath.Dir(path)
	}
	abs, err := filepath.Abs(filepath.Join(dir, filepath.Base(path)))
	if err != nil {
		return filepath.Clean(path)
	}
	return abs
}

// unwrapPath drops the operation and path os errors carry, since messages name the path already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
