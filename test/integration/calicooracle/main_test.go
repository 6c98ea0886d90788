package calicooracle

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// controlPlane is the suite's control plane, started once in TestMain.
var controlPlane *testenv.ControlPlane

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	// The CRDs exactly as rendered into every shoot (labels and all).
	install, err := testenv.RenderedCalicoCRDs()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	opts := testenv.Options{
		CRDs: install,
		// The VPA CRD, which a shoot has from Gardener (the render holds VerticalPodAutoscalers).
		CRDDirectoryPaths: []string{filepath.Join("..", "render", "testdata", "crds", "autoscaling.k8s.io_verticalpodautoscalers.yaml")},
	}
	return testenv.RunSuite(m, opts, func(cp *testenv.ControlPlane) error {
		controlPlane = cp
		return nil
	})
}
