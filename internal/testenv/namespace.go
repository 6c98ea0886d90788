package testenv

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// NewNamespace creates a fresh namespace for one test, named generateName plus a server-chosen
// suffix and carrying labels, and returns its name. It fails the test when the namespace cannot be
// created. The namespace is left in place: a suite's control plane is thrown away as a whole.
func NewNamespace(t testing.TB, c client.Client, generateName string, labels map[string]string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: generateName, Labels: labels}}
	if err := c.Create(context.Background(), ns); err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	return ns.Name
}
