package overlayswitch

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Names of the secrets in a shoot's control-plane namespace that hold a kubeconfig for the shoot:
// the internal one (in-cluster kube-apiserver address) is preferred, the external one is the fallback.
const (
	shootAccessSecretInternal = "gardener-internal"
	shootAccessSecretExternal = "gardener"
	shootAccessKubeconfigKey  = "kubeconfig"
)

// ShootRESTConfig reads the shoot's kubeconfig from Secret gardener-internal (falling back to
// gardener) in the control-plane namespace and returns a REST config for it. Kubeconfigs that run
// programs or impersonate (exec, auth-provider, impersonation) are refused.
func ShootRESTConfig(ctx context.Context, seed client.Reader, namespace string) (*rest.Config, error) {
	var secret corev1.Secret
	name := shootAccessSecretInternal
	err := seed.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &secret)
	if apierrors.IsNotFound(err) {
		name = shootAccessSecretExternal
		err = seed.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &secret)
	}
	if err != nil {
		return nil, fmt.Errorf("reading shoot access secret %s/%s (or %s): %w", namespace, shootAccessSecretInternal, shootAccessSecretExternal, err)
	}
	data, ok := secret.Data[shootAccessKubeconfigKey]
	if !ok || len(data) == 0 {
		return nil, fmt.Errorf("shoot access secret %s/%s has no %q key", namespace, name, shootAccessKubeconfigKey)
	}
	cfg, err := clientcmd.Load(data)
	if err != nil {
		return nil, fmt.Errorf("parsing kubeconfig of secret %s/%s: %w", namespace, name, err)
	}
	for user, auth := range cfg.AuthInfos {
		if auth.Exec != nil || auth.AuthProvider != nil || auth.Impersonate != "" || len(auth.ImpersonateGroups) > 0 || auth.ImpersonateUID != "" {
			return nil, fmt.Errorf("kubeconfig of secret %s/%s: user %q uses exec, auth-provider or impersonation, which are not allowed", namespace, name, user)
		}
	}
	restCfg, err := clientcmd.NewDefaultClientConfig(*cfg, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("building client config from secret %s/%s: %w", namespace, name, err)
	}
	return restCfg, nil
}

// shootKind is a kind the controller reads or writes in a shoot, with its scope.
type shootKind struct {
	gvk   schema.GroupVersionKind
	scope meta.RESTScope
}

// shootKinds are the kinds the controller reads and writes in a shoot: nodes for the overlay
// switch's route check and IP pools for the pool sync (cluster-scoped), and the calico-node
// DaemonSet and Typha Deployment (kube-system) whose rollout steps a move between Calico lines.
// The shoot client's REST mapper knows them without asking the shoot's discovery API.
func shootKinds() []shootKind {
	return []shootKind{
		{schema.GroupVersionKind{Version: "v1", Kind: "Node"}, meta.RESTScopeRoot},
		{schema.GroupVersionKind{Group: "crd.projectcalico.org", Version: "v1", Kind: "IPPool"}, meta.RESTScopeRoot},
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DaemonSet"}, meta.RESTScopeNamespace},
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, meta.RESTScopeNamespace},
	}
}

// shootRESTMapper maps shootKinds (and their lists) without discovery. A shoot client is built for
// each reconcile that needs the shoot; a discovering mapper would send the shoot's API server one
// or two discovery requests (and decode the compressed answers) every time, for mappings that never
// change. A kind outside shootKinds fails with a no-match error.
func shootRESTMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	for _, k := range shootKinds() {
		m.Add(k.gvk, k.scope)
	}
	return m
}

// NewShootClient returns a client for the shoot of the control-plane namespace, built from its access
// secret, with the given scheme and user agent. It can only handle shootKinds.
func NewShootClient(ctx context.Context, seed client.Reader, namespace string, scheme *runtime.Scheme, userAgent string) (client.Client, error) {
	cfg, err := ShootRESTConfig(ctx, seed, namespace)
	if err != nil {
		return nil, err
	}
	if scheme == nil {
		return nil, errors.New("building shoot client: no scheme")
	}
	cfg.UserAgent = userAgent
	c, err := client.New(cfg, client.Options{Scheme: scheme, Mapper: shootRESTMapper()})
	if err != nil {
		return nil, fmt.Errorf("building shoot client for %s: %w", namespace, err)
	}
	return c, nil
}
