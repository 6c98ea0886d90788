package cmd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/manage"
	"github.com/calico-pilot/calico-pilot/internal/standalone"
)

// ManageOptions are the flags of `calico-pilot manage`.
type ManageOptions struct {
	Kubeconfig  string
	LeaderElect bool
	// EndpointFlags are the metrics and health endpoints, as the controller's.
	EndpointFlags
	// Timeout bounds each wait of an apply; Interval is how often an unchanged Cluster is applied.
	Timeout, Interval time.Duration
	Log               *LogOptions

	rest *rest.Config
}

// NewManageOptions returns the options with their defaults.
func NewManageOptions() *ManageOptions {
	return &ManageOptions{LeaderElect: true, EndpointFlags: NewEndpointFlags(), Timeout: 5 * time.Minute, Interval: manage.DefaultInterval, Log: NewLogOptions()}
}

// AddFlags registers the options' flags.
func (o *ManageOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "kubeconfig of the cluster (default: $KUBECONFIG, else in-cluster)")
	fs.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect, "elect a leader (Lease "+standalone.Namespace+"/"+manage.LeaderElectionID+") so that only one replica applies")
	o.EndpointFlags.AddFlags(fs)
	fs.DurationVar(&o.Timeout, "timeout", o.Timeout, "how long an apply waits for CRDs to be Established and for each step's rollout")
	fs.DurationVar(&o.Interval, "interval", o.Interval, "how often the Cluster is applied when nothing changes (Typha's certificates are checked then)")
	o.Log.AddFlags(fs)
}

// Complete builds the REST config.
func (o *ManageOptions) Complete() error {
	if o.Kubeconfig == "" {
		o.Kubeconfig = os.Getenv("KUBECONFIG")
	}
	cfg, err := serverRestConfig("--kubeconfig", o.Kubeconfig)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("building the client config (set --kubeconfig or KUBECONFIG outside a cluster): %w", err)}
	}
	// An apply reads and writes about two requests per rendered object (as `apply`).
	cfg.QPS, cfg.Burst = 50, 100
	o.rest = cfg
	return nil
}

// Validate checks the flag values.
func (o *ManageOptions) Validate() error {
	errs := o.Log.Validate()
	if o.Timeout <= 0 {
		errs = append(errs, fmt.Errorf("--timeout %s: must be positive", o.Timeout))
	}
	if o.Interval < time.Minute {
		errs = append(errs, fmt.Errorf("--interval %s: must be at least 1m (each interval applies the whole Cluster)", o.Interval))
	}
	if err := errors.Join(errs...); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	return nil
}

// Run installs the Cluster CRD, starts the manager and blocks until ctx ends.
func (o *ManageOptions) Run(ctx context.Context, streams IO) error {
	ctrl.SetLogger(o.Log.Logger(streams.ErrOut))
	vector, err := imagevector.VectorFromEnv(os.LookupEnv, readFileLimited)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	logIgnoredImages(ctrl.Log, vector)
	mgr, err := NewManageManager(ctx, manage.Setup{
		RestConfig: o.rest,
		Manager: ctrl.Options{
			Logger:                        ctrl.Log,
			LeaderElection:                o.LeaderElect,
			LeaderElectionID:              manage.LeaderElectionID,
			LeaderElectionNamespace:       standalone.Namespace,
			LeaderElectionReleaseOnCancel: true,
			Metrics:                       metricsserver.Options{BindAddress: o.MetricsBindAddress},
			HealthProbeBindAddress:        o.HealthProbeBindAddress,
		},
		ImageVector: vector,
		Identity:    manageIdentity(),
		Timeout:     o.Timeout,
		Interval:    o.Interval,
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
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("running the manage controller: %w", err)
	}
	return nil
}

// NewManageManager installs or updates the Cluster CRD and builds the manage controller's manager
// with apply's plan report as the check of each apply. The command and the integration tests use it.
func NewManageManager(ctx context.Context, s manage.Setup) (ctrl.Manager, error) {
	scheme, err := manage.NewScheme()
	if err != nil {
		return nil, err
	}
	c, err := client.New(s.RestConfig, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("building the client: %w", err)
	}
	if err := manage.EnsureCRD(ctx, c, time.Minute); err != nil {
		return nil, err
	}
	s.Manager.Scheme = scheme
	mgr, r, err := manage.NewManager(s)
	if err != nil {
		return nil, err
	}
	r.Applier.PrintPlan = PrintPlan
	return mgr, nil
}

// manageIdentity names this replica in the apply Lease: the pod's name (the hostname), with a
// random suffix so that a restarted replica is not its predecessor.
func manageIdentity() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%s/%s", manage.ControllerName, host, rand.String(5))
}

// NewManageCommand builds `calico-pilot manage`.
func NewManageCommand(streams IO) *cobra.Command {
	o := NewManageOptions()
	cmd := &cobra.Command{
		Use:   "manage [--kubeconfig FILE]",
		Short: "Run the in-cluster controller of a cluster without Gardener (reconciles the Cluster default)",
		Long: `Runs in the cluster (or, with --kubeconfig, beside it) and keeps Calico as the Cluster object
clusters.standalone.calico-pilot.dev/default says, with the same apply as "calico-pilot apply -f"
(docs/manage.md). It installs or updates the Cluster CRD at start, elects a leader (Lease
kube-system/calico-pilot-manage), and applies the Cluster every --interval (Typha's certificates are
renewed then), whenever the Cluster changes and whenever one of Calico's workloads is edited.

What someone edits in an object calico-pilot applies is restored, with an Event on the Cluster naming
the object, the field and the manager; an object annotated calico-pilot.dev/ignore: "true" is left
alone. A release moves only when the Cluster asks (networkConfig.calicoVersion); a move in progress is
recorded in kube-system/calico-pilot-state and continues after a restart. The Cluster's status says what
runs (release of each component, CRD release), what blocks and why (conditions Available, Progressing,
Degraded): kubectl get clusters.standalone.calico-pilot.dev. Plan blockers are accepted with the
annotation calico-pilot.dev/accept-blockers (objects separated by ";"), disruptive changes with
calico-pilot.dev/allow-disruption: "true". After a takeover of the tigera operator's install, its
TigeraStatus objects are deleted: nobody updates them once the operator is stopped.

While it runs, "calico-pilot apply -f" writes the Cluster object and waits for its status instead of
writing Calico's objects itself. Metrics (--metrics-bind-address) and /healthz, /readyz
(--health-probe-bind-address) are on by default.`,
		Example: `  kubectl apply -f deploy/manage/manage.yaml
  calico-pilot manage --kubeconfig admin.conf --leader-elect=false --log-format text`,
		Args: cobra.NoArgs,
	}
	return bindOptions(cmd, o, streams)
}
