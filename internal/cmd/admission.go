package cmd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.uber.org/zap/zapcore"
	"golang.org/x/sync/errgroup"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/controller/network"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/webhook"
)

// AdmissionOptions are the flags of `calico-pilot admission`.
type AdmissionOptions struct {
	// CertDir holds the serving certificate and key (tls.crt, tls.key); they are reloaded when they change.
	CertDir string
	// Port is the HTTPS port of the webhook server.
	Port int
	// BindHost is the address the webhook server listens on; empty means all addresses.
	BindHost string
	// DrainPeriod is how long the webhook server keeps serving after the signal (webhook.DrainPeriod).
	DrainPeriod time.Duration
	// EndpointFlags are the metrics and health endpoints, the controller's flags.
	EndpointFlags
	// Log are --log-level and --log-format, the controller's logging flags.
	Log *LogOptions
	// Verbosity is the admission's older logging flag: 1 is --log-level debug, 0 leaves --log-level.
	Verbosity int
	// Gardener are the Gardener extension admission flags (admission_gardener.go).
	Gardener *AdmissionGardenerFlags
}

// NewAdmissionOptions returns the defaults: the port and cert dir the chart uses.
func NewAdmissionOptions() *AdmissionOptions {
	return &AdmissionOptions{
		CertDir:       "/etc/calico-pilot/admission-tls",
		Port:          10250,
		DrainPeriod:   webhook.DrainPeriod,
		EndpointFlags: NewEndpointFlags(),
		Log:           NewLogOptions(),
		Gardener:      NewAdmissionGardenerFlags(),
	}
}

// AddFlags registers the options as flags.
func (o *AdmissionOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.CertDir, "cert-dir", o.CertDir, "directory with the serving certificate tls.crt and key tls.key (reloaded on change)")
	fs.IntVar(&o.Port, "port", o.Port, "HTTPS port of the webhook server")
	fs.StringVar(&o.BindHost, "bind-host", o.BindHost, "address the webhook server listens on (empty: all addresses)")
	fs.DurationVar(&o.DrainPeriod, "drain-period", o.DrainPeriod, "how long the webhook server keeps serving after SIGTERM (answering with Connection: close) before it shuts down; keep it below the pod's termination grace period")
	o.EndpointFlags.AddFlags(fs)
	o.Log.AddFlags(fs)
	fs.IntVar(&o.Verbosity, "verbosity", o.Verbosity, "log verbosity (0: --log-level, 1: debug); kept for existing deployments, prefer --log-level")
	o.Gardener.AddFlags(fs, o)
}

// Complete has nothing to derive: the certificate directory is filled (gardener mode) or checked in
// Run, after the flags are known to be sound.
func (o *AdmissionOptions) Complete() error { return nil }

// Validate checks the flags before anything logs or starts; each error names the flag. The
// certificate directory is checked in Run, after Prepare, which may create it in gardener mode.
func (o *AdmissionOptions) Validate() error {
	return errors.Join(o.Gardener.Validate(), o.validateFlags())
}

// Run sets up logging, prepares the certificates in gardener mode, checks the certificate directory
// and serves until ctx ends.
func (o *AdmissionOptions) Run(ctx context.Context, streams IO) error {
	logOpts := *o.Log
	if o.Verbosity == 1 {
		logOpts.Level = "debug"
	}
	// Errors are logged without stack traces: a malformed request is the client's problem, not a
	// bug to trace.
	log := logOpts.Logger(streams.ErrOut, zap.StacktraceLevel(zapcore.DPanicLevel))
	if err := o.Gardener.Prepare(ctx, o, log); err != nil {
		return &ExitError{Code: ExitFindings, Err: err}
	}
	if err := o.validateCertDir(); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	// controller-runtime's webhook and metrics servers log through its package logger; hand it ours.
	ctrllog.SetLogger(log)
	if err := RunAdmission(logr.NewContext(ctx, log), o); err != nil {
		return &ExitError{Code: ExitFindings, Err: err}
	}
	return nil
}

// validateCertDir checks that the serving certificate and key are readable; the error names the flag.
func (o *AdmissionOptions) validateCertDir() error {
	var errs []error
	for _, name := range []string{"tls.crt", "tls.key"} {
		path := filepath.Join(o.CertDir, name)
		if _, err := os.Stat(path); err != nil {
			errs = append(errs, fmt.Errorf("--cert-dir %s: %s is not readable (it must hold tls.crt and tls.key): %w", o.CertDir, name, err))
		}
	}
	return errors.Join(errs...)
}

// validateFlags checks the flags that need no file system: port, addresses, verbosity.
func (o *AdmissionOptions) validateFlags() error {
	var errs []error
	if o.Port < 1 || o.Port > 65535 {
		errs = append(errs, fmt.Errorf("--port %d: must be between 1 and 65535", o.Port))
	}
	if o.DrainPeriod <= 0 || o.DrainPeriod > 25*time.Second {
		errs = append(errs, fmt.Errorf("--drain-period %s: must be more than 0 and at most 25s (below the pod's default 30 s termination grace period)", o.DrainPeriod))
	}
	for _, a := range []struct{ flag, addr string }{
		{"--metrics-bind-address", o.MetricsBindAddress},
		{"--health-probe-bind-address", o.HealthProbeBindAddress},
	} {
		if a.addr == "0" {
			continue
		}
		host, port, err := net.SplitHostPort(a.addr)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %q: must be host:port, :port or 0: %w", a.flag, a.addr, err))
			continue
		}
		if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
			errs = append(errs, fmt.Errorf("%s %q: the port must be a number from 0 to 65535", a.flag, a.addr))
		}
		if host != "" && net.ParseIP(host) == nil && host != "localhost" {
			errs = append(errs, fmt.Errorf("%s %q: the host must be an IP address, localhost or empty", a.flag, a.addr))
		}
	}
	errs = append(errs, o.Log.Validate()...)
	if o.Verbosity < 0 || o.Verbosity > 1 {
		errs = append(errs, fmt.Errorf("--verbosity %d: must be 0 (info) or 1 (debug)", o.Verbosity))
	}
	if o.BindHost != "" && net.ParseIP(o.BindHost) == nil && o.BindHost != "localhost" {
		errs = append(errs, fmt.Errorf("--bind-host %q: must be an IP address, localhost or empty (all addresses)", o.BindHost))
	}
	return errors.Join(errs...)
}

// NewAdmissionCommand is `calico-pilot admission`: the validating webhook server for Shoots.
func NewAdmissionCommand(streams IO) *cobra.Command {
	o := NewAdmissionOptions()
	c := &cobra.Command{
		Use:   "admission",
		Short: "Serve the validating admission webhook for calico Shoots",
		Long: `Serves the validating webhook for core.gardener.cloud/v1beta1 Shoots of networking type calico at
` + webhook.Path + `. It decodes and validates spec.networking.providerConfig as 'calico-pilot validate' does
(the calicoVersion pin too; with $IMAGEVECTOR_OVERWRITE a new or changed pin to a release the landscape has
no images of is refused), denies changes that would break a cluster with nodes, and warns about disruptive
ones.

Validating needs no API server. With --webhook-config-mode url (gardener-operator's Extension) it also
registers itself in the cluster of --kubeconfig, with a CA it manages and renews (docs/admission.md,
docs/deployment.md).`,
		Args: cobra.NoArgs,
	}
	return bindOptions(c, o, streams)
}

// admissionValidator is the Shoot validator with the landscape's image vector when
// $IMAGEVECTOR_OVERWRITE names an override (the chart's imageVectorOverwrite): a new or changed pin to
// a Calico release it has no images of is refused, naming the entry to add. It logs once which
// releases the vector makes available.
func admissionValidator(log logr.Logger) (webhook.ShootValidator, error) {
	if path, ok := os.LookupEnv(imagevector.OverrideEnv); !ok || path == "" {
		return webhook.ShootValidator{}, nil
	}
	vector, err := imagevector.VectorFromEnv(os.LookupEnv, readFileLimited)
	if err != nil {
		return webhook.ShootValidator{}, err
	}
	network.LogAvailability(log.WithName("imagevector"), vector)
	resolver := imagevector.NewResolver(vector)
	return webhook.ShootValidator{Availability: func(k8s string) calicoversion.Available { return resolver.Availability(k8s).Func() }}, nil
}

// RunAdmission serves the webhook, metrics and health endpoints until ctx is cancelled or one of them
// fails. It returns nil after a clean shutdown.
func RunAdmission(ctx context.Context, o *AdmissionOptions) error {
	log := logr.FromContextOrDiscard(ctx)
	server := webhook.NewServer(webhook.ServerOptions{Host: o.BindHost, Port: o.Port, CertDir: o.CertDir, DrainPeriod: o.DrainPeriod})
	validator, err := admissionValidator(log)
	if err != nil {
		return err
	}
	handler := webhook.NewHandlerFor(log.WithName("shoot-validator"), validator)
	server.Register(webhook.Path, handler)
	server.Register(webhook.ReferencePath, handler)

	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := server.Start(ctx); err != nil {
			return fmt.Errorf("serving the webhook on port %d: %w", o.Port, err)
		}
		return nil
	})

	metrics, err := metricsserver.NewServer(metricsserver.Options{BindAddress: o.MetricsBindAddress}, nil, nil)
	if err != nil {
		return fmt.Errorf("creating the metrics server: %w", err)
	}
	if metrics != nil {
		g.Go(func() error {
			if err := metrics.Start(ctx); err != nil {
				return fmt.Errorf("serving metrics on %s: %w", o.MetricsBindAddress, err)
			}
			return nil
		})
	}

	if o.HealthProbeBindAddress != "0" {
		mux := http.NewServeMux()
		mux.Handle("/healthz", http.StripPrefix("/healthz", &healthz.Handler{Checks: map[string]healthz.Checker{"ping": healthz.Ping}}))
		// Ready once the webhook server accepts TLS connections.
		mux.Handle("/readyz", http.StripPrefix("/readyz", &healthz.Handler{Checks: map[string]healthz.Checker{"webhook": server.StartedChecker()}}))
		g.Go(func() error {
			return serveUntilDone(ctx, &http.Server{Addr: o.HealthProbeBindAddress, Handler: mux, ReadHeaderTimeout: 5 * time.Second})
		})
	}

	if o.Gardener != nil && o.Gardener.Enabled() {
		g.Go(func() error { return o.Gardener.Run(ctx) })
	}
	log.Info("Serving Shoot admission webhook", "path", webhook.Path, "port", o.Port, "certDir", o.CertDir)
	return g.Wait()
}

// serveUntilDone runs an HTTP server until ctx is done and then shuts it down.
func serveUntilDone(ctx context.Context, srv *http.Server) error {
	ln, err := net.Listen("tcp", srv.Addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", srv.Addr, err)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serving %s: %w", srv.Addr, err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutting down %s: %w", srv.Addr, err)
	}
	return nil
}
