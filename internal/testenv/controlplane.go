package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Options configures a control plane.
type Options struct {
	// CRDDirectoryPaths are directories (or files) of CRD manifests installed before the
	// control plane is handed out; installation waits until every CRD is served.
	CRDDirectoryPaths []string
	// CRDs are extra CRD objects installed the same way.
	CRDs []*apiextensionsv1.CustomResourceDefinition
	// WebhookInstallOptions registers webhooks served by the test process.
	WebhookInstallOptions envtest.WebhookInstallOptions
	// APIServerFlags are extra kube-apiserver flags, e.g. {"runtime-config": "api/all=true"}.
	APIServerFlags map[string]string
}

// ControlPlane is a running kube-apiserver + etcd pair.
type ControlPlane struct {
	// Config reaches the API server as a cluster admin.
	Config *rest.Config
	// Env is the underlying envtest environment (webhook install options, kubeconfig helpers).
	Env *envtest.Environment
}

// RepoRoot returns the repository root, found from this source file's location.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// AssetsDir returns where the control plane binaries are: $KUBEBUILDER_ASSETS, else bin/tools
// of the repository (where `make tools` builds them).
func AssetsDir() string {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir
	}
	return filepath.Join(RepoRoot(), "bin", "tools")
}

// ErrNoBinaries is returned when kube-apiserver or etcd has not been built.
var ErrNoBinaries = errors.New("control plane binaries missing: run 'make tools' (or 'make test', which builds them) first")

// Start starts a control plane and installs the CRDs of opts.
func Start(opts Options) (*ControlPlane, error) {
	dir := AssetsDir()
	for _, name := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return nil, fmt.Errorf("%w (looked for %s)", ErrNoBinaries, filepath.Join(dir, name))
		}
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory: dir,
		CRDDirectoryPaths:     opts.CRDDirectoryPaths,
		CRDs:                  opts.CRDs,
		ErrorIfCRDPathMissing: true,
		WebhookInstallOptions: opts.WebhookInstallOptions,
	}
	apiServer := env.ControlPlane.GetAPIServer()
	for k, v := range opts.APIServerFlags {
		apiServer.Configure().Set(k, v)
	}
	cfg, err := env.Start()
	if err != nil {
		_ = env.Stop()
		return nil, fmt.Errorf("starting control plane from %s: %w", dir, err)
	}
	return &ControlPlane{Config: cfg, Env: env}, nil
}

// Stop stops the control plane and removes its data.
func (c *ControlPlane) Stop() error {
	if c == nil || c.Env == nil {
		return nil
	}
	return c.Env.Stop()
}
