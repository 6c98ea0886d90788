package framework_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/calico-pilot/calico-pilot/test/integration/framework"
)

// TestCRDDirectories checks that every named set is an existing directory of CRD manifests below
// the repository root, returned in the order asked for.
func TestCRDDirectories(t *testing.T) {
	root := framework.RepoRoot()
	got := framework.CRDDirectories(framework.MonitoringCRDs, framework.GardenerCRDs, framework.CalicoCRDs)
	want := []string{
		filepath.Join(root, "test", "integration", "crds", "monitoring"),
		filepath.Join(root, "test", "integration", "crds", "gardener"),
		filepath.Join(root, "api", "projectcalico", "crds"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("CRDDirectories (-want +got):\n%s", diff)
	}
	for _, dir := range got {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatalf("reading %s: %v", dir, err)
		}
		var manifests int
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".yaml") {
				manifests++
			}
		}
		if manifests == 0 {
			t.Errorf("%s holds no .yaml CRD manifests", dir)
		}
	}
	if got := framework.CRDDirectories(); len(got) != 0 {
		t.Errorf("CRDDirectories() = %v, want none", got)
	}
}

func TestNewScheme(t *testing.T) {
	scheme, err := framework.NewScheme(corev1.AddToScheme)
	if err != nil {
		t.Fatalf("NewScheme: %v", err)
	}
	for gvk, want := range map[schema.GroupVersionKind]bool{
		{Version: "v1", Kind: "Namespace"}:                 true,
		{Group: "apps", Version: "v1", Kind: "Deployment"}: false,
	} {
		if got := scheme.Recognizes(gvk); got != want {
			t.Errorf("scheme recognizes %s: %t, want %t", gvk, got, want)
		}
	}

	boom := errors.New("boom")
	_, err = framework.NewScheme(corev1.AddToScheme, func(*runtime.Scheme) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("NewScheme with a failing AddToScheme: error %v, want one wrapping %v", err, boom)
	}
	if want := "building scheme: boom"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}
