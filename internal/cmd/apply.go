package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	standalonev1alpha1 "github.com/calico-pilot/calico-pilot/api/standalone/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/manifestdiff"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/standalone"
)

// ApplyOptions are the flags of `calico-pilot apply`.
type ApplyOptions struct {
	// Kubeconfig is the cluster's.
	Kubeconfig string
	// File is the cluster file (NetworkConfig and facts).
	File string
	// DryRun prints plan's report and changes nothing.
	DryRun bool
	// CalicoVersion is the release or line to move to.
	CalicoVersion string
	// Timeout bounds each wait (CRDs Established, each step's rollout).
	Timeout time.Duration
	// AcceptBlockers are plan blockers accepted, by object.
	AcceptBlockers []string
	// Adopt takes over objects calico-pilot did not apply (an upstream calico.yaml install).
	Adopt bool
	// RemoveForeign names objects whose fields set by other managers apply removes ("all": every one).
	RemoveForeign []string
	// AllowDisruption makes --dry-run exit 0 on disruptive (but not blocked) changes, as plan's flag.
	AllowDisruption bool
	// ShowCRDFields prints every field a CRD's schema change adds, removes or changes (folded by default).
	ShowCRDFields bool
	// disruptive is set by report when the plan's highest impact is disruptive or blocked.
	disruptive bool

	cfg *rest.Config
	// target names the kubeconfig's context, user and cluster, for the errors of connect.
	target kubeconfigTarget
	// poll is how often waits poll (tests shorten it).
	poll time.Duration
}

// NewApplyCommand returns `calico-pilot apply`.
func NewApplyCommand(streams IO) *cobra.Command {
	o := &ApplyOptions{}
	cmd := &cobra.Command{
		Use:   "apply --kubeconfig FILE -f CLUSTER.yaml [--dry-run] [--calico-version RELEASE|LINE] [--adopt] [--allow-disruption] [--accept-blocker OBJECT] [--remove-foreign OBJECT] [--timeout D]",
		Short: "Install or update Calico on a cluster without Gardener; adopt or take over a running install (--adopt)",
		Long: `Render Calico for a plain cluster (no Gardener) from a cluster file and apply it with server-side
apply under the field manager "calico-pilot" (docs/standalone.md, docs/cli.md).

The cluster file (apiVersion standalone.calico-pilot.dev/v1alpha1, kind Cluster; a bare NetworkConfig is
read as one without facts) holds the NetworkConfig, the cluster facts and the optional components
(components.apiServer, goldmane, whisker, csiDriver: enabled true or false; unset keeps what runs). Facts
left out are read from the cluster and printed; a fact the file states differently from the cluster is an
error naming both.

apply first decides without writing (what runs, its state, the file) and prints the decision, a summary
first (what stops, restarts, is lost or stays unmanaged, the certificates it issues), then the details and
plan's report; then it carries it out. An unchanged cluster gets no write. With calico-pilot manage
running in the cluster, apply -f writes the Cluster object and waits for the controller instead.

apply writes CRDs, RBAC, the other objects, IP pools (created once, then the owner's) and the workloads,
waiting for each rollout. The release moves only with --calico-version, in Calico's order; CRDs never go
down; CRDs and IP pools are never deleted. State is kept in ConfigMap kube-system/calico-pilot-state, and
the Lease kube-system/calico-pilot-apply keeps two applies apart.

A running Calico calico-pilot did not apply is used only with --adopt: an install from upstream's
calico.yaml is adopted, keeping what runs where the file is silent; a tigera-operator install is taken
over in place (the operator stopped, its ownerReferences removed, all seven workloads updated in
calico-system, every certificate kept and renewed by calico-pilot); --adopt where no Calico runs is refused. Run --dry-run first: it prints plan's report and changes nothing. Blockers
are refused unless accepted (--accept-blocker), disruptive changes unless --allow-disruption is given.

Exit status: 0 applied (with --dry-run: nothing blocked or disruptive), 1 blocked, disruptive, invalid
file or a rollout that did not finish in time, 2 bad usage or a cluster that does not answer, refuses the
credentials (401, 403) or presents a certificate the kubeconfig's CA does not sign, 130 interrupted.`,
		Example: `  calico-pilot apply --kubeconfig admin.conf -f cluster.yaml --dry-run
  calico-pilot apply --kubeconfig admin.conf -f cluster.yaml
  calico-pilot apply --kubeconfig admin.conf -f cluster.yaml --adopt --dry-run   # a running install
  calico-pilot apply --kubeconfig admin.conf -f cluster.yaml --calico-version v3.32 --timeout 10m`,
		Args: cobra.NoArgs,
	}
	return bindOptions(cmd, o, streams)
}

// AddFlags registers apply's flags.
func (o *ApplyOptions) AddFlags(f *pflag.FlagSet) {
	f.StringVar(&o.Kubeconfig, "kubeconfig", "", "kubeconfig of the cluster (required)")
	f.StringVarP(&o.File, "filename", "f", "", "cluster file: NetworkConfig and cluster facts (required; - for stdin)")
	f.BoolVar(&o.DryRun, "dry-run", false, "print what would change (plan's report) and change nothing")
	f.BoolVar(&o.AllowDisruption, "allow-disruption", false, "accept disruptive changes that are not blocked (an IP pool's encapsulation on every node at once, say); with --dry-run: exit 0 on them, as plan")
	f.StringArrayVar(&o.RemoveForeign, "remove-foreign", nil, "remove the fields other field managers set in this calico-pilot object, by the object as --dry-run prints it (\"DaemonSet kube-system/calico-node\"), or all (repeatable); without it they are kept and listed")
	f.StringVar(&o.CalicoVersion, "calico-version", "", "Calico release or line to move to ("+calicoversion.Default().Accepted()+"); without it the deployed release stays")
	f.DurationVar(&o.Timeout, "timeout", 5*time.Minute, "how long to wait for CRDs to be Established and for each step's rollout")
	f.StringArrayVar(&o.AcceptBlockers, "accept-blocker", nil, "a plan blocker to accept, by its object as plan prints it (repeatable)")
	f.DurationVar(&o.poll, "poll-interval", time.Second, "how often waits look at the cluster (rollouts, CRDs, the operator stopping)")
	_ = f.MarkHidden("poll-interval") // for tests against a stand-in cluster whose rollouts finish at once
	f.BoolVar(&o.ShowCRDFields, "show-crd-fields", false, "print every field of a CRD's schema change in the plan (by default each CRD's changes are folded into one line)")
	f.BoolVar(&o.Adopt, "adopt", false, "use a running Calico calico-pilot did not apply: adopt an install from upstream's calico.yaml, or take over a tigera-operator install in place")
}

// Complete reads the kubeconfig.
func (o *ApplyOptions) Complete() error {
	if o.Kubeconfig == "" {
		return errors.New("--kubeconfig is required: the cluster to apply to")
	}
	cfg, target, err := restConfigAndTarget("--kubeconfig", o.Kubeconfig)
	if err != nil {
		return err
	}
	o.target = target
	cfg.UserAgent = UserAgent()
	// An apply reads and writes about two requests per rendered object: client-go's default of 5
	// requests a second would make it wait most of its time (kubectl raised its own limits too).
	cfg.QPS, cfg.Burst = 50, 100
	o.cfg = cfg
	if o.poll == 0 {
		o.poll = time.Second
	}
	return nil
}

// Validate checks the flags.
func (o *ApplyOptions) Validate() error {
	if o.File == "" {
		return errors.New("-f is required: the cluster file (docs/standalone.md)")
	}
	if o.Timeout <= 0 {
		return fmt.Errorf("--timeout %s: must be positive", o.Timeout)
	}
	if o.poll < 0 {
		return fmt.Errorf("--poll-interval %s: must not be negative", o.poll)
	}
	if o.CalicoVersion != "" {
		if _, err := calicoversion.Default().Resolve(o.CalicoVersion); err != nil {
			return fmt.Errorf("--calico-version: %w", err)
		}
	}
	return nil
}

// Run reads the file and the cluster, then applies (or previews).
func (o *ApplyOptions) Run(ctx context.Context, streams IO) error {
	data, err := readInputContext(ctx, o.File, streams.In)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("-f: %w", err)}
	}
	name := o.File
	if name == "-" {
		name = "<stdin>"
	}
	file, cfg, errs := standalone.ReadFile(name, data)
	if len(errs) > 0 {
		return reportFieldErrors(streams.ErrOut, errs)
	}
	if file.Bare {
		fmt.Fprintf(streams.Out, "note: %s is a bare NetworkConfig: read as a %s with that networkConfig and no facts (every fact is read from the cluster)\n", name, standalone.FileKind)
	}
	c, serverVersion, err := o.connect()
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if !o.DryRun {
		// With the manage controller running, apply writes the Cluster and the controller applies it.
		managed, err := managedByController(ctx, c, time.Now())
		if err != nil {
			return &ExitError{Code: ExitFindings, Err: err}
		}
		if managed {
			return o.applyThroughController(ctx, c, file, streams)
		}
	}
	facts, err := o.clusterFacts(ctx, c, serverVersion, file, cfg, streams)
	if err != nil {
		return err
	}
	a, err := o.applier(c)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	host, _ := os.Hostname()
	err = a.Apply(ctx, standalone.Request{
		Config: cfg, Facts: facts, CalicoVersion: o.CalicoVersion, DryRun: o.DryRun, Adopt: o.Adopt,
		Timeout: o.Timeout, AcceptBlockers: o.AcceptBlockers, AllowDisruption: o.AllowDisruption, RemoveForeign: o.RemoveForeign, Identity: fmt.Sprintf("%s/%d/%s", host, os.Getpid(), rand.String(5)),
		Components: standalone.WantedComponents(file.Components), Out: streams.Out,
	})
	return o.exit(ctx, err, file, streams)
}

// connect makes the client of --kubeconfig and asks the cluster its Kubernetes version: a cluster
// that does not answer, refuses the credentials or presents a certificate the kubeconfig's CA does
// not verify stops apply before anything is read or changed (clusterRefusal says which).
func (o *ApplyOptions) connect() (client.Client, string, error) {
	// apply reports on its own streams; controller-runtime's client, left without a logger, would print
	// a warning with a stack trace into a long apply (a rollout wait) after 30 seconds.
	ctrllog.SetLogger(logr.Discard())
	scheme, err := newApplyScheme()
	if err != nil {
		return nil, "", err
	}
	c, err := client.New(o.cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, "", fmt.Errorf("--kubeconfig %s: %w", o.Kubeconfig, err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(o.cfg)
	if err != nil {
		return nil, "", fmt.Errorf("--kubeconfig %s: %w", o.Kubeconfig, err)
	}
	sv, err := dc.ServerVersion()
	if err != nil {
		return nil, "", clusterRefusal("--kubeconfig", o.Kubeconfig, o.cfg.Host, o.target, err)
	}
	return c, sv.GitVersion, nil
}

// clusterFacts completes the file's cluster facts from what the cluster says, checks the config
// against them and prints where each fact came from.
func (o *ApplyOptions) clusterFacts(ctx context.Context, c client.Client, serverVersion string, file *standalone.File, cfg *calicov1alpha1.NetworkConfig, streams IO) (standalone.Facts, error) {
	obs, err := standalone.Observe(ctx, c, serverVersion)
	if err != nil {
		return standalone.Facts{}, &ExitError{Code: ExitUsage, Err: err}
	}
	facts, errs := standalone.Complete(file.Facts, obs)
	if len(errs) > 0 {
		return standalone.Facts{}, reportFieldErrors(streams.ErrOut, file.InFile(errs))
	}
	if errs := standalone.ValidateConfig(cfg, facts.IPFamilies); len(errs) > 0 {
		return standalone.Facts{}, reportFieldErrors(streams.ErrOut, file.InFile(errs))
	}
	fmt.Fprintf(streams.Out, "cluster facts:\n")
	for _, s := range facts.Sources {
		fmt.Fprintf(streams.Out, "  %s\n", s)
	}
	return facts, nil
}

// applier is the standalone applier with the image vector of the environment.
func (o *ApplyOptions) applier(c client.Client) (*standalone.Applier, error) {
	vector, err := imagevector.VectorFromEnv(os.LookupEnv, readFileLimited)
	if err != nil {
		return nil, err
	}
	enc, err := pipeline.NewEncoder()
	if err != nil {
		return nil, err
	}
	return &standalone.Applier{Client: c, Encoder: enc, Catalogue: calicoversion.Default(), Vector: vector, Now: time.Now, Poll: o.poll, PrintPlan: o.printPlan}, nil
}

// exit maps the outcome of an apply to apply's exit codes: field errors of the file, an interrupt
// (what was applied stays), a failure, and a dry run's disruptive change, as plan's.
func (o *ApplyOptions) exit(ctx context.Context, err error, file *standalone.File, streams IO) error {
	var fe *standalone.FieldErrors
	switch {
	case errors.As(err, &fe):
		return reportFieldErrors(streams.ErrOut, file.InFile(fe.Errs))
	case err != nil && ctx.Err() != nil:
		if !strings.HasPrefix(err.Error(), "interrupted") {
			err = fmt.Errorf("interrupted (%w): what was applied stays, and the state records the step; run apply again to continue", err)
		}
		return &ExitError{Code: ExitInterrupted, Err: err}
	case err != nil:
		return &ExitError{Code: ExitFindings, Err: err}
	case o.DryRun && o.disruptive && !o.AllowDisruption:
		// plan's exit codes: a disruptive change is a finding unless accepted.
		return &ExitError{Code: ExitFindings, Err: errors.New("the plan above has disruptive changes (nothing was applied); --allow-disruption accepts them as plan does")}
	}
	return nil
}

// printPlan prints plan's report of an apply's decision and notes whether a change is disruptive,
// for apply's exit code.
func (o *ApplyOptions) printPlan(w io.Writer, r standalone.PlanReport) error {
	o.disruptive = r.Summary.Highest == manifestdiff.ClassDisruptive || r.Summary.Highest == manifestdiff.ClassBlocked
	if o.ShowCRDFields {
		po := &PlanOptions{PlanOutput: outputText}
		return po.report(w, r.Diff, r.Blockers, r.Summary, true, r.Move)
	}
	return PrintPlan(w, r)
}

// PrintPlan prints plan's report of an apply's decision (plan's diff, classification, live blockers
// and move), as `plan` does, with each CustomResourceDefinition's schema changes folded into a line
// (their impacts stay): `apply` and the manage controller print alike.
func PrintPlan(w io.Writer, r standalone.PlanReport) error {
	po := &PlanOptions{PlanOutput: outputText, foldKinds: []string{"CustomResourceDefinition"}}
	return po.report(w, r.Diff, r.Blockers, r.Summary, true, r.Move)
}

func newApplyScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, calicov1.AddToScheme, apiextensionsv1.AddToScheme, standalonev1alpha1.AddToScheme} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}
