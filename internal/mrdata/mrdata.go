// Package mrdata reads and writes the data of a ManagedResource's secrets as Gardener's resource
// manager reads it (docs/gardener-api-types.md §3.5): every key holds a YAML-or-JSON stream, and a key
// ending in ".br" holds one compressed with Brotli.
//
// calico-pilot stores the shoot manifest under two keys: the Calico CRDs, the same bytes for every
// shoot and every render, Brotli-compressed once per process under CRDsKey, and everything else as
// a plain stream under the manifest key, readable with kubectl. The CRDs are ~90 % of the manifest:
// compressed, a content secret is ~37 KB instead of ~236 KB, which is what the seed's API server
// and etcd store and serve per shoot.
package mrdata

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/andybalholm/brotli"
)

// CompressedSuffix marks a Brotli-compressed key.
const CompressedSuffix = ".br"

// CRDsKey is the key of the compressed CRD stream in calico-pilot's shoot secret.
const CRDsKey = "crds.yaml" + CompressedSuffix

// MaxDecompressedSize bounds what one key may decompress to: far above any manifest (the CRDs
// are ~215 KB), far below what a compression bomb would need to hurt.
const MaxDecompressedSize = 64 << 20

// Compress returns b compressed with Brotli (deterministic for a given input). Quality 6 with a
// 1 MiB window: for the CRD stream (~215 KB) that is 19.1 KB in ~17 ms with ~3 MB of allocations,
// where the best quality gives 17.1 KB for 20-50 MB of allocations, a spike in the controller's
// resident memory at start for 2 KB less per secret.
func Compress(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	w := brotli.NewWriterOptions(&buf, brotli.WriterOptions{Quality: 6, LGWin: 20})
	if _, err := w.Write(b); err != nil {
		return nil, fmt.Errorf("compressing: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("compressing: %w", err)
	}
	return buf.Bytes(), nil
}

// Decompress returns the Brotli-decompressed b, refusing more than MaxDecompressedSize bytes.
func Decompress(b []byte) ([]byte, error) {
	out, err := io.ReadAll(io.LimitReader(brotli.NewReader(bytes.NewReader(b)), MaxDecompressedSize+1))
	if err != nil {
		return nil, fmt.Errorf("decompressing Brotli data: %w", err)
	}
	if len(out) > MaxDecompressedSize {
		return nil, fmt.Errorf("brotli data decompresses to more than %d bytes", MaxDecompressedSize)
	}
	return out, nil
}

// MaxInputDecompressedSize is what all ".br" keys of one input (a ManagedResource secret given to
// plan) may decompress to together: the CRD stream calico-pilot compresses is ~215 KB, so 16 MiB
// is ample, while the YAML decoding that follows costs up to ~100 bytes of memory and ~1 µs per
// decompressed byte (a 178-byte key used to decompress to 60 MiB and take 453 s and 7.6 GB).
const MaxInputDecompressedSize = 16 << 20

// Budget is the number of decompressed bytes one input may still produce, shared by all its keys,
// so that many keys cannot each take a per-key limit.
type Budget struct {
	limit, left int64
}

// NewBudget returns a budget of n decompressed bytes.
func NewBudget(n int64) *Budget { return &Budget{limit: n, left: n} }

// Decompress returns the Brotli-decompressed b and takes its size from the budget. It refuses
// output beyond what is left, and stops when ctx is done (checked every 64 KiB of output).
func (bg *Budget) Decompress(ctx context.Context, b []byte) ([]byte, error) {
	r := brotli.NewReader(bytes.NewReader(b))
	var out bytes.Buffer
	chunk := make([]byte, 64<<10)
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("decompressing Brotli data: %w", err)
		}
		n, err := r.Read(chunk)
		if int64(n) > bg.left {
			bg.left = -1
			return nil, fmt.Errorf("brotli data decompresses to more than the %d bytes all keys of one input may decompress to together", bg.limit)
		}
		bg.left -= int64(n)
		out.Write(chunk[:n])
		if errors.Is(err, io.EOF) {
			return out.Bytes(), nil
		}
		if err != nil {
			return nil, fmt.Errorf("decompressing Brotli data: %w", err)
		}
	}
}

// Plain returns data with every ".br" key decompressed (under the same key, suffix included, so
// that names stay those of the secret); other keys are returned as they are.
func Plain(data map[string][]byte) (map[string][]byte, error) {
	out := make(map[string][]byte, len(data))
	var errs []error
	for k, v := range data {
		if !strings.HasSuffix(k, CompressedSuffix) {
			out[k] = v
			continue
		}
		plain, err := Decompress(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("secret data key %q: %w", k, err))
			continue
		}
		out[k] = plain
	}
	return out, errors.Join(errs...)
}
