package swapcheck

import (
	"os"
	"testing"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/controller/network"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

var (
	cl         client.Client
	restConfig *rest.Config
	controlCP  *testenv.ControlPlane
)

func TestMain(m *testing.M) {
	opts := testenv.Options{CRDDirectoryPaths: testenv.CRDDirectories(testenv.GardenerCRDs)}
	os.Exit(testenv.RunSuite(m, opts, func(cp *testenv.ControlPlane) error {
		scheme, err := network.NewScheme()
		if err != nil {
			return err
		}
		controlCP, restConfig = cp, cp.Config
		cl, err = client.New(cp.Config, client.Options{Scheme: scheme})
		return err
	}))
}
