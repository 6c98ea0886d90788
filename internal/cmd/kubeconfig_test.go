package cmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// inlineFiles reads every file reference (relative to the kubeconfig's directory, or absolute) into
// its data field and drops the reference; given data wins over a reference; a token file loses its
// trailing newline.
func TestInlineFiles(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"ca.crt": "CA", "client.crt": "CERT", "client.key": "KEY", "token": "TOKEN \r\n"} {
		writeFile(t, filepath.Join(dir, name), content)
	}
	cfg := &clientcmdapi.Config{
		Clusters: map[string]*clientcmdapi.Cluster{
			"relative": {CertificateAuthority: "ca.crt"},
			"absolute": {CertificateAuthority: filepath.Join(dir, "ca.crt")},
			"given":    {CertificateAuthority: "missing.crt", CertificateAuthorityData: []byte("GIVEN")},
		},
		AuthInfos: map[string]*clientcmdapi.AuthInfo{
			"files": {ClientCertificate: "client.crt", ClientKey: "client.key", TokenFile: "token"},
			"given": {TokenFile: "missing", Token: "GIVEN"},
			"none":  {},
		},
	}
	if err := inlineFiles(cfg, dir); err != nil {
		t.Fatal(err)
	}
	want := &clientcmdapi.Config{
		Clusters: map[string]*clientcmdapi.Cluster{
			"relative": {CertificateAuthorityData: []byte("CA")},
			"absolute": {CertificateAuthorityData: []byte("CA")},
			"given":    {CertificateAuthority: "missing.crt", CertificateAuthorityData: []byte("GIVEN")},
		},
		AuthInfos: map[string]*clientcmdapi.AuthInfo{
			"files": {ClientCertificateData: []byte("CERT"), ClientKeyData: []byte("KEY"), Token: "TOKEN"},
			"given": {TokenFile: "missing", Token: "GIVEN"},
			"none":  {},
		},
	}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
}

// An unreadable reference is an error naming the field and its owner.
func TestInlineFilesErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		cfg  *clientcmdapi.Config
		want string
	}{
		{"certificate-authority", &clientcmdapi.Config{Clusters: map[string]*clientcmdapi.Cluster{"c": {CertificateAuthority: "ca.crt"}}}, "certificate-authority of cluster c: "},
		{"client-certificate", &clientcmdapi.Config{AuthInfos: map[string]*clientcmdapi.AuthInfo{"u": {ClientCertificate: "client.crt"}}}, "client-certificate of user u: "},
		{"client-key", &clientcmdapi.Config{AuthInfos: map[string]*clientcmdapi.AuthInfo{"u": {ClientKey: "client.key"}}}, "client-key of user u: "},
		{"tokenFile", &clientcmdapi.Config{AuthInfos: map[string]*clientcmdapi.AuthInfo{"u": {TokenFile: "token"}}}, "tokenFile of user u: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := inlineFiles(tc.cfg, dir)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %v; want one starting with %q", err, tc.want)
			}
		})
	}
}
