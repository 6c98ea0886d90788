package gardenertypes

import (
	"os"
	"testing"

	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// cl is an uncached client of the suite's control plane.
var cl client.Client

func TestMain(m *testing.M) {
	opts := testenv.Options{CRDDirectoryPaths: testenv.CRDDirectories(testenv.GardenerCRDs)}
	os.Exit(testenv.RunSuite(m, opts, func(cp *testenv.ControlPlane) error {
		var err error
		cl, err = cp.NewClient(clientgoscheme.AddToScheme, extensionsv1alpha1.AddToScheme, resourcesv1alpha1.AddToScheme)
		return err
	}))
}

// newNamespace creates a fresh namespace for one test and returns its name.
func newNamespace(t *testing.T) string {
	t.Helper()
	return testenv.NewNamespace(t, cl, "gardenertypes-", nil)
}
