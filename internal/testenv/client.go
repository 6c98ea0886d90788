package testenv

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// NewScheme returns a new scheme holding the types that the given AddToScheme functions register.
func NewScheme(addToScheme ...func(*runtime.Scheme) error) (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	for _, add := range addToScheme {
		if err := add(scheme); err != nil {
			return nil, fmt.Errorf("building scheme: %w", err)
		}
	}
	return scheme, nil
}

// NewClient returns an uncached cluster-admin client of the control plane whose scheme holds the
// types that the given AddToScheme functions register.
func (c *ControlPlane) NewClient(addToScheme ...func(*runtime.Scheme) error) (client.Client, error) {
	scheme, err := NewScheme(addToScheme...)
	if err != nil {
		return nil, err
	}
	cl, err := client.New(c.Config, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("building client: %w", err)
	}
	return cl, nil
}
