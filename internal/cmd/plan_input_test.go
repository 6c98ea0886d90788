package cmd

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
)

// mrSecret is a ManagedResource secret manifest with the given data keys.
func mrSecret(data map[string][]byte) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: Secret\nmetadata:\n  name: managedresource-extension-networking-calico\n  namespace: shoot--p--s\ntype: Opaque\ndata:\n")
	for k, v := range data {
		b.WriteString("  " + k + ": " + base64.StdEncoding.EncodeToString(v) + "\n")
	}
	return b.String()
}

// TestPlanInputShape is issue 21 finding 3: a Secret manifest followed by "---" was read as a
// manifest stream holding one Secret ("47 added, 1 removed … safe"), an empty --current was "47
// added … safe", and --current - --target - read stdin twice.
func TestPlanInputShape(t *testing.T) {
	current, err := os.ReadFile(renderedCurrent(t))
	if err != nil {
		t.Fatal(err)
	}
	secret := mrSecret(map[string][]byte{"config.yaml": current})
	shoot := []string{"--shoot", "../../examples/shoot.yaml", "--kube-apiserver-address", "192.0.2.10"}
	for _, tc := range []struct {
		name    string
		current string
		code    int
		out     string // prefix of stdout
		errOut  string // stderr
	}{
		{name: "a Secret", current: secret, code: 0, out: "no changes"},
		{name: "a Secret followed by ---", current: secret + "---\n", code: 0, out: "no changes"},
		{name: "a Secret after --- and a comment", current: "# deployed\n---\n" + secret + "---\n", code: 0, out: "no changes"},
		{name: "a List of one Secret", current: "apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(strings.TrimSuffix(secret, "\n"), "\n", "\n  ") + "\n", code: 0, out: "no changes"},
		{name: "an empty file", current: "", code: 2, errOut: "error: --current CURRENT: it holds no YAML or JSON document; give the ManagedResource secret (kubectl get secret NAME -o yaml) or a manifest stream\n"},
		{name: "only separators and comments", current: "---\n# nothing\n---\n", code: 2, errOut: "error: --current CURRENT: it holds no YAML or JSON document; give the ManagedResource secret (kubectl get secret NAME -o yaml) or a manifest stream\n"},
		{name: "an empty List", current: "apiVersion: v1\nkind: List\nitems: []\n", code: 2, errOut: "error: --current CURRENT: it holds no object (an empty List?); give the ManagedResource secret or a manifest stream\n"},
		{name: "a Secret and more documents", current: secret + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", code: 2,
			errOut: "error: --current CURRENT: the first document is a Secret and more documents follow: give the ManagedResource secret alone (one document), or a manifest stream that does not start with a Secret\n"},
		{name: "a Secret without data", current: "apiVersion: v1\nkind: Secret\nmetadata: {name: x}\n", code: 2, errOut: "error: --current CURRENT: the Secret has no data (give the ManagedResource's secret)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeTemp(t, "current.yaml", tc.current)
			code, out, errOut := runCLI(t, append([]string{"plan", "--current", path}, shoot...)...)
			errOut = strings.ReplaceAll(errOut, path, "CURRENT")
			if code != tc.code || !strings.HasPrefix(out, tc.out) || (tc.errOut != "" && errOut != tc.errOut) {
				t.Fatalf("exit %d, stdout:\n%.400s\nstderr: %q\nwant exit %d, stdout %q…, stderr %q", code, out, errOut, tc.code, tc.out, tc.errOut)
			}
		})
	}

	t.Run("one stdin for two inputs", func(t *testing.T) {
		code, out, errOut := runCLI(t, "plan", "--current", "-", "--target", "-")
		if code != 2 || out != "" || errOut != "error: --current and --target all read stdin (-), which can be read once: give all but one of them as files\n" {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
		}
	})
}

// brotliOf compresses n bytes of newlines (a stream with no document: the cheapest bomb to build).
func brotliOf(t *testing.T, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := brotli.NewWriterLevel(&buf, brotli.BestSpeed)
	chunk := bytes.Repeat([]byte("\n"), 1<<20)
	for n > 0 {
		c := chunk[:min(n, len(chunk))]
		if _, err := w.Write(c); err != nil {
			t.Fatal(err)
		}
		n -= len(c)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestPlanBrotliBudget is issue 21 finding 8: a 178-byte Secret whose ".br" key decompressed to 60
// MiB took 453 s and 7.6 GB; the 64 MiB cap was per key. Now all keys of an input share one budget
// of 16 MiB, and the run stops on an interrupt.
func TestPlanBrotliBudget(t *testing.T) {
	for _, tc := range []struct {
		name string
		data map[string][]byte
	}{
		{"one key of 60 MiB", map[string][]byte{"data.yaml.br": brotliOf(t, 60<<20)}},
		{"two keys of 9 MiB each", map[string][]byte{"a.yaml.br": brotliOf(t, 9<<20), "b.yaml.br": brotliOf(t, 9<<20)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeTemp(t, "bomb.yaml", mrSecret(tc.data))
			code, _, errOut := runCLI(t, "plan", "--current", path, "--target", path)
			want := "brotli data decompresses to more than the 16777216 bytes all keys of one input may decompress to together"
			if code != 2 || !strings.Contains(errOut, want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, errOut, want)
			}
		})
	}
}

// An interrupted plan or pools migrate exits 130 at once, even while a read blocks: a FIFO nobody
// writes to as --current or as --kubeconfig (issue 21 findings 8 and 10).
func TestPlanAndPoolsInterruptedWhileReading(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	for _, args := range [][]string{
		{"plan", "--current", fifo, "--target", "../../examples/shoot.yaml"},
		{"plan", "--current", "../../examples/shoot.yaml", "--target", "../../examples/shoot.yaml", "--kubeconfig", fifo},
		{"pools", "migrate", "--from", "a", "--to", "b", "--kubeconfig", fifo},
		{"swap-check", "--kubeconfig", fifo},
		{"swap-check", "-f", "../../examples/shoot.yaml", "--config", fifo},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan int, 1)
			var stdout, stderr bytes.Buffer
			go func() { done <- Execute(ctx, args, strings.NewReader(""), &stdout, &stderr) }()
			time.Sleep(50 * time.Millisecond) // let it block in open(2)
			cancel()
			select {
			case code := <-done:
				if code != ExitInterrupted || stdout.Len() != 0 {
					t.Fatalf("exit %d, stdout %q, stderr %q; want %d", code, stdout.String(), stderr.String(), ExitInterrupted)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("still running 10 s after the interrupt")
			}
		})
	}
}

// Every file a command reads goes through the one reader (issue 21 finding 10): --kubeconfig
// /dev/zero and the files a kubeconfig names are refused at 64 MiB with one line naming them.
func TestKubeconfigThroughTheInputReader(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	kc := writeTemp(t, "kubeconfig", `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1", certificate-authority: /dev/zero}
users:
- name: u
  user: {token: x}
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"pools", "migrate", "--from", "a", "--to", "b", "--kubeconfig", "/dev/zero"}, "error: --kubeconfig: cannot read /dev/zero: input is larger than the limit of 64 MiB\n"},
		{[]string{"plan", "--current", "x", "--target", "y", "--kubeconfig", "/dev/zero"}, "error: --kubeconfig: cannot read /dev/zero: input is larger than the limit of 64 MiB\n"},
		{[]string{"swap-check", "--kubeconfig", "/dev/zero"}, "error: --kubeconfig: cannot read /dev/zero: input is larger than the limit of 64 MiB\n"},
		{[]string{"swap-check", "-f", "../../examples/shoot.yaml", "--config", "/dev/zero"}, "error: --config: cannot read /dev/zero: input is larger than the limit of 64 MiB\n"},
		{[]string{"pools", "migrate", "--from", "a", "--to", "b", "--kubeconfig", kc}, "error: --kubeconfig " + kc + ": certificate-authority of cluster c: cannot read /dev/zero: input is larger than the limit of 64 MiB\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := runCLI(t, tc.args...)
			if code != 2 || out != "" || errOut != tc.want {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errOut, tc.want)
			}
		})
	}
	t.Run("IMAGEVECTOR_OVERWRITE=/dev/zero render", func(t *testing.T) {
		t.Setenv("IMAGEVECTOR_OVERWRITE", "/dev/zero")
		code, out, errOut := runCLI(t, "render", "--shoot", "../../examples/shoot.yaml", "--kube-apiserver-address", "192.0.2.10")
		if code != 2 || out != "" || !strings.Contains(errOut, "cannot read /dev/zero: input is larger than the limit of 64 MiB") {
			t.Fatalf("exit %d, stdout %.100q, stderr %q", code, out, errOut)
		}
	})
}
