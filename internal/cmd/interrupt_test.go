package cmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// validate and render stopped by SIGINT/SIGTERM (main cancels the context) exit 130 and print
// nothing: neither a half report nor a manifest (issue 15: they ignored the signal).
func TestValidateAndRenderInterrupted(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"validate", []string{"validate", "-f", "../../examples/networkconfig.yaml"}},
		{"render", []string{"render", "--shoot", "../../examples/shoot.yaml", "--kube-apiserver-address", "192.0.2.34"}},
		{"render --output-dir", []string{"render", "--shoot", "../../examples/shoot.yaml", "--kube-apiserver-address", "192.0.2.34", "--output-dir", filepath.Join(dir, "out")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			code, stdout, stderr := runCLIWith(ctx, strings.NewReader(""), tc.args...)
			if code != ExitInterrupted || stdout != "" || stderr != "error: interrupted: nothing was written\n" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d and only the interrupt message", code, stdout, stderr, ExitInterrupted)
			}
			if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
				t.Error("--output-dir was created by an interrupted render")
			}
		})
	}
}

// interruptedWhileReading runs command with -f - on a standard input that sends firstLine and
// never ends, interrupts it and returns its exit code, stdout and stderr.
func interruptedWhileReading(t *testing.T, command, firstLine string) (int, string, string) {
	t.Helper()
	stdin, w := io.Pipe()
	defer w.Close() //nolint:errcheck // test pipe
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var stdout, stderr bytes.Buffer
	go func() { done <- Execute(ctx, []string{command, "-f", "-"}, stdin, &stdout, &stderr) }()
	if _, err := w.Write([]byte(firstLine)); err != nil {
		t.Fatal(err)
	}
	cancel()
	code := <-done
	return code, stdout.String(), stderr.String()
}

// A command waiting on stdin that never ends returns as soon as it is interrupted.
func TestValidateInterruptedWhileReading(t *testing.T) {
	if code, _, stderr := interruptedWhileReading(t, "validate", "apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\n"); code != ExitInterrupted {
		t.Fatalf("exit %d, want %d (stderr %q)", code, ExitInterrupted, stderr)
	}
}

// lint stopped by SIGINT exits 130 at once, even while it works on a selector analysis or waits
// on stdin (issue 21 finding 7: SIGINT was ignored for 22 s, then exit 0).
func TestLintInterrupted(t *testing.T) {
	if code, stdout, stderr := interruptedWhileReading(t, "lint", "apiVersion: crd.projectcalico.org/v1\n"); code != ExitInterrupted || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want %d", code, stdout, stderr, ExitInterrupted)
	}
}
