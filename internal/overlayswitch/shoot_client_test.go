package overlayswitch

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
)

// The shoot client maps the kinds the controller uses without the shoot's discovery API: against
// an address where nothing listens, a discovering mapper fails, this one answers.
func TestShootRESTMapperNeedsNoDiscovery(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := calicov1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(&rest.Config{Host: "https://127.0.0.1:1"}, client.Options{Scheme: scheme, Mapper: shootRESTMapper()})
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range []client.Object{&corev1.Node{}, &calicov1.IPPool{}} {
		namespaced, err := c.IsObjectNamespaced(obj)
		if err != nil || namespaced {
			t.Errorf("%T: namespaced %t, %v; want cluster-scoped without discovery", obj, namespaced, err)
		}
	}
	for _, obj := range []client.Object{&appsv1.DaemonSet{}, &appsv1.Deployment{}} {
		namespaced, err := c.IsObjectNamespaced(obj)
		if err != nil || !namespaced {
			t.Errorf("%T: namespaced %t, %v; want namespaced without discovery", obj, namespaced, err)
		}
	}
	if _, err := c.IsObjectNamespaced(&corev1.Pod{}); err == nil {
		t.Error("a kind outside shootKinds was mapped")
	}
}
