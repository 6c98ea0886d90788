package cmd

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// restConfigFromKubeconfig builds a client config from the kubeconfig at path, reading it and the
// files it names (certificate-authority, client-certificate, client-key, tokenFile; relative to the
// kubeconfig's directory, as kubectl does) through the one input reader: a kubeconfig of
// /dev/zero or a certificate path that is a FIFO is refused like any other input, not read until
// memory runs out. The files' contents are put into the config, so nothing is read afterwards.
// The CLI commands use it; long-running ones use restConfigFromKubeconfigFile.
func restConfigFromKubeconfig(flag, path string) (*rest.Config, error) {
	cfg, _, err := loadKubeconfig(flag, path, true)
	return cfg, err
}

// kubeconfigTarget names what a kubeconfig's current context uses, for errors that say whose
// credentials a cluster refused or whose CA its certificate does not match.
type kubeconfigTarget struct {
	// Context, User and Cluster are the names in the kubeconfig ("" when it does not name one).
	Context, User, Cluster string
	// HasCA is true when the cluster entry carries a CA (certificate-authority or its data).
	HasCA bool
}

// describeUser is the user and context of t as an error says them.
func (t kubeconfigTarget) describeUser() string {
	switch {
	case t.User != "" && t.Context != "":
		return fmt.Sprintf("user %q of context %q", t.User, t.Context)
	case t.User != "":
		return fmt.Sprintf("user %q", t.User)
	}
	return "its user"
}

// restConfigAndTarget is restConfigFromKubeconfig with the names of the current context.
func restConfigAndTarget(flag, path string) (*rest.Config, kubeconfigTarget, error) {
	return loadKubeconfig(flag, path, true)
}

// restConfigFromKubeconfigFile reads the kubeconfig at path through the input reader but leaves
// the files it names to client-go, which re-reads a tokenFile (a projected, rotated token) while
// the controller or webhook runs.
func restConfigFromKubeconfigFile(flag, path string) (*rest.Config, error) {
	cfg, _, err := loadKubeconfig(flag, path, false)
	return cfg, err
}

func loadKubeconfig(flag, path string, inline bool) (*rest.Config, kubeconfigTarget, error) {
	var target kubeconfigTarget
	data, err := readInput(path, nil)
	if err != nil {
		return nil, target, fmt.Errorf("%s: %w", flag, err)
	}
	cfg, err := clientcmd.Load(data)
	if err != nil {
		return nil, target, fmt.Errorf("%s %s: not a kubeconfig: %w", flag, path, err)
	}
	if len(cfg.Clusters) == 0 {
		return nil, target, fmt.Errorf("%s %s: not a kubeconfig: it names no cluster", flag, path)
	}
	if ctx, ok := cfg.Contexts[cfg.CurrentContext]; ok {
		target = kubeconfigTarget{Context: cfg.CurrentContext, User: ctx.AuthInfo, Cluster: ctx.Cluster}
		if c, ok := cfg.Clusters[ctx.Cluster]; ok {
			target.HasCA = c.CertificateAuthority != "" || len(c.CertificateAuthorityData) > 0
		}
	}
	if inline {
		if err := inlineFiles(cfg, filepath.Dir(path)); err != nil {
			return nil, target, fmt.Errorf("%s %s: %w", flag, path, err)
		}
	} else {
		// What clientcmd's loader does for a file: relative paths are relative to the kubeconfig.
		for _, c := range cfg.Clusters {
			c.LocationOfOrigin = path
		}
		for _, a := range cfg.AuthInfos {
			a.LocationOfOrigin = path
		}
		if err := clientcmd.ResolveLocalPaths(cfg); err != nil {
			return nil, target, fmt.Errorf("%s %s: %w", flag, path, err)
		}
	}
	rc, err := clientcmd.NewDefaultClientConfig(*cfg, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, target, fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return rc, target, nil
}

// inlineFiles replaces the file references of cfg by their contents, read through readInput.
func inlineFiles(cfg *clientcmdapi.Config, dir string) error {
	for _, name := range slices.Sorted(maps.Keys(cfg.Clusters)) {
		c := cfg.Clusters[name]
		if err := inlineFile(dir, "certificate-authority", "cluster "+name, &c.CertificateAuthority, &c.CertificateAuthorityData); err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.AuthInfos)) {
		a, owner := cfg.AuthInfos[name], "user "+name
		if err := inlineFile(dir, "client-certificate", owner, &a.ClientCertificate, &a.ClientCertificateData); err != nil {
			return err
		}
		if err := inlineFile(dir, "client-key", owner, &a.ClientKey, &a.ClientKeyData); err != nil {
			return err
		}
		if a.Token == "" {
			var token []byte
			if err := inlineFile(dir, "tokenFile", owner, &a.TokenFile, &token); err != nil {
				return err
			}
			// A token file ends in a newline more often than not; the token does not.
			a.Token = string(bytes.TrimRight(token, "\n\r "))
		}
	}
	return nil
}

// inlineFile reads the file a kubeconfig reference names (relative to dir, the kubeconfig's
// directory) into its data field and drops the reference, unless the data is given already (the
// data wins, as in client-go). Errors name the reference (what) and its cluster or user (owner).
func inlineFile(dir, what, owner string, file *string, data *[]byte) error {
	if *file == "" || len(*data) > 0 {
		return nil
	}
	path := *file
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	b, err := readInput(path, nil)
	if err != nil {
		return fmt.Errorf("%s of %s: %w", what, owner, err)
	}
	*data, *file = b, ""
	return nil
}

// cliClient is the one path from a CLI command's kubeconfig flag (plan, pools migrate, swap-check)
// to a client: the kubeconfig and the files it names read through safefile
// (restConfigFromKubeconfig), calico-pilot's user agent, and a scheme of the given types.
func cliClient(flag, path string, addToScheme ...func(*runtime.Scheme) error) (client.Client, error) {
	cfg, err := restConfigFromKubeconfig(flag, path)
	if err != nil {
		return nil, err
	}
	cfg.UserAgent = UserAgent()
	s := runtime.NewScheme()
	for _, add := range addToScheme {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	c, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return c, nil
}

// serverRestConfig is the one path from a long-running command's kubeconfig (controller, admission)
// to a client config: the kubeconfig at path (restConfigFromKubeconfigFile: client-go keeps
// re-reading a rotated token file), or the in-cluster config when path is empty, with
// calico-pilot's user agent.
func serverRestConfig(flag, path string) (*rest.Config, error) {
	var cfg *rest.Config
	var err error
	if path != "" {
		cfg, err = restConfigFromKubeconfigFile(flag, path)
	} else {
		cfg, err = rest.InClusterConfig()
	}
	if err != nil {
		return nil, err
	}
	cfg.UserAgent = UserAgent()
	return cfg, nil
}

// clusterRefusal words an error of the first request to the cluster of kubeconfig path (flag) at
// host: a cluster that does not answer, one that refuses the kubeconfig's credentials (401) or
// their permission (403), and one whose certificate the kubeconfig's CA does not verify are
// different problems with different fixes. Each says nothing was changed.
func clusterRefusal(flag, path, host string, t kubeconfigTarget, err error) error {
	var unknownCA x509.UnknownAuthorityError
	var verify *tls.CertificateVerificationError
	switch {
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("the cluster of %s %s (%s) answered but refused its credentials (%s): 401 Unauthorized; "+
			"the token or client certificate is wrong, expired or revoked: get a current kubeconfig for this cluster; nothing was changed", flag, path, host, t.describeUser())
	case apierrors.IsForbidden(err):
		// The discovery client keeps no message of the server's (it says "unknown"): the request is named here.
		return fmt.Errorf("the cluster of %s %s (%s) answered but its credentials (%s) lack permission to read the server's version (GET /version): 403 Forbidden; "+
			"apply needs cluster-admin rights: use an administrator's kubeconfig; nothing was changed", flag, path, host, t.describeUser())
	case errors.As(err, &unknownCA) && t.HasCA:
		return fmt.Errorf("the cluster of %s %s (%s) answered with a certificate that is not signed by the kubeconfig's CA "+
			"(certificate-authority-data of cluster %q): put the cluster's CA in the kubeconfig (apply offers no --insecure); nothing was changed", flag, path, host, t.Cluster)
	case errors.As(err, &unknownCA):
		return fmt.Errorf("the cluster of %s %s (%s) answered with a certificate that no CA of this machine signs, and cluster %q of the kubeconfig names no CA "+
			"(certificate-authority-data): put the cluster's CA in the kubeconfig (apply offers no --insecure); nothing was changed", flag, path, host, t.Cluster)
	case errors.As(err, &verify):
		return fmt.Errorf("the cluster of %s %s (%s) answered with a certificate that does not verify: %v; "+
			"correct the server address or the CA of cluster %q in the kubeconfig; nothing was changed", flag, path, host, verify.Err, t.Cluster)
	}
	return fmt.Errorf("the cluster of %s %s does not answer (%s): %w; nothing was changed", flag, path, host, err)
}
