package render_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calico-pilot/calico-pilot/internal/manifest"
	"github.com/calico-pilot/calico-pilot/internal/render"
)

// TestSeedMonitoringGolden covers the seed-side objects: all components, typha off, and the
// bird exporter on (its ScrapeConfig and dashboard only then).
func TestSeedMonitoringGolden(t *testing.T) {
	for _, name := range []string{"default", "typha-disabled", "bird-exporter"} {
		t.Run(name, func(t *testing.T) {
			sc := scenarioByName(t, name)
			opts, v, r := resolve(shootOf(sc), sc.nonPrivileged, sc.addresses)
			if len(v)+len(r) > 0 {
				t.Fatalf("invalid: %v %v", v, r)
			}
			objs, err := render.SeedMonitoring(&opts)
			if err != nil {
				t.Fatal(err)
			}
			m, err := manifest.Build(nil, objs)
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.YAML()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "seed-monitoring-"+name+".yaml")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("reading golden file: %v (run: go test ./internal/render/... -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs (-golden +rendered):\n%s\nIf intended, run: go test ./internal/render/... -update", path, shortDiff(cmp.Diff(string(want), string(got))))
			}
		})
	}
}

func TestSeedMonitoringNeedsNamespace(t *testing.T) {
	sc := scenarioByName(t, "default")
	opts, _, _ := resolve(shootOf(sc), false, nil)
	opts.SeedNamespace = ""
	_, err := render.SeedMonitoring(&opts)
	if err == nil || err.Error() != "rendering seed monitoring objects: the shoot's control-plane namespace is not set" {
		t.Errorf("error %v", err)
	}
}
