package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// stdinPath is the file name that stands for standard input.
const stdinPath = "-"

// MaxInputBytes is the largest input file or stream a command reads (64 MiB): Calico manifests
// are about 250 KB and a Shoot a few KB, so anything larger is a mistake (/dev/zero, `yes`) and
// would otherwise be read until memory runs out. Documented in the README and docs/bump.md.
const MaxInputBytes = 64 << 20

// readInput reads the file at path, or all of stdin when path is "-", up to MaxInputBytes. A nil
// stdin means the input cannot come from stdin. The error is one line that names the input and
// the cause ("cannot read shoot.yaml: no such file or directory"), without the operation name os
// adds.
func readInput(path string, stdin io.Reader) ([]byte, error) {
	return readInputLimit(path, stdin, MaxInputBytes)
}

func readInputLimit(path string, stdin io.Reader, limit int64) ([]byte, error) {
	if path == stdinPath {
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
		return nil, fmt.Errorf("cannot read %s: %w", path, unwrapPathError(err))
	}
	defer f.Close() //nolint:errcheck // read-only file: a close error cannot lose data
	// A regular file's size is known: refuse a huge one before reading it. Devices and pipes
	// (/dev/zero, <(...)) report no useful size and are bounded while reading.
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
		return nil, fmt.Errorf("cannot read %s: %w", path, tooLarge(limit))
	}
	data, err := readLimited(f, limit)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, unwrapPathError(err))
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

// ErrInputTooLarge is wrapped by the error for an input over the size limit.
var ErrInputTooLarge = errors.New("input is larger than the limit")

func tooLarge(limit int64) error {
	return fmt.Errorf("%w of %s", ErrInputTooLarge, formatBytes(limit))
}

func formatBytes(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

func unwrapPathError(err error) error {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return pathErr.Err
	}
	return err
}

// inputName is how messages name the input at path: "stdin" for "-", else the path.
func inputName(path string) string {
	if path == stdinPath {
		return "stdin"
	}
	return path
}
