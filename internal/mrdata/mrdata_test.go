package mrdata

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
)

func TestRoundTrip(t *testing.T) {
	in := []byte(strings.Repeat(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition"}`+"\n", 2000))
	c, err := Compress(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(c) >= len(in)/10 {
		t.Errorf("compressed %d bytes to %d: expected far less for a repetitive stream", len(in), len(c))
	}
	again, err := Compress(in)
	if err != nil || !bytes.Equal(c, again) {
		t.Errorf("compression is not deterministic (%v)", err)
	}
	out, err := Decompress(c)
	if err != nil || !bytes.Equal(out, in) {
		t.Fatalf("round trip: %v, equal %t", err, bytes.Equal(out, in))
	}
}

func TestPlain(t *testing.T) {
	crds, err := Compress([]byte("crd stream\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Plain(map[string][]byte{"config.yaml": []byte("plain\n"), CRDsKey: crds})
	if err != nil {
		t.Fatal(err)
	}
	if string(got["config.yaml"]) != "plain\n" || string(got[CRDsKey]) != "crd stream\n" || len(got) != 2 {
		t.Errorf("Plain = %q", got)
	}
	if _, err := Plain(map[string][]byte{"data.yaml.br": []byte("not brotli")}); err == nil || !strings.Contains(err.Error(), `secret data key "data.yaml.br"`) {
		t.Errorf("corrupt key: %v, want an error naming the key", err)
	}
}

// A compression bomb is refused at the limit instead of filling memory.
func TestDecompressLimit(t *testing.T) {
	var buf bytes.Buffer
	w := brotli.NewWriterLevel(&buf, brotli.BestSpeed)
	if _, err := w.Write(make([]byte, MaxDecompressedSize+1)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	bomb := buf.Bytes()
	if _, err := Decompress(bomb); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("Decompress of %d zero bytes: %v, want the size limit", MaxDecompressedSize+1, err)
	}
}

// Whatever a secret's ".br" key holds (swap-check and plan read seeds and files they do not
// control), Decompress returns an error or at most MaxDecompressedSize bytes; it never panics, and
// what Compress wrote comes back unchanged.
func FuzzDecompress(f *testing.F) {
	valid, err := Compress([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}` + "\n"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Add([]byte{})
	f.Add([]byte("\x1b"))
	f.Add(valid[:len(valid)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Decompress(data)
		if err == nil && len(out) > MaxDecompressedSize {
			t.Fatalf("decompressed to %d bytes, above the limit", len(out))
		}
		again, err := Compress(data)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Decompress(again)
		if err != nil || !bytes.Equal(back, data) {
			t.Fatalf("round trip of %d bytes: %v", len(data), err)
		}
	})
}

// A Budget is shared by every key of one input: two keys under the per-key limit are refused
// together when they exceed it (issue 21 finding 8), and a done context stops decompression.
func TestBudget(t *testing.T) {
	var buf bytes.Buffer
	w := brotli.NewWriterLevel(&buf, brotli.BestSpeed)
	if _, err := w.Write(bytes.Repeat([]byte("a"), 600<<10)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b := NewBudget(1 << 20)
	if out, err := b.Decompress(context.Background(), buf.Bytes()); err != nil || len(out) != 600<<10 {
		t.Fatalf("first key: %d bytes, %v", len(out), err)
	}
	_, err := b.Decompress(context.Background(), buf.Bytes())
	if err == nil || err.Error() != "brotli data decompresses to more than the 1048576 bytes all keys of one input may decompress to together" {
		t.Fatalf("second key: %v, want the budget refused", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewBudget(1<<20).Decompress(ctx, buf.Bytes()); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}
