package calicooracle

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/calico-pilot/calico-pilot/api/projectcalico/crds"
	"github.com/calico-pilot/calico-pilot/internal/render"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// controlPlane is the suite's control plane, started once in TestMain.
var controlPlane *testenv.ControlPlane

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	defs, err := crds.CustomResourceDefinitions()
	if err != nil {
		fmt.Fprintf(os.Stderr, "loading Calico CRDs: %v\n", err)
		return 1
	}
	// The CRDs exactly as rendered into every shoot.
	objs, err := render.CRDs(defs)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rendering CRDs: %v\n", err)
		return 1
	}
	var install []*apiextensionsv1.CustomResourceDefinition
	for _, o := range objs {
		install = append(install, o.(*apiextensionsv1.CustomResourceDefinition))
	}
	opts := testenv.Options{
		CRDs: install,
		// The VPA CRD, which a shoot has from Gardener (the render holds VerticalPodAutoscalers).
		CRDDirectoryPaths: []string{filepath.Join("..", "render", "testdata", "crds", "autoscaling.k8s.io_verticalpodautoscalers.yaml")},
	}
	return testenv.RunSuite(m, opts, func(cp *testenv.ControlPlane) error {
		controlPlane = cp
		return nil
	})
}
