package testenv_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// startControlPlane starts a control plane with opts, stopped when the test ends.
func startControlPlane(t *testing.T, opts testenv.Options) *testenv.ControlPlane {
	t.Helper()
	cp, err := testenv.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Errorf("stopping control plane: %v", err)
		}
	})
	return cp
}

// TestControlPlaneServesCoreAPI proves the kube-apiserver + etcd built by hack/tools start and serve
// reads and writes: it creates a namespace and reads it back.
func TestControlPlaneServesCoreAPI(t *testing.T) {
	cp := startControlPlane(t, testenv.Options{})
	cs, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "smoke"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	got, err := cs.CoreV1().Namespaces().Get(ctx, "smoke", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading namespace back: %v", err)
	}
	if got.Name != "smoke" || got.UID == "" {
		t.Fatalf("namespace read back as %q with uid %q, want name smoke and a server-assigned uid", got.Name, got.UID)
	}
	v, err := cs.Discovery().ServerVersion()
	if err != nil {
		t.Fatalf("server version: %v", err)
	}
	if v.Major != "1" || v.Minor != "37" {
		t.Errorf("server version %s.%s, want 1.37 (built from k8s.io/kubernetes v1.37.2)", v.Major, v.Minor)
	}
}
