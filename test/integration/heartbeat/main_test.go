package heartbeat

import (
	"os"
	"testing"

	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/test/integration/framework"
)

var (
	cp *framework.ControlPlane
	cl client.Client
)

func TestMain(m *testing.M) {
	// The Gardener CRDs let the whole controller start (its Network controller watches them).
	opts := framework.Options{CRDDirectoryPaths: framework.CRDDirectories(framework.GardenerCRDs, framework.MonitoringCRDs)}
	os.Exit(framework.RunSuite(m, opts, func(c *framework.ControlPlane) error {
		cp = c
		var err error
		cl, err = c.NewClient(clientgoscheme.AddToScheme)
		return err
	}))
}
