package bump

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// push writes an image or an index to tag (write) and returns its digest.
func push(t *testing.T, tag string, write func(name.Reference) error, digest func() (v1.Hash, error)) v1.Hash {
	t.Helper()
	ref, err := name.NewTag(tag)
	if err != nil {
		t.Fatal(err)
	}
	if err := write(ref); err != nil {
		t.Fatal(err)
	}
	d, err := digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestResolveDigests pushes a single image and a multi-arch index (what Calico publishes) to an
// in-process registry: the digest printed is the one the tag points to, as `gcrane digest` does.
func TestResolveDigests(t *testing.T) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")

	img, err := random.Image(128, 1)
	if err != nil {
		t.Fatal(err)
	}
	imgDigest := push(t, host+"/calico/cni:v3.29.0", func(ref name.Reference) error { return remote.Write(ref, img) }, img.Digest)
	idx, err := random.Index(128, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	idxDigest := push(t, host+"/calico/node:v3.29.0", func(ref name.Reference) error { return remote.WriteIndex(ref, idx) }, idx.Digest)

	got, err := ResolveDigests(context.Background(), DigestRequest{Registry: host, Namespace: "calico", Version: "v3.29.0", Images: []string{"node", "cni"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []ImageDigest{
		{Image: "node", Reference: host + "/calico/node:v3.29.0", Version: "v3.29.0", Digest: idxDigest.String()},
		{Image: "cni", Reference: host + "/calico/cni:v3.29.0", Version: "v3.29.0", Digest: imgDigest.String()},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("digests mismatch (-want +got):\n%s", diff)
	}
	var out strings.Builder
	if err := WriteDigests(&out, got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("node: v3.29.0@"+idxDigest.String()+"\ncni: v3.29.0@"+imgDigest.String()+"\n", out.String()); diff != "" {
		t.Errorf("printed digests mismatch (-want +got):\n%s", diff)
	}

	_, err = ResolveDigests(context.Background(), DigestRequest{Registry: host, Namespace: "calico", Version: "v3.29.0", Images: []string{"cni", "kube-controllers"}})
	if err == nil || !strings.HasPrefix(err.Error(), "resolving "+host+"/calico/kube-controllers:v3.29.0: ") {
		t.Errorf("missing image error = %v, want it to name %s/calico/kube-controllers:v3.29.0", err, host)
	}
}

// TestResolveDigestsRefusesNonManifest: a server that answers every request with an HTML page
// and 200 (a captive portal, a misconfigured proxy) used to give the same "digest" for every
// image, exit 0.
func TestResolveDigestsRefusesNonManifest(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, "<html><body>Welcome to the proxy</body></html>") // test server: a failed write shows up as a client error
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	_, err := ResolveDigests(context.Background(), DigestRequest{Registry: host, Namespace: "calico", Version: "v3.29.0", Images: []string{"cni"}})
	want := "resolving " + host + `/calico/cni:v3.29.0: the registry answered with media type "text/html; charset=utf-8", not an image manifest or index (accepted: application/vnd.oci.image.manifest.v1+json, application/vnd.oci.image.index.v1+json, application/vnd.docker.distribution.manifest.v2+json, application/vnd.docker.distribution.manifest.list.v2+json)`
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
}
