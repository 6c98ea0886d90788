package cmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// This file is the one harness the command tests run calico-pilot through, and the one home of
// their file helpers.

// unreachableKubeconfig is a kubeconfig of a cluster nothing listens for (127.0.0.1:1).
const unreachableKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:1
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
users:
- name: u
  user: {token: x}
`

// writeFile writes data to the file at path.
func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeTemp writes content to a file called name in a fresh temporary directory and returns its
// path.
func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	writeFile(t, p, content)
	return p
}

// runCLI runs calico-pilot with args and an empty standard input: exit code, stdout, stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runCLIWith(context.Background(), strings.NewReader(""), args...)
}

// runCLIWith runs calico-pilot with args, stdin as its standard input (nil: none), until ctx
// ends: exit code, stdout, stderr.
func runCLIWith(ctx context.Context, stdin io.Reader, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := Execute(ctx, args, stdin, &out, &errOut)
	return code, out.String(), errOut.String()
}

// runRender runs the render command with args: stdout, stderr, exit code.
func runRender(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	code, stdout, stderr = runCLI(t, append([]string{"render"}, args...)...)
	return stdout, stderr, code
}

// cliCase is a command-line table row: args and stdin in, the exit code and the exact stdout and
// stderr out.
type cliCase struct {
	name       string
	args       []string
	stdin      string
	wantCode   int
	wantOut    string
	wantErrOut string
}

// runCLICases runs every case as a subtest.
func runCLICases(t *testing.T, cases []cliCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLIWith(context.Background(), strings.NewReader(tt.stdin), tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d (stderr: %q)", code, tt.wantCode, errOut)
			}
			if diff := cmp.Diff(tt.wantOut, out); diff != "" {
				t.Errorf("stdout mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantErrOut, errOut); diff != "" {
				t.Errorf("stderr mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
