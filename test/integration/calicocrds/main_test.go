package calicocrds

import (
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	policyv1alpha1 "sigs.k8s.io/network-policy-api/apis/v1alpha1"

	projectcalicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// cl is an uncached client of the suite's control plane, with a scheme holding only what the suite uses.
var cl client.Client

// controlPlane is the suite's control plane (TestV3_32CRDs changes its CRDs and puts v3.31's back).
var controlPlane *testenv.ControlPlane

func TestMain(m *testing.M) {
	opts := testenv.Options{CRDDirectoryPaths: testenv.CRDDirectories(testenv.CalicoCRDs)}
	os.Exit(testenv.RunSuite(m, opts, func(cp *testenv.ControlPlane) error {
		var err error
		controlPlane = cp
		cl, err = cp.NewClient(corev1.AddToScheme, projectcalicov1.AddToScheme, policyv1alpha1.AddToScheme)
		return err
	}))
}
