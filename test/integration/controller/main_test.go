package controller

import (
	"fmt"
	"os"
	"testing"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// seedCP plays the seed (Networks, Clusters, DNSRecords, ManagedResources); shootCP plays the shoot
// (Nodes and Calico IP pools, read and written through the shoot access secret).
var seedCP, shootCP *testenv.ControlPlane

func TestMain(m *testing.M) { os.Exit(run(m)) }

// testLogger logs to stderr when CONTROLLER_TEST_LOG is set, else nowhere.
func testLogger() logr.Logger {
	if os.Getenv("CONTROLLER_TEST_LOG") == "" {
		return logr.Discard()
	}
	return zap.New(zap.WriteTo(os.Stderr), zap.UseDevMode(true))
}

func run(m *testing.M) int {
	// controller-runtime's process-wide logger (used by its internals) goes where the managers log.
	ctrl.SetLogger(testLogger())
	var err error
	seedCP, err = testenv.Start(testenv.Options{
		CRDDirectoryPaths: testenv.CRDDirectories(testenv.GardenerCRDs, testenv.MonitoringCRDs),
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "controller suite: starting seed control plane: %v\n", err)
		return 1
	}
	defer stop("seed", seedCP)
	// The shoot holds Calico's CRDs: the controller creates and patches IP pools there.
	shootCP, err = testenv.Start(testenv.Options{CRDDirectoryPaths: testenv.CRDDirectories(testenv.CalicoCRDs)})
	if err != nil {
		fmt.Fprintf(os.Stderr, "controller suite: starting shoot control plane: %v\n", err)
		return 1
	}
	defer stop("shoot", shootCP)
	return m.Run()
}

func stop(name string, cp *testenv.ControlPlane) {
	if err := cp.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "controller suite: stopping %s control plane: %v\n", name, err)
	}
}
