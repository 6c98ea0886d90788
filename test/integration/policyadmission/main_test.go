package policyadmission

import (
	"os"
	"testing"

	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// controlPlane is the suite's API server.
var controlPlane *testenv.ControlPlane

func TestMain(m *testing.M) {
	opts := testenv.Options{CRDDirectoryPaths: testenv.CRDDirectories(testenv.CalicoCRDs)}
	os.Exit(testenv.RunSuite(m, opts, func(cp *testenv.ControlPlane) error {
		controlPlane = cp
		return nil
	}))
}
