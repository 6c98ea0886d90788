package validation

import (
	"os"
	"testing"

	"github.com/calico-pilot/calico-pilot/internal/decode"
)

func readShootExample(b *testing.B) []byte {
	b.Helper()
	data, err := os.ReadFile("../../examples/shoot.yaml")
	if err != nil {
		b.Fatal(err)
	}
	docs, err := decode.SplitDocuments(data)
	if err != nil || len(docs) != 1 {
		b.Fatalf("examples/shoot.yaml: %v (%d documents)", err, len(docs))
	}
	return docs[0].JSON
}

// BenchmarkDecodeShoot is the baseline for BenchmarkValidateShoot: decoding the example Shoot only.
func BenchmarkDecodeShoot(b *testing.B) {
	js := readShootExample(b)
	for b.Loop() {
		if _, errs := decode.Shoot(js); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

// BenchmarkValidateShoot is what the webhook does per Shoot: decode it, then ValidateShoot
// (which strictly decodes and validates the providerConfig).
func BenchmarkValidateShoot(b *testing.B) {
	js := readShootExample(b)
	for b.Loop() {
		shoot, errs := decode.Shoot(js)
		if len(errs) > 0 {
			b.Fatal(errs)
		}
		if _, errs := ValidateShoot(shoot); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}
