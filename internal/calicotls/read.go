package calicotls

import (
	"context"
	"encoding/base64"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Read gathers what Plan decides on from the cluster: the operator's CA, calico-pilot's CA Secret,
// each key pair's Secret, each bundle's ConfigMap and the APIService's caBundle (when the table has
// it). A missing object, or an API the cluster does not serve, is absent from the Input; any other
// error is returned. The rest of the Input (PreviousCAs, RotateCA, validities) is the caller's.
func Read(ctx context.Context, c client.Reader, t Table) (Input, error) {
	in := Input{Table: t, Secrets: map[string]*corev1.Secret{}, ConfigMaps: map[string]*corev1.ConfigMap{}}
	op, err := getSecret(ctx, c, OperatorNamespace, OperatorCASecret)
	if err != nil {
		return Input{}, err
	}
	if op != nil {
		in.OperatorCA = KeyPair{CertPEM: op.Data[corev1.TLSCertKey], KeyPEM: op.Data[corev1.TLSPrivateKeyKey]}
	}
	if in.CASecret, err = getSecret(ctx, c, t.Namespace, CASecret); err != nil {
		return Input{}, err
	}
	for _, p := range t.Pairs {
		s, err := getSecret(ctx, c, t.Namespace, p.Secret)
		if err != nil {
			return Input{}, err
		}
		if s != nil {
			in.Secrets[p.Secret] = s
		}
	}
	for _, b := range t.Bundles {
		if b.APIService {
			if in.APIServiceFound, in.APIServiceCABundle, err = readAPIService(ctx, c); err != nil {
				return Input{}, err
			}
			continue
		}
		cm := &corev1.ConfigMap{}
		key := client.ObjectKey{Namespace: t.Namespace, Name: b.Name}
		switch err := c.Get(ctx, key, cm); {
		case err == nil:
			in.ConfigMaps[b.Name] = cm
		case !apierrors.IsNotFound(err):
			return Input{}, fmt.Errorf("reading ConfigMap %s: %w", key, err)
		}
	}
	return in, nil
}

func getSecret(ctx context.Context, c client.Reader, ns, name string) (*corev1.Secret, error) {
	s := &corev1.Secret{}
	key := client.ObjectKey{Namespace: ns, Name: name}
	if err := c.Get(ctx, key, s); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading Secret %s: %w", key, err)
	}
	return s, nil
}

// readAPIService reads the caBundle of APIService v3.projectcalico.org (unstructured: calico-pilot
// has no typed client of the aggregator's API).
func readAPIService(ctx context.Context, c client.Reader) (bool, []byte, error) {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("apiregistration.k8s.io/v1")
	u.SetKind("APIService")
	if err := c.Get(ctx, client.ObjectKey{Name: APIServiceName}, u); err != nil {
		if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			return false, nil, nil
		}
		return false, nil, fmt.Errorf("reading APIService %s: %w", APIServiceName, err)
	}
	enc, _, err := unstructured.NestedString(u.Object, "spec", "caBundle")
	if err != nil {
		return false, nil, fmt.Errorf("reading APIService %s: spec.caBundle: %w", APIServiceName, err)
	}
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return false, nil, fmt.Errorf("reading APIService %s: spec.caBundle is not base64: %w", APIServiceName, err)
	}
	return true, b, nil
}
