package render_test

import (
	"encoding/json"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/calico-pilot/calico-pilot/api/projectcalico/crds"
	"github.com/calico-pilot/calico-pilot/internal/manifest"
	"github.com/calico-pilot/calico-pilot/internal/render"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

func benchScenario(b *testing.B, name string) values.Options {
	b.Helper()
	for _, sc := range scenarios {
		if sc.name == name {
			opts, validErrs, resolveErrs := resolve(shootOf(sc), sc.nonPrivileged, sc.addresses)
			if len(validErrs)+len(resolveErrs) > 0 {
				b.Fatalf("scenario %s invalid", name)
			}
			return opts
		}
	}
	b.Fatalf("no scenario %s", name)
	return values.Options{}
}

func benchCRDs(b *testing.B) []client.Object {
	b.Helper()
	defs, err := crds.CustomResourceDefinitions()
	if err != nil {
		b.Fatal(err)
	}
	objs, err := render.CRDs(defs)
	if err != nil {
		b.Fatal(err)
	}
	return objs
}

// BenchmarkRender measures rendering and serializing everything a shoot gets, CRDs included,
// for the default and the largest scenario:
//
//   - stored: render.Shoot + manifest.Build with the CRDs encoded once at start + compact JSON
//     (what the controller stores); this is the path the 10x goal is about.
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
	for _, name := range []string{"default", "largest"} {
		opts := benchScenario(b, name)
		b.Run(name+"/stored", func(b *testing.B) {
			b.ReportAllocs()
			var n int
			for b.Loop() {
				objs, err := render.Shoot(&opts)
				if err != nil {
					b.Fatal(err)
				}
				m, err := manifest.Build(static, objs)
				if err != nil {
					b.Fatal(err)
				}
				n = len(m.JSON())
			}
			b.ReportMetric(float64(n), "out-bytes")
		})
		b.Run(name+"/yaml", func(b *testing.B) {
			b.ReportAllocs()
			var n int
			for b.Loop() {
				objs, err := render.Shoot(&opts)
				if err != nil {
					b.Fatal(err)
				}
				m, err := manifest.Build(static, objs)
				if err != nil {
					b.Fatal(err)
				}
				y, err := m.YAML()
				if err != nil {
					b.Fatal(err)
				}
				n = len(y)
			}
			b.ReportMetric(float64(n), "out-bytes")
		})
		b.Run(name+"/baseline-json", func(b *testing.B) {
			b.ReportAllocs()
			var n int
			for b.Loop() {
				objs, err := render.Shoot(&opts)
				if err != nil {
					b.Fatal(err)
				}
				n = 0
				for _, o := range append(objs, crdObjs...) {
					j, err := json.Marshal(o)
					if err != nil {
						b.Fatal(err)
					}
					n += len(j) + 1
				}
			}
			b.ReportMetric(float64(n), "out-bytes")
		})
		b.Run(name+"/baseline-yaml", func(b *testing.B) {
			b.ReportAllocs()
			var n int
			for b.Loop() {
				objs, err := render.Shoot(&opts)
				if err != nil {
					b.Fatal(err)
				}
				n = 0
				for _, o := range append(objs, crdObjs...) {
					y, err := yaml.Marshal(o)
					if err != nil {
						b.Fatal(err)
					}
					n += len(y) + 4
				}
			}
			b.ReportMetric(float64(n), "out-bytes")
		})
	}
}

// BenchmarkValidateAndResolve measures the steps before rendering for the largest scenario:
// validation.ValidateShoot, strict decoding of the providerConfig and values.Resolve.
func BenchmarkValidateAndResolve(b *testing.B) {
	var sc scenario
	for _, s := range scenarios {
		if s.name == "largest" {
			sc = s
		}
	}
	s := shootOf(sc)
	b.ReportAllocs()
	for b.Loop() {
		if _, v, r := resolve(s, false, sc.addresses); len(v)+len(r) > 0 {
			b.Fatal("invalid")
		}
	}
}
