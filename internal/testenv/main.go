package testenv

import (
	"fmt"
	"os"
	"testing"
)

// RunSuite starts one control plane for a suite package, runs its tests with it and stops it.
// setup receives the running control plane (store it in a package variable of the suite).
// It is meant to be called from TestMain: os.Exit(testenv.RunSuite(m, opts, setup)).
func RunSuite(m *testing.M, opts Options, setup func(*ControlPlane) error) int {
	cp, err := Start(opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "integration suite: %v\n", err)
		return 1
	}
	defer func() {
		if err := cp.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "integration suite: stopping control plane: %v\n", err)
		}
	}()
	if setup != nil {
		if err := setup(cp); err != nil {
			fmt.Fprintf(os.Stderr, "integration suite: setup: %v\n", err)
			return 1
		}
	}
	return m.Run()
}
