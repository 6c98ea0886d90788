package managedresource

import (
	"context"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// SecretCreator creates a Secret without reading the created object back. The API server answers
// a create with the whole object; for a content secret that is the manifest again (a few hundred
// kilobytes), which the store never looks at. Decoding it was most of what a controller allocated
// per reconcile (and a third of its CPU), and a thousand shoots reconciled at once turned that
// garbage into resident memory. Apply uses a SecretCreator when its client is one.
type SecretCreator interface {
	// CreateSecretDiscardingResponse creates s; errors are the API server's (an AlreadyExists
	// is recognisable with apierrors.IsAlreadyExists). s is not updated.
	CreateSecretDiscardingResponse(ctx context.Context, s *corev1.Secret) error
}

// leanClient is a client.Client that also is a SecretCreator.
type leanClient struct {
	client.Client
	core rest.Interface
}

// WithLeanSecretCreates returns c with a SecretCreator sending through a core/v1 REST client built
// from cfg (the config c was built from: same server, credentials, transport wrappers and rate
// limiter).
func WithLeanSecretCreates(c client.Client, cfg *rest.Config) (client.Client, error) {
	rc := rest.CopyConfig(cfg)
	rc.GroupVersion = &corev1.SchemeGroupVersion
	rc.APIPath = "/api"
	// The operator's content types (clientConnection.contentType, acceptContentTypes) when set;
	// otherwise protobuf both ways, as controller-runtime sends built-in kinds: the API server
	// decodes protobuf faster than the same data as base64 in JSON.
	if rc.ContentType == "" {
		rc.ContentType = runtime.ContentTypeProtobuf
	}
	if rc.AcceptContentTypes == "" {
		rc.AcceptContentTypes = runtime.ContentTypeProtobuf
	}
	rc.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	core, err := rest.RESTClientFor(rc)
	if err != nil {
		return nil, fmt.Errorf("building the secret client: %w", err)
	}
	return &leanClient{Client: c, core: core}, nil
}

// CreateSecretDiscardingResponse implements SecretCreator.
func (l *leanClient) CreateSecretDiscardingResponse(ctx context.Context, s *corev1.Secret) error {
	obj := *s // shallow: only read by the encoder
	obj.APIVersion, obj.Kind = "v1", "Secret"
	// Stream returns the API server's Status as an error for any answer but 2xx; a success's
	// body is read and dropped without being kept or decoded. identity: the API server would
	// otherwise gzip the answer (it is larger than its compression threshold) only for this
	// side to inflate it for nothing.
	resp, err := l.core.Post().Namespace(s.Namespace).Resource("secrets").
		SetHeader("Accept-Encoding", "identity").Body(&obj).Stream(ctx)
	if err != nil {
		return err
	}
	defer resp.Close()
	_, err = io.Copy(io.Discard, resp)
	return err
}
