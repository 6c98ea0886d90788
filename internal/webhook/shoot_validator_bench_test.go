package webhook

import (
	"context"
	"fmt"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/calico-pilot/calico-pilot/internal/decode"
)

// BenchmarkShootValidator measures one admission decision. The baseline is decoding the Shoot alone
// (the least any validation must do); create adds providerConfig decoding and validation, update decodes
// and validates both Shoots and compares them. Run: go test -run '^$' -bench . ./internal/webhook/
func BenchmarkShootValidator(b *testing.B) {
	config := `{"overlay":{"enabled":true},"typha":{"enabled":true},"ipv4":{"mode":"Always","autoDetectionMethod":"interface=eth.*"},` +
		`"autoScaling":{"mode":"static","resources":{"node":{"cpu":"250m","memory":"100Mi"}}},"vethMTU":"1440"}`
	create := request(b, admissionv1.Create, testShoot{providerConfig: config, workerMaximums: []int{30, 30}}, nil)
	update := request(b, admissionv1.Update,
		testShoot{created: true, providerConfig: `{"overlay":{"enabled":false}}`, workerMaximums: []int{30, 30}},
		&testShoot{created: true, providerConfig: config, workerMaximums: []int{30, 30}})
	// An unrelated update of a Shoot that carries a contradiction the reference accepted: the old
	// Shoot is validated too, to see that the value is not new (ratcheting).
	contradictory := `{"overlay":{"enabled":true},"ipv4":{"mode":"Never"}}`
	ratcheted := request(b, admissionv1.Update,
		testShoot{created: true, providerConfig: contradictory, workerMaximums: []int{30, 30}},
		&testShoot{created: true, providerConfig: `{"overlay":{"enabled":true},"ipv4":{"mode":"Never"},"vethMTU":"1440"}`, workerMaximums: []int{30, 30}})
	ctx := context.Background()
	validator := ShootValidator{}

	b.Run("baseline-decode-shoot", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, errs := decode.Shoot(create.Object.Raw); len(errs) > 0 {
				b.Fatal(errs)
			}
		}
	})
	b.Run("create", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if resp := validator.Handle(ctx, create); !resp.Allowed {
				b.Fatal(resp.Result)
			}
		}
	})
	b.Run("update", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if resp := validator.Handle(ctx, update); !resp.Allowed || len(resp.Warnings) != 1 {
				b.Fatal(resp.Result, resp.Warnings)
			}
		}
	})
	b.Run("update-ratcheted", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if resp := validator.Handle(ctx, ratcheted); !resp.Allowed || len(resp.Warnings) != 1 {
				b.Fatal(resp.Result, resp.Warnings)
			}
		}
	})
}

// unknownFieldsConfig is a providerConfig with n unknown fields (the hostile Shoot of issue 15).
func unknownFieldsConfig(n int) string {
	var b strings.Builder
	b.WriteString(`{"overlay":{"enabled":true}`)
	for i := range n {
		fmt.Fprintf(&b, `,"unknownField%06d":%d`, i, i)
	}
	b.WriteString("}")
	return b.String()
}

// BenchmarkShootValidatorUnknownFields measures a denial for a providerConfig with 1k, 10k and 50k
// unknown fields; with a linear decision each size costs about 10x / 5x the one before, and the
// response holds at most decode.MaxErrors causes. Run:
// go test -run '^$' -bench UnknownFields ./internal/webhook/
func BenchmarkShootValidatorUnknownFields(b *testing.B) {
	ctx := context.Background()
	validator := ShootValidator{}
	for _, n := range []int{1_000, 10_000, 50_000} {
		req := request(b, admissionv1.Create, testShoot{providerConfig: unknownFieldsConfig(n)}, nil)
		b.Run(fmt.Sprintf("fields=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if resp := validator.Handle(ctx, req); resp.Allowed {
					b.Fatal("allowed")
				}
			}
		})
	}
}
