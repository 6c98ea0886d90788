package render_test

import (
	"path/filepath"
	"testing"

	"github.com/calico-pilot/calico-pilot/internal/render"
)

// seedGoldenDir holds the seed-side objects of the seedGoldenScenarios: <scenario>.yaml.
var seedGoldenDir = filepath.Join("testdata", "seed-monitoring")

// seedGoldenScenarios cover the seed-side objects. They do not depend on the configuration
// (TestSeedMonitoringDoesNotDependOnConfig), so one scenario shows them all.
var seedGoldenScenarios = []string{"default"}

func seedYAML(t testing.TB, sc scenario) []byte {
	t.Helper()
	opts := scenarioOptions(t, sc)
	objs, err := render.SeedMonitoring(&opts)
	if err != nil {
		t.Fatal(err)
	}
	return yamlOf(t, objs)
}

func TestSeedMonitoringGolden(t *testing.T) {
	for _, name := range seedGoldenScenarios {
		t.Run(name, func(t *testing.T) {
			got := seedYAML(t, scenarioByName(t, name))
			compareGolden(t, filepath.Join(seedGoldenDir, name+".yaml"), got)
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
