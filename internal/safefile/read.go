package safefile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// StdinPath is the file name that stands for standard input.
const StdinPath = "-"

// MaxInputBytes is the largest file or stream a command reads (64 MiB): Calico manifests are
// about 250 KB, a Shoot or a kubeconfig a few KB, so anything larger is a mistake (/dev/zero,
// `yes`) and would otherwise be read until memory runs out. Documented in the README.
const MaxInputBytes = 64 << 20

// ErrInputTooLarge is wrapped by the error for an input over the size limit.
var ErrInputTooLarge = errors.New("input is larger than the limit")

// Read is the one reader for every file a calico-pilot command reads (its -f, --shoot, --current,
// --kubeconfig and the files a kubeconfig names, --config, $IMAGEVECTOR_OVERWRITE, ...): the file at
// path, or all of stdin when path is "-" (a nil stdin means the input cannot come from stdin), at most
// limit bytes. It returns as soon as ctx is done, even while open or read blocks (a FIFO nobody
// writes to, a stalled pipe), with an error wrapping ctx.Err(); the abandoned read ends with the
// process. The error is one line naming the input and the cause ("cannot read shoot.yaml: no such
// file or directory"), without the operation name os adds.
func Read(ctx context.Context, path string, stdin io.Reader, limit int64) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1) // buffered: an abandoned read does not block on send
	go func() {
		data, err := read(path, stdin, limit)
		done <- result{data, err}
	}()
	select {
	case r := <-done:
		return r.data, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("cannot read %s: %w", Name(path), ctx.Err())
	}
}

// ReadFile is Read of a file (no stdin) without cancellation, with the default limit: the shape of
// os.ReadFile, for code that takes a file reader as a function (imagevector.VectorFromEnv).
func ReadFile(path string) ([]byte, error) {
	return Read(context.Background(), path, nil, MaxInputBytes)
}

func read(path string, stdin io.Reader, limit int64) ([]byte, error) {
	if path == StdinPath {
		if stdin == nil {
			return nil, errors.New("cannot read stdin: no input stream")
		}
		data, err := readLimited(stdin, limit)
		if err != nil {
			return nil, fmt.Errorf("cannot read stdin: %w", err)
		}
		return data, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, unwrapPath(err))
	}
	defer f.Close() //nolint:errcheck // read-only file: a close error cannot lose data
	// A regular file's size is known: refuse a huge one before reading it. Devices and pipes
	// (/dev/zero, <(...)) report no useful size and are bounded while reading.
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
		return nil, fmt.Errorf("cannot read %s: %w", path, tooLarge(limit))
	}
	data, err := readLimited(f, limit)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, unwrapPath(err))
	}
	return data, nil
}

// readLimited reads r to the end, failing as soon as it has more than limit bytes.
func readLimited(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(limit)
	}
	return data, nil
}

func tooLarge(limit int64) error {
	return fmt.Errorf("%w of %s", ErrInputTooLarge, FormatBytes(limit))
}

// FormatBytes is n as messages write a limit: "64 MiB", else "N bytes".
func FormatBytes(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Name is how messages name the input at path: "stdin" for "-", else the path.
func Name(path string) string {
	if path == StdinPath {
		return "stdin"
	}
	return path
}
