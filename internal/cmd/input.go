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

// readInput reads the file at path, or all of stdin when path is "-". A nil stdin means the input
// cannot come from stdin. The error is one line that names the input and the cause
// ("cannot read shoot.yaml: no such file or directory"), without the operation name os adds.
func readInput(path string, stdin io.Reader) ([]byte, error) {
	if path == stdinPath {
		if stdin == nil {
			return nil, errors.New("cannot read stdin: no input stream")
		}
		data, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("cannot read stdin: %w", err)
		}
		return data, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		var pathErr *fs.PathError
		if errors.As(err, &pathErr) {
			return nil, fmt.Errorf("cannot read %s: %w", path, pathErr.Err)
		}
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	return data, nil
}

// inputName is how messages name the input at path: "stdin" for "-", else the path.
func inputName(path string) string {
	if path == stdinPath {
		return "stdin"
	}
	return path
}
