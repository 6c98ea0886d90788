package apiserverendpoints

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	"github.com/calico-pilot/calico-pilot/test/integration/framework"
)

// cl is an uncached client of the suite's control plane.
var cl client.Client

func TestMain(m *testing.M) {
	opts := framework.Options{
		CRDDirectoryPaths: []string{filepath.Join(framework.RepoRoot(), "test", "integration", "crds", "gardener")},
	}
	os.Exit(framework.RunSuite(m, opts, func(cp *framework.ControlPlane) error {
		scheme := runtime.NewScheme()
		for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, extensionsv1alpha1.AddToScheme} {
			if err := add(scheme); err != nil {
				return err
			}
		}
		c, err := client.New(cp.Config, client.Options{Scheme: scheme})
		if err != nil {
			return err
		}
		cl = c
		return nil
	}))
}

// newNamespace creates a fresh control-plane namespace for one test and returns its name.
func newNamespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "shoot--proj--"}}
	if err := cl.Create(context.Background(), ns); err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	return ns.Name
}
