package policyadmission

import (
	"os"
	"testing"

	"github.com/calico-pilot/calico-pilot/test/integration/framework"
)

// controlPlane is the suite's API server.
var controlPlane *framework.ControlPlane

func TestMain(m *testing.M) {
	opts := framework.Options{CRDDirectoryPaths: framework.CRDDirectories(framework.CalicoCRDs)}
	os.Exit(framework.RunSuite(m, opts, func(cp *framework.ControlPlane) error {
		controlPlane = cp
		return nil
	}))
}
