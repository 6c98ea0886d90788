package cmd

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/calico-pilot/calico-pilot/internal/heartbeat"
)

// Names of the controllers --controllers and --disable-controllers switch. As in the reference extension,
// only the heartbeat is switchable; the Network controller always runs.
const ControllerHeartbeat = "heartbeat"

var switchableControllers = []string{ControllerHeartbeat}

// ExtensionFlags are the flags of a Gardener extension binary (docs/gardener-integration.md §5.1) that
// `calico-pilot controller` accepts on top of its own, so the reference chart's argument list starts it.
// Each has the reference's meaning, or is accepted and unused (LogUnused reports those when set).
type ExtensionFlags struct {
	// Master overrides the API server address of the kubeconfig (or of the in-cluster config).
	Master string
	// LeaderElection is --leader-election, the reference's name of --leader-elect.
	LeaderElection bool
	// WebhookConfigServerHost, WebhookConfigServerPort, WebhookConfigCertDir: accepted, unused by the
	// controller (as in the reference; the admission has its own command).
	WebhookConfigServerHost string
	WebhookConfigServerPort int
	WebhookConfigCertDir    string
	// Log are --log-level and --log-format (the admission has the same).
	Log *LogOptions
	// HealthcheckMaxConcurrentReconciles: accepted, unused (calico-pilot has no health check controller;
	// the reference parses it and does not use it either).
	HealthcheckMaxConcurrentReconciles int
	// HeartbeatNamespace of the Lease; default $LEADER_ELECTION_NAMESPACE, else the leader election
	// namespace.
	HeartbeatNamespace string
	// HeartbeatRenewIntervalSeconds between renewals (and the Lease duration); must be positive.
	HeartbeatRenewIntervalSeconds int
	// Controllers and DisableControllers switch the heartbeat (the only switchable controller).
	Controllers        []string
	DisableControllers []string
	// GardenerVersion, SelfHostedShootCluster, ExtensionClasses: accepted, not applied (as in the
	// reference: classes stay [shoot]).
	GardenerVersion        string
	SelfHostedShootCluster bool
	ExtensionClasses       []string
	// Version prints the version and exits.
	Version bool

	fs *pflag.FlagSet
}

// NewExtensionFlags returns the flags with the reference's defaults.
func NewExtensionFlags() *ExtensionFlags {
	return &ExtensionFlags{
		LeaderElection:                     true,
		Log:                                NewLogOptions(),
		HealthcheckMaxConcurrentReconciles: 5,
		HeartbeatRenewIntervalSeconds:      int(heartbeat.DefaultRenewInterval / time.Second),
		Controllers:                        slices.Clone(switchableControllers),
	}
}

// AddFlags registers the flags on fs.
func (f *ExtensionFlags) AddFlags(fs *pflag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.Master, "master", f.Master, "API server address; overrides the one of the kubeconfig or the in-cluster config")
	fs.BoolVar(&f.LeaderElection, "leader-election", f.LeaderElection, "elect a leader so that only one replica reconciles (the reference's name of --leader-elect)")
	fs.StringVar(&f.WebhookConfigServerHost, "webhook-config-server-host", f.WebhookConfigServerHost, "accepted for compatibility with Gardener extensions; unused by the controller")
	fs.IntVar(&f.WebhookConfigServerPort, "webhook-config-server-port", f.WebhookConfigServerPort, "accepted for compatibility with Gardener extensions; unused by the controller")
	fs.StringVar(&f.WebhookConfigCertDir, "webhook-config-cert-dir", f.WebhookConfigCertDir, "accepted for compatibility with Gardener extensions; unused by the controller")
	f.Log.AddFlags(fs)
	fs.IntVar(&f.HealthcheckMaxConcurrentReconciles, "healthcheck-max-concurrent-reconciles", f.HealthcheckMaxConcurrentReconciles, "accepted for compatibility with Gardener extensions; unused (there is no health check controller)")
	fs.StringVar(&f.HeartbeatNamespace, "heartbeat-namespace", f.HeartbeatNamespace, "namespace of the heartbeat Lease "+heartbeat.LeaseName+" (default: $LEADER_ELECTION_NAMESPACE, else --leader-election-namespace)")
	fs.IntVar(&f.HeartbeatRenewIntervalSeconds, "heartbeat-renew-interval-seconds", f.HeartbeatRenewIntervalSeconds, "seconds between heartbeat renewals, also the Lease's duration")
	fs.StringSliceVar(&f.Controllers, "controllers", f.Controllers, "switchable controllers to run: "+strings.Join(switchableControllers, ", ")+" (the Network controller always runs)")
	fs.StringSliceVar(&f.DisableControllers, "disable-controllers", f.DisableControllers, "switchable controllers not to run: "+strings.Join(switchableControllers, ", "))
	fs.StringVar(&f.GardenerVersion, "gardener-version", f.GardenerVersion, "version of the Gardener installing the extension; accepted, not used")
	fs.BoolVar(&f.SelfHostedShootCluster, "self-hosted-shoot-cluster", f.SelfHostedShootCluster, "whether the extension runs in a self-hosted shoot; accepted, not used")
	fs.StringSliceVar(&f.ExtensionClasses, "extension-classes", f.ExtensionClasses, "extension classes to serve; accepted, not applied (Networks of class shoot are served, as by the reference)")
	fs.BoolVar(&f.Version, "version", f.Version, "print the version and exit")
}

// Validate checks the values; every error names the flag and what is accepted.
func (f *ExtensionFlags) Validate() error {
	errs := f.Log.Validate()
	if f.HeartbeatRenewIntervalSeconds <= 0 {
		errs = append(errs, fmt.Errorf("--heartbeat-renew-interval-seconds %d: must be greater than 0", f.HeartbeatRenewIntervalSeconds))
	}
	if f.HealthcheckMaxConcurrentReconciles < 0 {
		errs = append(errs, fmt.Errorf("--healthcheck-max-concurrent-reconciles %d: must not be negative", f.HealthcheckMaxConcurrentReconciles))
	}
	if f.WebhookConfigServerPort < 0 || f.WebhookConfigServerPort > 65535 {
		errs = append(errs, fmt.Errorf("--webhook-config-server-port %d: must be between 0 and 65535", f.WebhookConfigServerPort))
	}
	for _, list := range []struct {
		flag  string
		names []string
	}{{"--controllers", f.Controllers}, {"--disable-controllers", f.DisableControllers}} {
		for _, name := range list.names {
			if !slices.Contains(switchableControllers, name) {
				errs = append(errs, fmt.Errorf("%s: unknown controller %q, switchable controllers are %s (the Network controller always runs)", list.flag, name, strings.Join(switchableControllers, ", ")))
			}
		}
	}
	for _, class := range f.ExtensionClasses {
		if class != "shoot" && class != "seed" && class != "garden" {
			errs = append(errs, fmt.Errorf("--extension-classes: unknown class %q, Gardener's classes are shoot, seed, garden", class))
		}
	}
	if f.changed("leader-election") && f.changed("leader-elect") {
		other, _ := f.fs.GetBool("leader-elect")
		if other != f.LeaderElection {
			errs = append(errs, fmt.Errorf("--leader-election=%t contradicts --leader-elect=%t: give one of them", f.LeaderElection, other))
		}
	}
	return errors.Join(errs...)
}

func (f *ExtensionFlags) changed(name string) bool {
	return f.fs != nil && f.fs.Changed(name)
}

// HeartbeatEnabled is whether the heartbeat controller runs: enabled by --controllers and not disabled.
func (f *ExtensionFlags) HeartbeatEnabled() bool {
	return slices.Contains(f.Controllers, ControllerHeartbeat) && !slices.Contains(f.DisableControllers, ControllerHeartbeat)
}

// ApplyTo applies the flags to the completed controller options: --leader-election, --master and the
// heartbeat namespace default.
func (f *ExtensionFlags) ApplyTo(o *ControllerOptions) {
	if f.changed("leader-election") {
		o.LeaderElect = f.LeaderElection
	}
	if f.Master != "" && o.rest != nil {
		o.rest.Host = f.Master
	}
	if f.HeartbeatNamespace == "" {
		f.HeartbeatNamespace = os.Getenv("LEADER_ELECTION_NAMESPACE")
	}
	if f.HeartbeatNamespace == "" {
		f.HeartbeatNamespace = o.LeaderElectionNamespace
	}
}

// HeartbeatOptions are the heartbeat's options from the flags.
func (f *ExtensionFlags) HeartbeatOptions(log logr.Logger) heartbeat.Options {
	return heartbeat.Options{
		Namespace:      f.HeartbeatNamespace,
		HolderIdentity: heartbeat.DefaultHolderIdentity,
		RenewInterval:  time.Duration(f.HeartbeatRenewIntervalSeconds) * time.Second,
		Log:            log.WithName("heartbeat"),
	}
}

// AddToManager adds the controllers the flags switch on (the heartbeat) to mgr and reports the flags that
// were set but are not used.
func (f *ExtensionFlags) AddToManager(mgr manager.Manager, log logr.Logger) error {
	f.LogUnused(log)
	if !f.HeartbeatEnabled() {
		log.Info("Heartbeat controller disabled", "flag", "--controllers/--disable-controllers")
		return nil
	}
	opts := f.HeartbeatOptions(log)
	if opts.Namespace == "" {
		return &ExitError{Code: ExitUsage, Err: errors.New("--heartbeat-namespace: required for the heartbeat controller (or set $LEADER_ELECTION_NAMESPACE or --leader-election-namespace); switch it off with --disable-controllers=heartbeat")}
	}
	return heartbeat.AddToManager(mgr, opts)
}

// LogUnused logs one line for every flag that was given but is accepted for compatibility only, so an
// operator sees that it has no effect.
func (f *ExtensionFlags) LogUnused(log logr.Logger) {
	for _, name := range []string{
		"webhook-config-server-host", "webhook-config-server-port", "webhook-config-cert-dir",
		"healthcheck-max-concurrent-reconciles", "gardener-version", "self-hosted-shoot-cluster", "extension-classes",
	} {
		if f.changed(name) {
			log.Info("Flag accepted for compatibility with Gardener extensions but not used", "flag", "--"+name, "value", f.fs.Lookup(name).Value.String())
		}
	}
}
