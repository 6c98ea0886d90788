package render_test

import (
	"encoding/json"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/calico-pilot/calico-pilot/api/projectcalico/crds"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/manifest"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/render"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

func benchScenario(b *testing.B, name string) values.Options {
	b.Helper()
	return scenarioOptions(b, scenarioByName(b, name))
}

func benchCRDs(b *testing.B) []client.Object {
	b.Helper()
	defs, err := crds.CustomResourceDefinitionsFor(crds.BaseSet)
	if err != nil {
		b.Fatal(err)
	}
	objs, err := render.CRDs(defs)
	if err != nil {
		b.Fatal(err)
	}
	return objs
}

// cpuTime is the process's user+system CPU time. On a shared machine wall time per op includes
// waiting for a core; CPU time per op ("cpu-ns/op") does not, so both are reported.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measure runs f in the benchmark loop and reports output bytes and CPU time per op.
func measure(b *testing.B, f func() int) {
	b.ReportAllocs()
	var n int
	start := cpuTime(b)
	for b.Loop() {
		n = f()
	}
	b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(n), "out-bytes")
}

// BenchmarkRender measures rendering and serializing everything a shoot gets, CRDs included,
// for the default and the largest scenario:
//
//   - stored: rendertest.Shoot + manifest.Build with the CRDs encoded once at start + compact JSON
//     (what the controller stores); this is the path the 10x goal is about.
//   - stored-split: the same, with the CRDs kept in their own pre-joined stream (Static.JSON)
//     and only the other objects joined per render (Manifest.DynamicJSON).
//   - stored-const, stored-split-const: stored and stored-split with the CRDs and the
//     option-independent objects encoded once (internal/pipeline's Encoder, built at start:
//     render.ShootParts, the constant groups' pre-encoded bytes).
//   - yaml: the same, then YAML for people (render -o yaml).
//   - baseline-json: encoding/json of every object, CRDs re-encoded on every render.
//   - baseline-yaml: the naive path, sigs.k8s.io/yaml.Marshal of every object, CRDs included.
//
// Each reports the output size as "out-bytes".
func BenchmarkRender(b *testing.B) {
	crdObjs := benchCRDs(b)
	static, err := manifest.NewStatic(crdObjs)
	if err != nil {
		b.Fatal(err)
	}
	enc, err := pipeline.NewEncoder()
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"default", "largest"} {
		opts := benchScenario(b, name)
		// built renders the scenario and builds its manifest with the CRDs encoded once.
		built := func(b *testing.B) *manifest.Manifest {
			objs, err := rendertest.Shoot(&opts)
			if err != nil {
				b.Fatal(err)
			}
			m, err := manifest.Build(static, objs)
			if err != nil {
				b.Fatal(err)
			}
			return m
		}
		// encoded runs pipeline.Encoder on the scenario (what the controller runs).
		encoded := func(b *testing.B) *manifest.Manifest {
			m, err := enc.Shoot(&opts, true)
			if err != nil {
				b.Fatal(err)
			}
			return m
		}
		// each renders the scenario and marshals every object, CRDs included, one by one: the
		// bytes plus sep per object.
		each := func(b *testing.B, marshal func(any) ([]byte, error), sep int) int {
			objs, err := rendertest.Shoot(&opts)
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for _, o := range append(objs, crdObjs...) {
				out, err := marshal(o)
				if err != nil {
					b.Fatal(err)
				}
				n += len(out) + sep
			}
			return n
		}
		b.Run(name+"/stored", func(b *testing.B) {
			measure(b, func() int { return len(built(b).JSON()) })
		})
		b.Run(name+"/stored-split", func(b *testing.B) {
			// The CRDs stored under their own key (Static.JSON, computed once), the rest per render.
			measure(b, func() int { return len(static.JSON()) + len(built(b).DynamicJSON()) })
		})
		b.Run(name+"/stored-const", func(b *testing.B) {
			// As stored, with the option-independent objects encoded once (pipeline.Encoder, what
			// the controller runs).
			measure(b, func() int { return len(encoded(b).JSON()) })
		})
		b.Run(name+"/stored-split-const", func(b *testing.B) {
			measure(b, func() int { return len(static.JSON()) + len(encoded(b).DynamicJSON()) })
		})
		b.Run(name+"/yaml", func(b *testing.B) {
			measure(b, func() int {
				y, err := built(b).YAML()
				if err != nil {
					b.Fatal(err)
				}
				return len(y)
			})
		})
		b.Run(name+"/baseline-json", func(b *testing.B) {
			measure(b, func() int { return each(b, json.Marshal, 1) })
		})
		b.Run(name+"/baseline-yaml", func(b *testing.B) {
			measure(b, func() int { return each(b, yaml.Marshal, 4) })
		})
	}
}

// BenchmarkValidateAndResolve measures the steps before rendering for the largest scenario:
// validation.ValidateShoot, strict decoding of the providerConfig and values.Resolve.
func BenchmarkValidateAndResolve(b *testing.B) {
	var sc scenario
	for _, s := range scenarios {
		if s.Name == "largest" {
			sc = s
		}
	}
	s := shootOf(sc)
	measure(b, func() int {
		if _, v, r := resolve(s, false, sc.Addresses); len(v)+len(r) > 0 {
			b.Fatal("invalid")
		}
		return 0
	})
}

// BenchmarkEncoderReleases measures the stored manifest through the pipeline's Encoder (each line's
// CRDs and the constants encoded once) for scenario default at every release of the catalogue and in
// every move step (rendertest.MoveScenarios: calico-node's role serving two releases); and building
// the Encoder itself, which encodes every line's CRD set and every constant per release combination.
func BenchmarkEncoderReleases(b *testing.B) {
	enc, err := pipeline.NewEncoder()
	if err != nil {
		b.Fatal(err)
	}
	var benched []scenario
	for _, r := range calicoversion.Default().Releases() {
		benched = append(benched, scenarioByName(b, "default").At(r))
	}
	benched = append(benched, rendertest.MoveScenarios()...)
	for _, sc := range benched {
		opts := scenarioOptions(b, sc)
		b.Run(sc.Name, func(b *testing.B) {
			measure(b, func() int {
				m, err := enc.Shoot(&opts, true)
				if err != nil {
					b.Fatal(err)
				}
				return len(m.JSON())
			})
		})
	}
	b.Run("new-encoder", func(b *testing.B) {
		measure(b, func() int {
			e, err := pipeline.NewEncoder()
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for _, line := range calicoversion.Default().Lines() {
				n += len(e.CRDsJSONFor(line.Newest()))
			}
			return n
		})
	})
}
