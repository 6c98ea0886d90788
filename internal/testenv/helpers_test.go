package testenv_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// TestCRDDirectories checks that every named set is an existing directory of CRD manifests below
// the repository root, returned in the order asked for.
func TestCRDDirectories(t *testing.T) {
	root := testenv.RepoRoot()
	got := testenv.CRDDirectories(testenv.MonitoringCRDs, testenv.GardenerCRDs, testenv.CalicoCRDs)
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
	if got := testenv.CRDDirectories(); len(got) != 0 {
		t.Errorf("CRDDirectories() = %v, want none", got)
	}
}

func TestNewScheme(t *testing.T) {
	scheme, err := testenv.NewScheme(corev1.AddToScheme)
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
	_, err = testenv.NewScheme(corev1.AddToScheme, func(*runtime.Scheme) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("NewScheme with a failing AddToScheme: error %v, want one wrapping %v", err, boom)
	}
	if want := "building scheme: boom"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

// TestNewClientAndNamespace starts a control plane with the Gardener CRDs and checks that a client
// from NewClient reaches it with the given types, and that NewNamespace creates distinct labelled
// namespaces with the asked-for prefix.
func TestNewClientAndNamespace(t *testing.T) {
	cp := startControlPlane(t, testenv.Options{CRDDirectoryPaths: testenv.CRDDirectories(testenv.GardenerCRDs)})
	c, err := cp.NewClient(corev1.AddToScheme)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	labels := map[string]string{"gardener.cloud/role": "shoot"}
	first := testenv.NewNamespace(t, c, "shoot--test--", labels)
	second := testenv.NewNamespace(t, c, "shoot--test--", nil)
	if first == second {
		t.Fatalf("two namespaces got the same name %q", first)
	}
	for name, wantLabels := range map[string]map[string]string{first: labels, second: nil} {
		if !strings.HasPrefix(name, "shoot--test--") || len(name) == len("shoot--test--") {
			t.Errorf("namespace %q: want the prefix shoot--test-- and a generated suffix", name)
		}
		var ns corev1.Namespace
		if err := c.Get(context.Background(), client.ObjectKey{Name: name}, &ns); err != nil {
			t.Fatalf("reading namespace %s back: %v", name, err)
		}
		got := maps.Clone(ns.Labels)
		delete(got, "kubernetes.io/metadata.name") // set by the API server on every namespace
		if len(got) == 0 {
			got = nil
		}
		if diff := cmp.Diff(wantLabels, got); diff != "" {
			t.Errorf("labels of %s (-want +got):\n%s", name, diff)
		}
	}
	// The client's scheme holds only what was asked for.
	if err := c.List(context.Background(), &appsv1.DeploymentList{}); !runtime.IsNotRegisteredError(err) {
		t.Errorf("listing Deployments with a core/v1-only client: error %v, want a not-registered error", err)
	}
}
