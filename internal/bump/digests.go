package bump

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// DigestRequest names the images whose digests ResolveDigests looks up:
// <Registry>/<Namespace>/<image>:<Version> for each image.
type DigestRequest struct {
	Registry  string
	Namespace string
	Version   string
	Images    []string
	// Insecure talks plain HTTP to the registry (loopback registries always use HTTP).
	Insecure bool
}

// ImageDigest is one resolved image.
type ImageDigest struct {
	Image     string
	Reference string
	Version   string
	Digest    string
}

// ResolveDigests asks the registry for the manifest digest of every requested image, in the
// order given. The first image that cannot be resolved stops the lookup with an error naming it.
func ResolveDigests(ctx context.Context, req DigestRequest, opts ...remote.Option) ([]ImageDigest, error) {
	if req.Version == "" {
		return nil, fmt.Errorf("no version given")
	}
	var nameOpts []name.Option
	if req.Insecure {
		nameOpts = append(nameOpts, name.Insecure)
	}
	opts = append([]remote.Option{remote.WithContext(ctx)}, opts...)
	out := make([]ImageDigest, 0, len(req.Images))
	for _, img := range req.Images {
		repo := strings.Trim(req.Registry, "/")
		if req.Namespace != "" {
			repo += "/" + strings.Trim(req.Namespace, "/")
		}
		refText := repo + "/" + img + ":" + req.Version
		ref, err := name.NewTag(refText, nameOpts...)
		if err != nil {
			return nil, fmt.Errorf("image reference %q: %w", refText, err)
		}
		desc, err := remote.Head(ref, opts...)
		if err != nil || !isImageManifest(desc.MediaType) {
			// Some registries do not answer HEAD for manifests; GET is authoritative.
			full, getErr := remote.Get(ref, opts...)
			if getErr != nil {
				return nil, fmt.Errorf("resolving %s: %w", refText, getErr)
			}
			desc = &full.Descriptor
		}
		if !isImageManifest(desc.MediaType) {
			// A proxy's HTML error page answered with 200 has a digest too, the same for
			// every image: pinning it would be a supply-chain fault.
			return nil, fmt.Errorf("resolving %s: the registry answered with media type %q, not an image manifest or index (accepted: %s)",
				refText, desc.MediaType, strings.Join(manifestMediaTypes, ", "))
		}
		out = append(out, ImageDigest{Image: img, Reference: refText, Version: req.Version, Digest: desc.Digest.String()})
	}
	return out, nil
}

// manifestMediaTypes are the media types of the image manifests and indexes a tag can point to
// (OCI and Docker schema 2). Docker schema 1 is not accepted: its digest is not the content
// digest runtimes pull by.
var manifestMediaTypes = []string{
	string(types.OCIManifestSchema1),
	string(types.OCIImageIndex),
	string(types.DockerManifestSchema2),
	string(types.DockerManifestList),
}

func isImageManifest(mt types.MediaType) bool {
	return slices.Contains(manifestMediaTypes, string(mt))
}

// WriteDigests prints digests as "name: version@sha256:..." lines.
func WriteDigests(w io.Writer, digests []ImageDigest) error {
	var b strings.Builder
	for _, d := range digests {
		fmt.Fprintf(&b, "%s: %s@%s\n", d.Image, d.Version, d.Digest)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("writing digests: %w", err)
	}
	return nil
}
