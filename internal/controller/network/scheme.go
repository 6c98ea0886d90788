package network

import (
	"fmt"

	monitoringv1alpha1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1alpha1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
)

// NewScheme returns a scheme with every type the controller reads or writes in the seed and the
// shoot: Kubernetes' built-in types, Gardener's extension and resources types, Calico's provider
// types, Calico's crd.projectcalico.org types (shoot IP pools) and the ScrapeConfig of the seed's Prometheus operator.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		return nil, err
	}
	return s, nil
}

// AddToScheme adds the types of NewScheme to s (swap-check's client reads the seed with them).
func AddToScheme(s *runtime.Scheme) error {
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme,
		extensionsv1alpha1.AddToScheme,
		resourcesv1alpha1.AddToScheme,
		calicov1alpha1.AddToScheme,
		calicov1.AddToScheme,
		monitoringv1alpha1.AddToScheme,
	} {
		if err := add(s); err != nil {
			return fmt.Errorf("building scheme: %w", err)
		}
	}
	return nil
}
