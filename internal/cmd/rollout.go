package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/rollout"
)

// NewRolloutCommand returns `calico-pilot rollout`.
func NewRolloutCommand(streams IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rollout",
		Short: "Read and resume the controller's Calico rollout (docs/upgrades.md)",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newRolloutStatusCommand(streams), newRolloutResumeCommand(streams))
	return cmd
}

// RolloutOptions are the flags of `calico-pilot rollout status` and `rollout resume`.
type RolloutOptions struct {
	Kubeconfig string
	Namespace  string

	resume bool
	// client is set by Complete (tests may set it before).
	client client.Client
}

func newRolloutStatusCommand(streams IO) *cobra.Command {
	o := &RolloutOptions{}
	cmd := &cobra.Command{
		Use:   "status --kubeconfig SEED --namespace NAMESPACE",
		Short: "Show the rollout's waves, their shoots and why any failed or were skipped",
		Long: `Reads the rollout state the controller keeps in ConfigMap calico-pilot-rollout of its namespace and prints it
as a table: per wave its state (Waiting, Open, Soaking, Done, Halted), how many shoots it moved and how many of
them succeeded, failed or are pending, how many it skipped; then every failed, gone or skipped shoot with the
reason. Exit status: 0 (also when the rollout is halted: read the headline), 2 bad input or unreadable state.`,
		Example: `  calico-pilot rollout status --kubeconfig seed.kubeconfig --namespace extension-calico-pilot`,
		Args:    cobra.NoArgs,
	}
	return bindOptions(cmd, o, streams)
}

func newRolloutResumeCommand(streams IO) *cobra.Command {
	o := &RolloutOptions{resume: true}
	cmd := &cobra.Command{
		Use:   "resume --kubeconfig SEED --namespace NAMESPACE",
		Short: "Clear a halt: the halted wave's failed shoots get a fresh deadline, the waves go on",
		Long: `Clears the halt recorded in ConfigMap calico-pilot-rollout. The failed shoots of the halted wave become
pending again with a fresh rolloutDeadline from now: one that recovered (or was repaired) succeeds, one that is
still broken fails again and halts the rollout again. To go past a shoot that cannot move, pin it
(providerConfig calicoVersion) or raise the wave's maxFailures first. Nothing is rolled back by a halt or a
resume. The update is optimistic: if the controller wrote the state meanwhile, run it again.
Exit status: 0 resumed, 1 nothing to resume (not halted), 2 bad input or unreadable state.`,
		Example: `  calico-pilot rollout resume --kubeconfig seed.kubeconfig --namespace extension-calico-pilot`,
		Args:    cobra.NoArgs,
	}
	return bindOptions(cmd, o, streams)
}

// AddFlags registers the rollout flags.
func (o *RolloutOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "kubeconfig of the seed the controller runs in (required)")
	fs.StringVar(&o.Namespace, "namespace", "", "the controller's namespace, which holds ConfigMap "+rollout.ConfigMapName+" (required)")
}

// Complete builds the seed client.
func (o *RolloutOptions) Complete() error {
	if o.client != nil || o.Kubeconfig == "" {
		return nil
	}
	c, err := cliClient("--kubeconfig", o.Kubeconfig, clientgoscheme.AddToScheme)
	if err != nil {
		return err
	}
	o.client = c
	return nil
}

// Validate checks the flags.
func (o *RolloutOptions) Validate() error {
	var errs []error
	if o.Kubeconfig == "" && o.client == nil {
		errs = append(errs, errors.New("--kubeconfig is required: the seed whose controller runs the rollout"))
	}
	if o.Namespace == "" {
		errs = append(errs, errors.New("--namespace is required: the controller's namespace (where its leader election Lease is)"))
	}
	return errors.Join(errs...)
}

// Run prints the state, or resumes and prints it.
func (o *RolloutOptions) Run(ctx context.Context, streams IO) error {
	if !o.resume {
		st, found, err := rollout.ReadState(ctx, o.client, o.Namespace)
		if err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
		return rollout.WriteTable(streams.Out, st, found)
	}
	st, resumed, err := rollout.ResumeConfigMap(ctx, o.client, o.Namespace, time.Now())
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if !resumed {
		return &ExitError{Code: ExitFindings, Err: fmt.Errorf("rollout %q is not halted: nothing to resume", st.Rollout)}
	}
	fmt.Fprintf(streams.Out, "Resumed rollout %s: the controller re-evaluates it at its next tick.\n\n", st.Rollout)
	return rollout.WriteTable(streams.Out, st, true)
}
