package gardenadmission

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/certs"
)

// Names of what is registered, the reference's (so a swap replaces the reference's registration).
const (
	WebhookConfigurationName = "gardener-extension-admission-calico"
	WebhookName              = "validator.admission-calico.extensions.gardener.cloud"
	CertSecretName           = "gardener-extension-admission-calico-webhook-certs"
	// CalicoShootLabel is set on calico Shoots by gardener-apiserver; the webhook only sees those.
	CalicoShootLabel = "networking.extensions.gardener.cloud/calico"
	// ModeURL registers the webhook by URL.
	ModeURL = "url"
	// AnnotationForeignCAUntil, on the webhook configuration, says until when the CA certificates
	// that another server registered (the reference extension's, during a swap) stay in the bundle.
	AnnotationForeignCAUntil = "calico-pilot.gardener.cloud/foreign-ca-until"
)

// Swap timing: CAs another server registered stay trusted for ForeignCAGrace after calico-pilot first
// saw them, and for FastSyncWindow after start-up the registration is checked every FastSyncPeriod
// while they are there, so a reference leader rewriting the bundle during the rollout drops
// calico-pilot's CA for seconds at most.
const (
	ForeignCAGrace = 24 * time.Hour
	FastSyncWindow = 15 * time.Minute
	FastSyncPeriod = 10 * time.Second
)

// Options configure the registration.
type Options struct {
	// URL is host[:port] of the admission server as the target API server reaches it.
	URL string
	// Path the server serves the webhook at.
	Path string
	// Namespace in the source cluster holding the certificate Secret (--webhook-config-namespace).
	Namespace string
	// OwnerNamespace in the target cluster owns the webhook configuration, so it is garbage-collected
	// with the Extension (--webhook-config-owner-namespace); empty means no owner.
	OwnerNamespace string
	// CertDir receives tls.crt and tls.key for the webhook server.
	CertDir string
	// SyncPeriod between certificate and registration syncs.
	SyncPeriod time.Duration
	// CAValidity of the CA and serving certificate; zero means 30 days.
	CAValidity time.Duration
	// Log for sync failures.
	Log logr.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Validate checks the options.
func (o Options) Validate() error {
	var errs []error
	if o.URL == "" {
		errs = append(errs, errors.New("--webhook-config-url: required in url mode (host[:port] the API server dials)"))
	}
	if o.Namespace == "" {
		errs = append(errs, errors.New("--webhook-config-namespace: required (namespace of the certificate secret in the source cluster)"))
	}
	if o.SyncPeriod <= 0 {
		errs = append(errs, fmt.Errorf("--webhook-config-sync-period %s: must be positive", o.SyncPeriod))
	}
	if o.CAValidity < 0 {
		errs = append(errs, fmt.Errorf("--webhook-config-ca-validity %s: must not be negative", o.CAValidity))
	}
	return errors.Join(errs...)
}

// Host is the host part of the URL, for the serving certificate.
func (o Options) Host() string {
	if h, _, err := net.SplitHostPort(o.URL); err == nil {
		return h
	}
	return o.URL
}

// Registrar keeps certificates, cert files and the webhook configuration current.
type Registrar struct {
	source, target client.Client
	certs          *certs.Manager
	opts           Options
	started        time.Time
	// foreign is whether the last registration kept CAs another server registered.
	foreign bool
}

// NewRegistrar returns a registrar keeping its certificate Secret in source and registering the webhook
// in target.
func NewRegistrar(source, target client.Client, opts Options) (*Registrar, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	m, err := certs.NewManager(source, certs.Config{Namespace: opts.Namespace, Name: CertSecretName, Hosts: []string{opts.Host()}, Validity: opts.CAValidity})
	if err != nil {
		return nil, err
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Registrar{source: source, target: target, certs: m, opts: opts, started: opts.Now()}, nil
}

// Sync ensures the certificates, registers the webhook with the current CA bundle and writes the serving
// pair into the cert dir when it changed.
func (r *Registrar) Sync(ctx context.Context) error {
	b, err := r.certs.Ensure(ctx)
	if err != nil {
		return err
	}
	// The bundle (new and old CA) is registered before the server switches to a certificate of a new CA,
	// so the API server trusts the new certificate by the time it is served.
	if err := r.register(ctx, b.CABundle); err != nil {
		return err
	}
	if err := writeIfChanged(r.opts.CertDir, "tls.crt", b.CertPEM); err != nil {
		return err
	}
	return writeIfChanged(r.opts.CertDir, "tls.key", b.KeyPEM)
}

// Run syncs every SyncPeriod until ctx ends; a failed sync is logged and retried at the next tick.
// While the registration holds another server's CA (a swap from the reference extension) and the
// process started less than FastSyncWindow ago, it syncs every FastSyncPeriod instead.
func (r *Registrar) Run(ctx context.Context) error {
	for {
		period := r.opts.SyncPeriod
		if r.foreign && r.opts.Now().Sub(r.started) < FastSyncWindow && FastSyncPeriod < period {
			period = FastSyncPeriod
		}
		t := time.NewTimer(period)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		if err := r.Sync(ctx); err != nil && ctx.Err() == nil {
			r.opts.Log.Error(err, "Syncing webhook certificates and registration failed, retrying", "period", period)
		}
	}
}

// writeIfChanged replaces dir/name atomically (rename) when its content differs, so the webhook server's
// certificate watcher never reads half a file.
func writeIfChanged(dir, name string, data []byte) error {
	path := filepath.Join(dir, name)
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return nil
	}
	tmp, err := os.CreateTemp(dir, "."+name+"-")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// Desired is the webhook configuration for caBundle (without owner).
func (r *Registrar) Desired(caBundle []byte) *admissionregistrationv1.ValidatingWebhookConfiguration {
	url := "https://" + r.opts.URL + r.opts.Path
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{
			Name: WebhookConfigurationName,
			// Gardener's webhook remediator must not rewrite an extension's own webhook.
			Labels: map[string]string{"remediation.webhook.shoot.gardener.cloud/exclude": "true"},
		},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    WebhookName,
			AdmissionReviewVersions: []string{"v1", "v1beta1"},
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			// The server decodes core.gardener.cloud/v1beta1 Shoots; Equivalent lets the API server convert
			// other served versions to it.
			MatchPolicy:    ptr.To(admissionregistrationv1.Equivalent),
			TimeoutSeconds: ptr.To[int32](10),
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule: admissionregistrationv1.Rule{
					APIGroups:   []string{"core.gardener.cloud"},
					APIVersions: []string{"v1beta1"},
					Resources:   []string{"shoots"},
					Scope:       ptr.To(admissionregistrationv1.NamespacedScope),
				},
			}},
			ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{CalicoShootLabel: "true"}},
			ClientConfig:   admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: caBundle},
		}},
	}
}

func (r *Registrar) register(ctx context.Context, caBundle []byte) error {
	desired := r.Desired(caBundle)
	if r.opts.OwnerNamespace != "" {
		ns := &corev1.Namespace{}
		if err := r.target.Get(ctx, client.ObjectKey{Name: r.opts.OwnerNamespace}, ns); err != nil {
			return fmt.Errorf("reading owner namespace %s of the webhook configuration: %w", r.opts.OwnerNamespace, err)
		}
		desired.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: "v1", Kind: "Namespace", Name: ns.Name, UID: ns.UID,
			Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(false),
		}}
	}
	live := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	err := r.target.Get(ctx, client.ObjectKeyFromObject(desired), live)
	if apierrors.IsNotFound(err) {
		if err := r.target.Create(ctx, desired); err != nil {
			return fmt.Errorf("creating ValidatingWebhookConfiguration %s: %w", desired.Name, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading ValidatingWebhookConfiguration %s: %w", desired.Name, err)
	}
	desired.ResourceVersion = live.ResourceVersion
	r.keepForeignCAs(live, desired, caBundle)
	if err := r.target.Update(ctx, desired); err != nil {
		return fmt.Errorf("updating ValidatingWebhookConfiguration %s: %w", desired.Name, err)
	}
	return nil
}

// keepForeignCAs adds to desired's bundle the CA certificates the live configuration trusts that are
// not calico-pilot's, for ForeignCAGrace after they were first seen (AnnotationForeignCAUntil) and
// never past their expiry. During a swap the reference extension's pods and calico-pilot's are
// endpoints of the same Service: the API server must trust both servers' certificates until the
// reference's pods are gone, or calls reaching them fail and Shoot writes are denied (failurePolicy
// Fail). The reference's own leader may rewrite the bundle to its CA meanwhile; the next sync (every
// FastSyncPeriod then) adds calico-pilot's CA back, keeping the reference's.
func (r *Registrar) keepForeignCAs(live, desired *admissionregistrationv1.ValidatingWebhookConfiguration, own []byte) {
	now := r.opts.Now()
	r.foreign = false
	until, hasUntil := time.Time{}, false
	if v, ok := live.Annotations[AnnotationForeignCAUntil]; ok {
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			until, hasUntil = t, true
		}
	}
	if hasUntil && !now.Before(until) {
		// The grace period is over: only calico-pilot's CAs from now on.
		return
	}
	ownCerts := map[string]bool{}
	for _, c := range pemBlocks(own) {
		ownCerts[string(c.Bytes)] = true
	}
	var foreign []byte
	seen := map[string]bool{}
	for _, w := range live.Webhooks {
		for _, b := range pemBlocks(w.ClientConfig.CABundle) {
			if ownCerts[string(b.Bytes)] || seen[string(b.Bytes)] {
				continue
			}
			seen[string(b.Bytes)] = true
			cert, err := x509.ParseCertificate(b.Bytes)
			if err != nil || !now.Before(cert.NotAfter) {
				continue
			}
			foreign = append(foreign, pem.EncodeToMemory(b)...)
		}
	}
	if len(foreign) == 0 {
		return
	}
	if !hasUntil {
		until = now.Add(ForeignCAGrace)
	}
	r.foreign = true
	if desired.Annotations == nil {
		desired.Annotations = map[string]string{}
	}
	desired.Annotations[AnnotationForeignCAUntil] = until.UTC().Format(time.RFC3339)
	for i := range desired.Webhooks {
		cc := &desired.Webhooks[i].ClientConfig
		cc.CABundle = append(append([]byte(nil), cc.CABundle...), foreign...)
	}
}

// pemBlocks are the PEM blocks of data.
func pemBlocks(data []byte) []*pem.Block {
	var out []*pem.Block
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			return out
		}
		out = append(out, b)
	}
}
