package apply

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/calico-pilot/calico-pilot/internal/cmd"
	"github.com/calico-pilot/calico-pilot/internal/typhatls"
)

// TestApplySaysWhyTheClusterRefusesIt: a cluster that does not answer, one that refuses the
// kubeconfig's token (401), one whose certificate the kubeconfig's CA does not sign, and one where
// the credentials lack permission (403) are told apart, each naming the kubeconfig and the server;
// exit 2, nothing changed.
func TestApplySaysWhyTheClusterRefusesIt(t *testing.T) {
	// Its own control plane: it deletes the bootstrap ClusterRoleBindings of discovery, which the
	// API server creates only when it starts.
	cl := newOwnCluster(t)
	ctx := context.Background()
	admin, err := clientcmd.LoadFromFile(cl.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	current := admin.Contexts[admin.CurrentContext]
	host := admin.Clusters[current.Cluster].Server

	// A user the API server knows (a client certificate it signed) whose group may read nothing:
	// without the default bindings of discovery, even the server's version is forbidden to it.
	nobody, err := cl.cp.Env.ControlPlane.AddUser(envtest.User{Name: "nobody"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	nobodyKubeconfig, err := nobody.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"system:public-info-viewer", "system:discovery", "system:basic-user"} {
		if err := cl.c.Delete(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metaName(name)}); err != nil {
			t.Fatalf("deleting ClusterRoleBinding %s: %v", name, err)
		}
	}

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nowhere := "https://" + closed.Addr().String()
	_ = closed.Close()

	dir := t.TempDir()
	write := func(name string, edit func(c *clientcmdapi.Config)) string {
		c := admin.DeepCopy()
		edit(c)
		p := filepath.Join(dir, name)
		if err := clientcmd.WriteToFile(*c, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	wrongToken := write("wrong-token", func(c *clientcmdapi.Config) {
		u := c.AuthInfos[current.AuthInfo]
		u.ClientCertificateData, u.ClientKeyData, u.Token = nil, nil, "not-a-token-of-this-cluster"
	})
	wrongCA := write("wrong-ca", func(c *clientcmdapi.Config) {
		c.Clusters[current.Cluster].CertificateAuthorityData = throwawayCA(t)
	})
	unreachable := write("unreachable", func(c *clientcmdapi.Config) { c.Clusters[current.Cluster].Server = nowhere })
	forbidden := filepath.Join(dir, "forbidden")
	if err := os.WriteFile(forbidden, nobodyKubeconfig, 0o600); err != nil {
		t.Fatal(err)
	}
	nobodyConfig, err := clientcmd.Load(nobodyKubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	nobodyContext := nobodyConfig.CurrentContext
	nobodyUser := nobodyConfig.Contexts[nobodyContext].AuthInfo

	for _, tc := range []struct {
		name, kubeconfig, want string
	}{
		{"401", wrongToken, "error: the cluster of --kubeconfig " + wrongToken + " (" + host + `) answered but refused its credentials (user "` + current.AuthInfo + `" of context "` + admin.CurrentContext + `"): 401 Unauthorized; ` +
			"the token or client certificate is wrong, expired or revoked: get a current kubeconfig for this cluster; nothing was changed\n"},
		{"wrong CA", wrongCA, "error: the cluster of --kubeconfig " + wrongCA + " (" + host + `) answered with a certificate that is not signed by the kubeconfig's CA (certificate-authority-data of cluster "` + current.Cluster + `"): ` +
			"put the cluster's CA in the kubeconfig (apply offers no --insecure); nothing was changed\n"},
		{"403", forbidden, "error: the cluster of --kubeconfig " + forbidden + " (" + host + `) answered but its credentials (user "` + nobodyUser + `" of context "` + nobodyContext + `") lack permission to read the server's version (GET /version): 403 Forbidden; ` +
			"apply needs cluster-admin rights: use an administrator's kubeconfig; nothing was changed\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := applyWith(t, tc.kubeconfig)
			if code != 2 || stderr != tc.want {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2, stderr:\n%s", code, stderr, tc.want)
			}
		})
	}
	t.Run("nobody listens", func(t *testing.T) {
		code, stderr := applyWith(t, unreachable)
		want := "error: the cluster of --kubeconfig " + unreachable + " does not answer (" + nowhere + "): "
		if code != 2 || !strings.HasPrefix(stderr, want) || !strings.HasSuffix(stderr, "connect: connection refused; nothing was changed\n") {
			t.Errorf("exit %d, stderr:\n%s\nwant exit 2, stderr starting with:\n%s\nand ending in connect: connection refused; nothing was changed", code, stderr, want)
		}
	})
}

// applyWith runs apply with kubeconfig and a valid cluster file.
func applyWith(t *testing.T, kubeconfig string) (int, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(file, []byte(minimalFile), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := cmd.Execute(context.Background(), []string{"apply", "--kubeconfig", kubeconfig, "-f", file}, strings.NewReader(""), &out, &errOut)
	return code, errOut.String()
}

// throwawayCA is the PEM of a self-signed CA nobody signed the API server's certificate with.
func throwawayCA(t *testing.T) []byte {
	t.Helper()
	ca, err := typhatls.NewCA("throwaway-ca", time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return ca.CertPEM
}
