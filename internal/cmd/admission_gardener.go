package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/gardenadmission"
	"github.com/calico-pilot/calico-pilot/internal/webhook"
)

// Environment variables of a Gardener extension admission (docs/gardener-integration.md §4.3).
const (
	// EnvSourceCluster, when set, makes certificates live in the source cluster (SOURCE_KUBECONFIG, else
	// in-cluster: the garden runtime cluster) instead of the target (the virtual garden).
	EnvSourceCluster    = "SOURCE_CLUSTER"
	EnvSourceKubeconfig = "SOURCE_KUBECONFIG"
	// EnvGardenKubeconfig is the virtual garden kubeconfig gardener-operator injects.
	EnvGardenKubeconfig = "GARDEN_KUBECONFIG"
)

// AdmissionGardenerFlags are the flags of a Gardener extension admission binary. With
// --webhook-config-mode=url the admission manages its own CA and serving certificate and registers its
// ValidatingWebhookConfiguration in the target cluster (the virtual garden); without a mode it serves the
// certificate it finds in --cert-dir and registers nothing (the seed chart's in-cluster setup).
type AdmissionGardenerFlags struct {
	Mode           string
	URL            string
	Namespace      string
	OwnerNamespace string
	Kubeconfig     string
	SyncPeriod     time.Duration
	CAValidity     time.Duration
	// LeaderElectionID is accepted for the reference chart's argument list; the replicas need no leader
	// (they settle races on the certificate Secret's resourceVersion).
	LeaderElectionID string

	fs        *pflag.FlagSet
	registrar *gardenadmission.Registrar
}

// NewAdmissionGardenerFlags returns the defaults (5 minute sync as Gardener's webhook certificate reconciler).
func NewAdmissionGardenerFlags() *AdmissionGardenerFlags {
	return &AdmissionGardenerFlags{SyncPeriod: 5 * time.Minute}
}

// AddFlags registers the flags, including the reference's names of --port, --bind-host, --cert-dir and
// --health-probe-bind-address (bound to the same options).
func (f *AdmissionGardenerFlags) AddFlags(fs *pflag.FlagSet, o *AdmissionOptions) {
	f.fs = fs
	fs.StringVar(&f.Mode, "webhook-config-mode", f.Mode, `how the webhook is registered: "url" (in the virtual garden, with a self-managed CA); empty registers nothing`)
	fs.StringVar(&f.URL, "webhook-config-url", f.URL, "host[:port] the API server dials in url mode, e.g. gardener-extension-admission-calico.garden")
	fs.StringVar(&f.Namespace, "webhook-config-namespace", f.Namespace, "namespace of the certificate secret in the source cluster")
	fs.StringVar(&f.OwnerNamespace, "webhook-config-owner-namespace", f.OwnerNamespace, "namespace in the target cluster that owns the webhook configuration (garbage collection with the Extension)")
	fs.StringVar(&f.Kubeconfig, "kubeconfig", f.Kubeconfig, "kubeconfig of the target cluster (default: $GARDEN_KUBECONFIG, else $KUBECONFIG, else in-cluster)")
	fs.DurationVar(&f.SyncPeriod, "webhook-config-sync-period", f.SyncPeriod, "how often certificates and the registration are checked and renewed")
	fs.DurationVar(&f.CAValidity, "webhook-config-ca-validity", f.CAValidity, "validity of the self-managed CA and serving certificate (default 720h); renewed 10 days (at most half the validity) before expiry")
	fs.StringVar(&f.LeaderElectionID, "leader-election-id", f.LeaderElectionID, "accepted for compatibility with the reference chart; unused (no leader is needed)")
	fs.IntVar(&o.Port, "webhook-config-server-port", o.Port, "the reference's name of --port")
	fs.StringVar(&o.BindHost, "webhook-config-server-host", o.BindHost, "the reference's name of --bind-host")
	fs.StringVar(&o.CertDir, "webhook-config-cert-dir", o.CertDir, "the reference's name of --cert-dir")
}

// Enabled is whether the admission registers itself.
func (f *AdmissionGardenerFlags) Enabled() bool { return f.Mode != "" }

// Validate checks the flags.
func (f *AdmissionGardenerFlags) Validate() error {
	switch f.Mode {
	case "":
		for _, name := range []string{"webhook-config-url", "webhook-config-namespace", "webhook-config-owner-namespace", "kubeconfig", "webhook-config-sync-period", "webhook-config-ca-validity"} {
			if f.fs != nil && f.fs.Changed(name) {
				return fmt.Errorf("--%s needs --webhook-config-mode=url", name)
			}
		}
		return nil
	case gardenadmission.ModeURL:
		return f.options(nil, logr.Discard()).Validate()
	default:
		return fmt.Errorf("--webhook-config-mode %q: supported is url (registration in the virtual garden); service mode is the seed chart's in-cluster setup with --cert-dir", f.Mode)
	}
}

func (f *AdmissionGardenerFlags) options(o *AdmissionOptions, log logr.Logger) gardenadmission.Options {
	opts := gardenadmission.Options{URL: f.URL, Path: webhook.ReferencePath, Namespace: f.Namespace, OwnerNamespace: f.OwnerNamespace,
		SyncPeriod: f.SyncPeriod, CAValidity: f.CAValidity, Log: log}
	if o != nil {
		opts.CertDir = o.CertDir
	}
	return opts
}

// Prepare builds the clients, creates the certificates if needed and writes them into the cert dir, and
// registers the webhook, before the server starts (so it starts with a valid certificate).
func (f *AdmissionGardenerFlags) Prepare(ctx context.Context, o *AdmissionOptions, log logr.Logger) error {
	if !f.Enabled() {
		return nil
	}
	target, err := f.targetConfig()
	if err != nil {
		return err
	}
	source := target
	if os.Getenv(EnvSourceCluster) != "" {
		source, err = serverRestConfig("$"+EnvSourceKubeconfig, os.Getenv(EnvSourceKubeconfig))
		if err != nil {
			return fmt.Errorf("source cluster client ($%s set; $%s or in-cluster): %w", EnvSourceCluster, EnvSourceKubeconfig, err)
		}
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	sourceClient, err := client.New(source, client.Options{Scheme: scheme})
	if err != nil {
		return fmt.Errorf("source cluster client: %w", err)
	}
	targetClient, err := client.New(target, client.Options{Scheme: scheme})
	if err != nil {
		return fmt.Errorf("target cluster client: %w", err)
	}
	if err := os.MkdirAll(o.CertDir, 0o700); err != nil {
		return fmt.Errorf("--cert-dir %s: %w", o.CertDir, err)
	}
	r, err := gardenadmission.NewRegistrar(sourceClient, targetClient, f.options(o, log))
	if err != nil {
		return err
	}
	if err := r.Sync(ctx); err != nil {
		return fmt.Errorf("creating webhook certificates and registration: %w", err)
	}
	f.registrar = r
	log.Info("Registered webhook", "validatingWebhookConfiguration", gardenadmission.WebhookConfigurationName, "url", "https://"+f.URL+webhook.ReferencePath)
	return nil
}

func (f *AdmissionGardenerFlags) targetConfig() (*rest.Config, error) {
	path := f.Kubeconfig
	for _, env := range []string{EnvGardenKubeconfig, "KUBECONFIG"} {
		if path == "" {
			path = os.Getenv(env)
		}
	}
	cfg, err := serverRestConfig("kubeconfig", path)
	if err != nil {
		return nil, fmt.Errorf("target cluster client (--kubeconfig, $%s, $KUBECONFIG or in-cluster): %w", EnvGardenKubeconfig, err)
	}
	return cfg, nil
}

// Run keeps certificates and registration current until ctx ends (after Prepare).
func (f *AdmissionGardenerFlags) Run(ctx context.Context) error {
	if f.registrar == nil {
		return errors.New("webhook registration was not prepared")
	}
	return f.registrar.Run(ctx)
}
