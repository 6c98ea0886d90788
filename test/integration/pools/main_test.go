package pools

import (
	"os"
	"testing"

	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

var cp *testenv.ControlPlane

func TestMain(m *testing.M) {
	os.Exit(testenv.RunSuite(m, testenv.Options{CRDDirectoryPaths: testenv.CRDDirectories(testenv.CalicoCRDs)},
		func(c *testenv.ControlPlane) error { cp = c; return nil }))
}
