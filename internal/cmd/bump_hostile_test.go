package cmd

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// bumpFixture copies the jinja-metalk8s case into a temporary directory and returns its
// directory and the three input paths.
func bumpFixture(t *testing.T) (dir, oldUp, oldDown, newUp string) {
	t.Helper()
	dir = t.TempDir()
	paths := make([]string, 3)
	for i, name := range []string{"old-upstream.yaml", "old-downstream.sls", "new-upstream.yaml"} {
		data, err := os.ReadFile(bumpTestdata + "jinja-metalk8s/" + name)
		if err != nil {
			t.Fatal(err)
		}
		paths[i] = filepath.Join(dir, name)
		if err := os.WriteFile(paths[i], data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, paths[0], paths[1], paths[2]
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// TestBumpOutputsRefused: outputs that would destroy an input or the other output, or that are
// not files, are refused with exit 2 before anything is written.
func TestBumpOutputsRefused(t *testing.T) {
	dir, oldUp, oldDown, newUp := bumpFixture(t)
	inputs := []string{"bump", "--old-upstream", oldUp, "--old-downstream", oldDown, "--new-upstream", newUp}
	linkToUp := filepath.Join(dir, "link-to-upstream.yaml")
	if err := os.Symlink(oldUp, linkToUp); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.sls")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"-o and --report the same file", []string{"-o", out, "--report", dir + "/./out.sls"},
			"error: -o " + out + " and --report " + dir + "/./out.sls are the same file: give them different files"},
		{"--report naming an input", []string{"--report", newUp},
			"error: --report " + newUp + " is the same file as --new-upstream " + newUp + ": refusing to overwrite an input"},
		{"--report naming the old downstream", []string{"-o", out, "--report", oldDown},
			"error: --report " + oldDown + " is the same file as --old-downstream " + oldDown + ": refusing to overwrite an input"},
		{"-o naming an upstream through a symlink", []string{"-o", linkToUp},
			"error: -o " + linkToUp + " is the same file as --old-upstream " + oldUp + ": refusing to overwrite an input"},
		{"-o a directory", []string{"-o", dir},
			"error: -o: cannot write " + dir + ": it is a directory; give a file name"},
		{"--report in a missing directory", []string{"--report", filepath.Join(dir, "nope", "r.txt")},
			"error: --report: cannot write " + filepath.Join(dir, "nope", "r.txt") + ": directory " + filepath.Join(dir, "nope") + ": no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshot(t, dir)
			code, stdout, errOut := runCLI(t, append(append([]string{}, inputs...), tc.args...)...)
			if code != 2 || stdout != "" {
				t.Errorf("exit %d, stdout %d bytes; want 2 and nothing", code, len(stdout))
			}
			if diff := cmp.Diff(tc.want, lastLine(errOut)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, snapshot(t, dir)); diff != "" {
				t.Errorf("files changed (-before +after):\n%s", diff)
			}
		})
	}
}

// snapshot maps each file in dir to its mode and content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		data := ""
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			data = string(b)
		}
		out[e.Name()] = fi.Mode().String() + " " + data
	}
	return out
}

// TestBumpOutputsWrittenThrough: an in-place bump keeps the downstream's mode, a symlinked output
// stays a symlink with the target updated, /dev/null stays the device.
func TestBumpOutputsWrittenThrough(t *testing.T) {
	dir, oldUp, oldDown, newUp := bumpFixture(t)
	want, err := os.ReadFile(bumpTestdata + "jinja-metalk8s/want.sls")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(oldDown, 0o640); err != nil {
		t.Fatal(err)
	}
	reportTarget := filepath.Join(dir, "reports", "report.txt")
	if err := os.Mkdir(filepath.Dir(reportTarget), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(reportTarget, nil, 0o604); err != nil {
		t.Fatal(err)
	}
	reportLink := filepath.Join(dir, "report.txt")
	if err := os.Symlink(reportTarget, reportLink); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, "bump", "--old-upstream", oldUp, "--old-downstream", oldDown, "--new-upstream", newUp,
		"-o", oldDown, "--report", reportLink)
	if code != 0 {
		t.Fatalf("in-place bump: exit %d: %s", code, errOut)
	}
	got, err := os.ReadFile(oldDown)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("in-place output (-want +got):\n%s", diff)
	}
	if fi, err := os.Stat(oldDown); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("downstream mode after an in-place bump = %v (%v), want 0640", fi.Mode().Perm(), err)
	}
	if li, err := os.Lstat(reportLink); err != nil || li.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("--report symlink was replaced: %v %v", li.Mode(), err)
	}
	report, err := os.ReadFile(reportTarget)
	if err != nil || !strings.HasPrefix(string(report), "calico-pilot bump report\n") {
		t.Errorf("report target = %q (%v), want the report", report, err)
	}
	if fi, err := os.Stat(reportTarget); err != nil || fi.Mode().Perm() != 0o604 {
		t.Errorf("report mode = %v (%v), want 0604 kept", fi.Mode().Perm(), err)
	}

	_, oldUp, oldDown, newUp = bumpFixture(t)
	code, _, errOut = runCLI(t, "bump", "--old-upstream", oldUp, "--old-downstream", oldDown, "--new-upstream", newUp,
		"-o", "/dev/null", "--report", "/dev/null")
	if code != 0 {
		t.Fatalf("-o /dev/null --report /dev/null: exit %d: %s", code, errOut)
	}
	if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a character device: %v %v", fi.Mode(), err)
	}
}

// TestBumpInterrupted: a bump whose context is cancelled (SIGINT/SIGTERM in main) exits 130 and
// writes nothing.
func TestBumpInterrupted(t *testing.T) {
	dir, oldUp, oldDown, newUp := bumpFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, report := filepath.Join(dir, "out.sls"), filepath.Join(dir, "report.txt")
	code, _, stderr := runCLIWith(ctx, strings.NewReader(""), "bump", "--old-upstream", oldUp, "--old-downstream", oldDown, "--new-upstream", newUp,
		"-o", out, "--report", report)
	if code != ExitInterrupted {
		t.Errorf("exit %d, want %d", code, ExitInterrupted)
	}
	if diff := cmp.Diff("error: interrupted: nothing was written\n", stderr); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
	for _, p := range []string{out, report} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was written by an interrupted bump", p)
		}
	}
}

// TestBumpBadInputs: an input over the size limit, an empty upstream and an unrelated downstream.
func TestBumpBadInputs(t *testing.T) {
	dir, oldUp, oldDown, newUp := bumpFixture(t)
	empty := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(empty, []byte("# nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unrelated := filepath.Join(dir, "unrelated.yaml")
	if err := os.WriteFile(unrelated, []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := func(ou, od, nu string, extra ...string) []string {
		return append([]string{"bump", "--old-upstream", ou, "--old-downstream", od, "--new-upstream", nu}, extra...)
	}
	for _, tc := range []struct {
		name     string
		args     []string
		wantCode int
		want     string
	}{
		{"endless input", args(oldUp, "/dev/zero", newUp), 2, "error: --old-downstream: cannot read /dev/zero: input is larger than the limit of 64 MiB"},
		{"empty old upstream", args(empty, oldDown, newUp), 2, "error: " + empty + ": no YAML documents (an upstream manifest with at least one key is needed)"},
		{"unrelated downstream", args(oldUp, unrelated, newUp), 1, "check downstream-origin failed: the old downstream has 0 of the old upstream's 26 key paths (0%, at least 50% expected): it was probably not made from this old upstream; check --old-upstream, or pass --force"},
		// Forced, the check passes; the merge still has its conflicts (exit 1).
		{"unrelated downstream, forced", args(oldUp, unrelated, newUp, "--force"), 1, "  ok   downstream-origin: the old downstream has 0 of the old upstream's 26 key paths (0%, at least 50% expected): it was probably not made from this old upstream; check --old-upstream (accepted with --force)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(strings.Join(tc.args, " "), "/dev/zero") {
				if _, err := os.Stat("/dev/zero"); err != nil {
					t.Skip("no /dev/zero")
				}
			}
			code, _, errOut := runCLI(t, tc.args...)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.wantCode, errOut)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr does not contain %q:\n%s", tc.want, lastLine(errOut))
			}
		})
	}
}

// bump -o FIFO with no reader used to wait in open(2) forever, deaf to SIGINT and SIGTERM (issue
// 21 finding 11). Interrupted, it exits 130 at once; -o and --report FIFOs without a reader, and
// one whose reader stops reading.
func TestBumpOutputFIFOInterrupted(t *testing.T) {
	dir, oldUp, oldDown, newUp := bumpFixture(t)
	for _, flag := range []string{"-o", "--report"} {
		t.Run(flag, func(t *testing.T) {
			fifo := filepath.Join(dir, "fifo"+flag)
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan int, 1)
			var stdout, stderr bytes.Buffer
			go func() {
				done <- Execute(ctx, []string{"bump", "--old-upstream", oldUp, "--old-downstream", oldDown, "--new-upstream", newUp, flag, fifo}, strings.NewReader(""), &stdout, &stderr)
			}()
			time.Sleep(500 * time.Millisecond) // merged, waiting for a reader
			cancel()
			select {
			case code := <-done:
				if code != ExitInterrupted || !strings.Contains(stderr.String(), "no reader opened the FIFO: context canceled") {
					t.Fatalf("exit %d, stderr %q; want %d", code, stderr.String(), ExitInterrupted)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("bump still waits for a reader 10 s after the interrupt")
			}
		})
	}
}
