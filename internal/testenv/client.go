package testenv

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
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

// AdminKubeconfig returns a kubeconfig for a new user name of the control plane in the group
// system:masters (as a shoot access secret, a kubeconfig file for a binary, a garden client).
func (c *ControlPlane) AdminKubeconfig(name string) ([]byte, error) {
	user, err := c.Env.ControlPlane.AddUser(envtest.User{Name: name, Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, fmt.Errorf("adding user %s: %w", name, err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig of user %s: %w", name, err)
	}
	return kubeconfig, nil
}
