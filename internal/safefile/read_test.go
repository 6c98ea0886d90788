package safefile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadLimit(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok")
	if err := os.WriteFile(ok, []byte("a: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := Read(context.Background(), ok, nil, 5); err != nil || string(data) != "a: 1\n" {
		t.Fatalf("Read = %q, %v", data, err)
	}
	if _, err := Read(context.Background(), ok, nil, 4); err == nil || err.Error() != "cannot read "+ok+": input is larger than the limit of 4 bytes" || !errors.Is(err, ErrInputTooLarge) {
		t.Fatalf("over the limit: %v", err)
	}
	if _, err := Read(context.Background(), "-", strings.NewReader("abcdef"), 4); err == nil || err.Error() != "cannot read stdin: input is larger than the limit of 4 bytes" {
		t.Fatalf("stdin over the limit: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := Read(context.Background(), "/dev/zero", nil, 1<<20); err == nil || err.Error() != "cannot read /dev/zero: input is larger than the limit of 1 MiB" {
			t.Fatalf("/dev/zero: %v", err)
		}
	}
}

// A read blocked in open(2) on a FIFO nobody writes to returns when the context is done.
func TestReadCancelledWhileBlocked(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Read(ctx, fifo, nil, MaxInputBytes)
	if !errors.Is(err, context.DeadlineExceeded) || err.Error() != "cannot read "+fifo+": context deadline exceeded" {
		t.Fatalf("error = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("returned after %s", d)
	}
}
