package rollout

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// fleetSize is the number of shoots, each with its own API server.
const fleetSize = 20

var (
	seedCP *testenv.ControlPlane
	shoots *testenv.Shoots
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	// controller-runtime's process-wide logger (envtest's CRD installation logs through it).
	ctrl.SetLogger(logr.Discard())
	var err error
	seedCP, err = testenv.Start(testenv.Options{CRDDirectoryPaths: testenv.CRDDirectories(testenv.GardenerCRDs, testenv.MonitoringCRDs)})
	if err != nil {
		fmt.Fprintf(os.Stderr, "rollout suite: starting seed control plane: %v\n", err)
		return 1
	}
	defer func() {
		if err := seedCP.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "rollout suite: stopping seed: %v\n", err)
		}
	}()
	// The shoots hold the IPPool CRD: the controller's pool sync creates the pools there.
	ippools := filepath.Join(testenv.CRDDirectories(testenv.CalicoCRDs)[0], "crd.projectcalico.org_ippools.yaml")
	shoots, err = testenv.StartShoots(fleetSize, []string{ippools})
	if err != nil {
		fmt.Fprintf(os.Stderr, "rollout suite: starting shoots: %v\n", err)
		return 1
	}
	defer func() {
		if err := shoots.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "rollout suite: stopping shoots: %v\n", err)
		}
	}()
	return m.Run()
}
