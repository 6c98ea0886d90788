package cmd

import (
	"context"
	"io"

	"github.com/calico-pilot/calico-pilot/internal/safefile"
)

// stdinPath is the file name that stands for standard input.
const stdinPath = safefile.StdinPath

// MaxInputBytes is the largest input file or stream a command reads (64 MiB, safefile.MaxInputBytes).
const MaxInputBytes = safefile.MaxInputBytes

// ErrInputTooLarge is wrapped by the error for an input over the size limit.
var ErrInputTooLarge = safefile.ErrInputTooLarge

// readInput reads the file at path, or all of stdin when path is "-", up to MaxInputBytes, through
// the one reader every command uses (safefile.Read). A nil stdin means the input cannot come from
// stdin. Commands call it inside promptly or from Complete, which bindOptions abandons on an
// interrupt, so a read that blocks (a FIFO without a writer) does not hold the process.
func readInput(path string, stdin io.Reader) ([]byte, error) {
	return readInputLimit(path, stdin, MaxInputBytes)
}

func readInputLimit(path string, stdin io.Reader, limit int64) ([]byte, error) {
	return safefile.Read(context.Background(), path, stdin, limit)
}

// readInputContext is readInput returning as soon as ctx is done (an error wrapping ctx.Err()).
func readInputContext(ctx context.Context, path string, stdin io.Reader) ([]byte, error) {
	return safefile.Read(ctx, path, stdin, MaxInputBytes)
}

// inputName is how messages name the input at path: "stdin" for "-", else the path.
func inputName(path string) string { return safefile.Name(path) }

// readFileLimited is os.ReadFile through the input reader (a file, at most MaxInputBytes), for code
// that takes a file reader as a function ($IMAGEVECTOR_OVERWRITE through imagevector.VectorFromEnv).
func readFileLimited(path string) ([]byte, error) { return safefile.ReadFile(path) }
