package cmd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/component-base/featuregate"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/apiserverendpoints"
	"github.com/calico-pilot/calico-pilot/internal/controller/network"
	"github.com/calico-pilot/calico-pilot/internal/features"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
)

// ControllerOptions are the flags of `calico-pilot controller`.
type ControllerOptions struct {
	Kubeconfig                string
	ConfigFile                string
	MaxConcurrentReconciles   int
	IgnoreOperationAnnotation bool
	LeaderElect               bool
	LeaderElectionNamespace   string
	LeaderElectionID          string
	PprofBindAddress          string
	DeleteTimeout             time.Duration
	// EndpointFlags are the metrics and health endpoints, the admission's flags.
	EndpointFlags
	// DNS configures how CNAME DNSRecords are resolved and the TTL-driven requeue bounds.
	DNS *apiserverendpoints.Options
	// Extension are the Gardener extension flags (extension_flags.go).
	Extension *ExtensionFlags

	// Filled by Complete.
	config *configv1alpha1.ControllerConfiguration
	gates  featuregate.FeatureGate
	rest   *rest.Config
}

// NewControllerOptions returns the options with their defaults.
func NewControllerOptions() *ControllerOptions {
	d := network.DefaultOptions()
	return &ControllerOptions{
		MaxConcurrentReconciles: d.MaxConcurrentReconciles,
		LeaderElect:             true,
		LeaderElectionID:        "calico-pilot-leader-election",
		EndpointFlags:           NewEndpointFlags(),
		DeleteTimeout:           d.DeleteTimeout,
		DNS:                     apiserverendpoints.NewOptions(),
		Extension:               NewExtensionFlags(),
	}
}

// AddFlags registers the options' flags.
func (o *ControllerOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "kubeconfig of the seed cluster (default: $KUBECONFIG, else clientConnection.kubeconfig of --config-file, else in-cluster)")
	fs.StringVar(&o.ConfigFile, "config-file", o.ConfigFile, "ControllerConfiguration file (calico.networking.extensions.config.gardener.cloud/v1alpha1)")
	fs.IntVar(&o.MaxConcurrentReconciles, "max-concurrent-reconciles", o.MaxConcurrentReconciles, "Networks reconciled in parallel")
	fs.BoolVar(&o.IgnoreOperationAnnotation, "ignore-operation-annotation", o.IgnoreOperationAnnotation, "reconcile on every change instead of waiting for the gardener.cloud/operation annotation")
	fs.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect, "elect a leader so that only one replica reconciles")
	fs.StringVar(&o.LeaderElectionNamespace, "leader-election-namespace", o.LeaderElectionNamespace, "namespace of the leader election lease (default: $LEADER_ELECTION_NAMESPACE, else the in-cluster namespace)")
	fs.StringVar(&o.LeaderElectionID, "leader-election-id", o.LeaderElectionID, "name of the leader election lease")
	fs.StringVar(&o.PprofBindAddress, "pprof-bind-address", o.PprofBindAddress, "address of the Go profiling endpoints (/debug/pprof; empty or 0: off, the default)")
	o.EndpointFlags.AddFlags(fs)
	fs.DurationVar(&o.DeleteTimeout, "delete-timeout", o.DeleteTimeout, "how long deletion waits for the ManagedResource to disappear")
	o.DNS.AddFlags(fs)
	o.Extension.AddFlags(fs)
}

// Complete checks the extension flags, loads the config file, sets the feature gates and builds the
// REST config; with --version there is nothing to complete. The logger is set up in Run.
func (o *ControllerOptions) Complete() error {
	if o.Extension.Version {
		return nil
	}
	if err := o.Extension.Validate(); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if err := o.complete(); err != nil {
		return err
	}
	o.Extension.ApplyTo(o)
	return nil
}

// complete loads the config file, sets the feature gates and builds the REST config.
func (o *ControllerOptions) complete() error {
	o.config = &configv1alpha1.ControllerConfiguration{}
	if o.ConfigFile != "" {
		cfg, errs, err := loadControllerConfig(o.ConfigFile)
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("reading --config-file: %w", err)}
		}
		if len(errs) > 0 {
			return &ExitError{Code: ExitUsage, Err: fmt.Errorf("invalid --config-file %s: %w", o.ConfigFile, errs.ToAggregate())}
		}
		o.config = cfg
	}
	gates, err := features.FromMap(o.config.FeatureGates)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("invalid --config-file %s: %s: %w", o.ConfigFile, field.NewPath("featureGates"), err)}
	}
	o.gates = gates

	if o.Kubeconfig == "" {
		o.Kubeconfig = os.Getenv("KUBECONFIG")
	}
	if o.Kubeconfig == "" && o.config.ClientConnection != nil {
		o.Kubeconfig = o.config.ClientConnection.Kubeconfig
	}
	cfg, err := serverRestConfig("kubeconfig", o.Kubeconfig)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("building seed client config (set --kubeconfig or KUBECONFIG outside a cluster): %w", err)}
	}
	if cc := o.config.ClientConnection; cc != nil {
		if cc.QPS > 0 {
			cfg.QPS = cc.QPS
		}
		if cc.Burst > 0 {
			cfg.Burst = int(cc.Burst)
		}
		if cc.ContentType != "" {
			cfg.ContentType = cc.ContentType
		}
		if cc.AcceptContentTypes != "" {
			cfg.AcceptContentTypes = cc.AcceptContentTypes
		}
	}
	if cfg.QPS > 0 && cfg.RateLimiter == nil {
		// One token bucket for every client built from this config: controller-runtime builds a
		// REST client per kind, each with a bucket of its own when the config has none, so qps
		// would bound each kind separately (Secrets, ManagedResources, Networks, events...) and
		// the seed would see a multiple of it. The operator's qps and burst bound the process.
		burst := cfg.Burst
		if burst < 1 {
			burst = max(1, int(cfg.QPS))
		}
		cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, burst)
	}
	o.rest = cfg
	if o.LeaderElectionNamespace == "" {
		o.LeaderElectionNamespace = os.Getenv("LEADER_ELECTION_NAMESPACE")
	}
	return nil
}

// Validate checks the flag values.
func (o *ControllerOptions) Validate() error {
	if o.Extension.Version {
		return nil
	}
	var errs []error
	if o.MaxConcurrentReconciles < 1 {
		errs = append(errs, fmt.Errorf("--max-concurrent-reconciles must be at least 1, got %d", o.MaxConcurrentReconciles))
	}
	if err := o.DNS.Validate(); err != nil {
		errs = append(errs, err)
	}
	if o.DeleteTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--delete-timeout must be positive, got %s", o.DeleteTimeout))
	}
	if o.LeaderElect && o.LeaderElectionNamespace == "" && !inCluster() {
		// controller-runtime would name its Go field (LeaderElectionNamespace) instead.
		errs = append(errs, errors.New("leader election needs the namespace of its lease outside a cluster: "+
			"give --leader-election-namespace NAMESPACE (or set LEADER_ELECTION_NAMESPACE), or --leader-elect=false"))
	}
	if err := errors.Join(errs...); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	return nil
}

// serviceAccountNamespaceFile is where a pod finds its namespace; controller-runtime takes the
// leader election namespace from it when none is given.
var serviceAccountNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// controllerNamespace is the controller's namespace: the leader election namespace given, else the
// pod's own (as controller-runtime finds it for the Lease), else "".
func controllerNamespace(leaderElection string) string {
	if leaderElection != "" {
		return leaderElection
	}
	if data, err := os.ReadFile(serviceAccountNamespaceFile); err == nil {
		return strings.TrimSpace(string(data))
	}
	return ""
}

func inCluster() bool {
	_, err := os.Stat(serviceAccountNamespaceFile)
	return err == nil
}

// UserAgent is how calico-pilot's API clients identify themselves.
func UserAgent() string { return "calico-pilot/" + Version }

// Run sets up logging, starts the manager and blocks until ctx ends.
func (o *ControllerOptions) Run(ctx context.Context, streams IO) error {
	if o.Extension.Version {
		fmt.Fprintln(streams.Out, Version)
		return nil
	}
	// controller-runtime logs through its process-wide logger; setting it here, once per process,
	// is the only way to route its internal logs to our stderr.
	ctrl.SetLogger(o.Extension.Log.Logger(streams.ErrOut))
	opts := network.DefaultOptions()
	opts.MaxConcurrentReconciles = o.MaxConcurrentReconciles
	opts.IgnoreOperationAnnotation = o.IgnoreOperationAnnotation
	opts.UserAgent = UserAgent()
	opts.TTLRequeueMin, opts.TTLRequeueMax = o.DNS.RequeueMin, o.DNS.RequeueMax
	opts.DeleteTimeout = o.DeleteTimeout
	vector, err := imagevector.VectorFromEnv(os.LookupEnv, readFileLimited)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	// A malformed entry fails the start above; one for an image calico-pilot does not deploy is
	// ignored, as Gardener's image vector does, and said once here.
	logIgnoredImages(ctrl.Log, vector)
	// The resolver is checked before the manager is built, so a bad flag is a usage error.
	if _, err := o.DNS.Resolver(); err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("kube-apiserver DNS resolver: %w", err)}
	}
	mgr, err := network.NewManager(network.Setup{
		RestConfig: o.rest,
		Manager: ctrl.Options{
			Logger:                  ctrl.Log,
			LeaderElection:          o.LeaderElect,
			LeaderElectionID:        o.LeaderElectionID,
			LeaderElectionNamespace: o.LeaderElectionNamespace,
			Metrics:                 metricsserver.Options{BindAddress: o.MetricsBindAddress},
			HealthProbeBindAddress:  o.HealthProbeBindAddress,
			PprofBindAddress:        o.PprofBindAddress,
		},
		ImageVector: vector,
		Addresses: func(c client.Client) (network.AddressSource, error) {
			source, err := o.DNS.Source(c)
			if err != nil {
				return nil, err
			}
			return network.NewAddressSource(source), nil
		},
		FeatureGates: o.gates,
		Config:       o.config,
		Options:      opts,
		// The rollout's state lives beside the leader election Lease, in the controller's namespace.
		Namespace: controllerNamespace(o.LeaderElectionNamespace),
	})
	if err != nil {
		return err
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return fmt.Errorf("adding healthz check: %w", err)
	}
	if err := mgr.AddReadyzCheck("informer-sync", func(req *http.Request) error {
		if !mgr.GetCache().WaitForCacheSync(req.Context()) {
			return errors.New("informers not synced")
		}
		return nil
	}); err != nil {
		return fmt.Errorf("adding readyz check: %w", err)
	}
	if err := o.Extension.AddToManager(mgr, ctrl.Log); err != nil {
		return err
	}
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("running controller manager: %w", err)
	}
	return nil
}

// NewControllerCommand builds `calico-pilot controller`.
func NewControllerCommand(streams IO) *cobra.Command {
	o := NewControllerOptions()
	cmd := &cobra.Command{
		Use:   "controller",
		Short: "Run the Gardener networking extension controller for Calico (reconciles Networks of type calico)",
		Long: `Runs the controller manager that reconciles extensions.gardener.cloud/v1alpha1 Networks of type calico
in a seed: it renders Calico for the shoot into the ManagedResource extension-networking-calico-config, the
seed's monitoring objects into extension-networking-calico-monitoring (class seed), creates the shoot's IP
pools once, and reports conditions and status on the Network. With ControllerConfiguration calico.rollout it
moves shoots to another Calico line in waves (calico-pilot rollout status|resume). It also keeps Gardener's
heartbeat Lease. Leader election, metrics (--metrics-bind-address) and /healthz, /readyz
(--health-probe-bind-address) are on by default (docs/controller.md, docs/deployment.md).`,
		Args: cobra.NoArgs,
	}
	return bindOptions(cmd, o, streams)
}

// logIgnoredImages logs, once, the image vector entries calico-pilot does not use.
func logIgnoredImages(log logr.Logger, v *imagevector.Vector) {
	for _, n := range v.Ignored() {
		if n.DidYouMean != "" {
			log.Info("Ignoring image vector entry: calico-pilot deploys no image of this name", "name", n.Name, "didYouMean", n.DidYouMean)
			continue
		}
		log.Info("Ignoring image vector entry: calico-pilot deploys no image of this name", "name", n.Name)
	}
}
