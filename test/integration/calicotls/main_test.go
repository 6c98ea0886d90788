package calicotls

import (
	"os"
	"testing"

	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

var cl client.Client

func TestMain(m *testing.M) {
	os.Exit(testenv.RunSuite(m, testenv.Options{}, func(c *testenv.ControlPlane) error {
		var err error
		cl, err = c.NewClient(clientgoscheme.AddToScheme)
		return err
	}))
}
