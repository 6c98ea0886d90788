package manifest_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/manifest"
)

// TestStatusStrippingShapes covers both ways a status goes: an empty one (the common tail) and
// a non-empty unset one (a Service's loadBalancer object).
func TestStatusStrippingShapes(t *testing.T) {
	tests := []struct {
		name string
		obj  client.Object
		want string
	}{
		{
			name: "empty status",
			obj:  &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: metav1.ObjectMeta{Name: "d"}},
			want: `{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"d"},"spec":{"selector":null,"template":{"metadata":{},"spec":{"containers":null}},"strategy":{}}}`,
		},
		{
			name: "status with an empty member",
			obj:  &corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: metav1.ObjectMeta{Name: "s"}},
			want: `{"kind":"Service","apiVersion":"v1","metadata":{"name":"s"},"spec":{}}`,
		},
		{
			name: "no status field",
			obj:  &corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, ObjectMeta: metav1.ObjectMeta{Name: "a"}},
			want: `{"kind":"ServiceAccount","apiVersion":"v1","metadata":{"name":"a"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := manifest.Encode(tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(d.JSON)); diff != "" {
				t.Errorf("document (-want +got):\n%s", diff)
			}
		})
	}
}
