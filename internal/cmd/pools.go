package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/pools"
)

// NewPoolsCommand returns `calico-pilot pools`.
func NewPoolsCommand(streams IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pools",
		Short: "Work with a cluster's Calico IP pools safely",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(NewPoolsMigrateCommand(streams))
	return cmd
}

// PoolsMigrateOptions are the flags of `calico-pilot pools migrate`.
type PoolsMigrateOptions struct {
	From, To     string
	Kubeconfig   string
	ClusterCIDRs []string
	DryRun       bool
	DeleteOld    bool
	Output       string

	// client is set by Complete (tests may set it before).
	client client.Client
}

// NewPoolsMigrateCommand returns `calico-pilot pools migrate`.
func NewPoolsMigrateCommand(streams IO) *cobra.Command {
	o := &PoolsMigrateOptions{}
	cmd := &cobra.Command{
		Use:   "migrate --from OLD --to NEW --kubeconfig FILE",
		Short: "Move a cluster from one IP pool to another: check the new pool, disable the old one, count what still uses it",
		Long: `Calico's "migrate IP pools" procedure, made safe and re-runnable. The new pool (--to) must exist: create it
with kubectl first. pools migrate then
  1. checks both pools exist and that the new one can take the pods: enabled, accepted by Calico's pool rules
     (block size, encapsulation), allowedUses with Workload, not assignmentMode Manual, node and namespace
     selectors that parse and can match, same IP family, no overlap with any other pool, inside the cluster's pod
     range (--cluster-cidr, else kubeadm-config's podSubnet; no check when neither is known);
  2. disables the old pool (a merge patch of spec.disabled only; existing pods keep their addresses);
  3. reports the allocation census of the old pool from the IPAM blocks: per node, the pods and tunnel
     addresses that still hold addresses from it;
  4. with --delete-old, deletes the old pool only when the census is empty, and refuses otherwise.
All checks run before the first write; running it again continues where the last run stopped. No Calico CRD
and no IPAM data is ever deleted; only the old pool itself with --delete-old.

Exit status: 0 done (or nothing left to do), 1 the old pool still holds addresses (--delete-old refused) or
--dry-run has writes pending, 2 bad input (missing or unsuitable pool, unreadable kubeconfig).`,
		Example: `  calico-pilot pools migrate --from default-ipv4-ippool --to new-pool --kubeconfig shoot.kubeconfig --dry-run
  calico-pilot pools migrate --from default-ipv4-ippool --to new-pool --kubeconfig shoot.kubeconfig
  calico-pilot pools migrate --from default-ipv4-ippool --to new-pool --kubeconfig shoot.kubeconfig --delete-old -o json`,
		Args: cobra.NoArgs,
	}
	return bindOptions(cmd, o, streams)
}

// AddFlags registers the pools migrate flags.
func (o *PoolsMigrateOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.From, "from", "", "name of the IP pool to move away from (required)")
	fs.StringVar(&o.To, "to", "", "name of the IP pool to move to; it must exist (required)")
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "kubeconfig of the cluster (required)")
	fs.StringSliceVar(&o.ClusterCIDRs, "cluster-cidr", nil, "the cluster's pod range(s) the new pool must lie in (default: kubeadm-config's podSubnet)")
	fs.BoolVar(&o.DryRun, "dry-run", false, "check and report, write nothing")
	fs.BoolVar(&o.DeleteOld, "delete-old", false, "delete the old pool once no address is allocated from it")
	addOutputFlag(fs, &o.Output)
}

// Complete builds the cluster client.
func (o *PoolsMigrateOptions) Complete() error {
	if o.client != nil {
		return nil
	}
	if o.Kubeconfig == "" {
		return errors.New("--kubeconfig is required: the kubeconfig of the cluster whose pools to migrate")
	}
	c, err := cliClient("--kubeconfig", o.Kubeconfig, clientgoscheme.AddToScheme, calicov1.AddToScheme)
	if err != nil {
		return err
	}
	o.client = c
	return nil
}

// Validate checks the flags.
func (o *PoolsMigrateOptions) Validate() error {
	if o.From == "" || o.To == "" {
		return errors.New("--from and --to are required: the names of the old and the new IP pool")
	}
	if err := checkOutput("output", o.Output); err != nil {
		return err
	}
	return nil
}

// poolsMigrateReport is the -o json document.
type poolsMigrateReport struct {
	pools.MigrationPlan
	DryRun bool     `json:"dryRun"`
	Done   []string `json:"applied"`
}

// Run gathers, decides (internal/pools) and writes.
func (o *PoolsMigrateOptions) Run(ctx context.Context, streams IO) error {
	in, err := o.gather(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return interrupted()
		}
		return &ExitError{Code: ExitUsage, Err: err}
	}
	plan, err := pools.PlanMigration(in)
	if err != nil {
		// An unsuitable or missing pool, or IPAM data that does not parse: nothing was written.
		return &ExitError{Code: ExitUsage, Err: err}
	}
	rep := poolsMigrateReport{MigrationPlan: plan, DryRun: o.DryRun}
	if !o.DryRun {
		// The delete's precondition is the old pool as the last write left it: the resourceVersion
		// read by gather, or the one the disable patch returned (the patch changes it).
		old := in.Pool(o.From).DeepCopy()
		for _, step := range plan.Steps {
			if ctx.Err() != nil {
				return &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted before %s; done: %v (run again to continue)", step, rep.Done)}
			}
			if err := o.write(ctx, step, old); err != nil {
				if ctx.Err() != nil {
					return &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted during %s: %w (run again to continue)", step, err)}
				}
				return err
			}
			rep.Done = append(rep.Done, string(step))
		}
	}
	if err := o.print(streams.Out, rep); err != nil {
		return err
	}
	switch {
	case plan.Blocked != "":
		return &ExitError{Code: ExitFindings, Err: errors.New(plan.Blocked)}
	case o.DryRun && len(plan.Steps) > 0:
		return &ExitError{Code: ExitFindings}
	}
	return nil
}

func (o *PoolsMigrateOptions) gather(ctx context.Context) (pools.MigrationInput, error) {
	in := pools.MigrationInput{From: o.From, To: o.To, ClusterCIDRs: o.ClusterCIDRs, DeleteOld: o.DeleteOld}
	var pl calicov1.IPPoolList
	if err := o.client.List(ctx, &pl); err != nil {
		return in, fmt.Errorf("listing IP pools: %w", err)
	}
	in.Pools = pl.Items
	var bl calicov1.IPAMBlockList
	if err := o.client.List(ctx, &bl); err != nil {
		return in, fmt.Errorf("listing IPAM blocks: %w", err)
	}
	in.Blocks = bl.Items
	if len(in.ClusterCIDRs) == 0 {
		cidr, err := kubeadmPodSubnet(ctx, o.client)
		if err != nil {
			return in, err
		}
		if cidr != "" {
			in.ClusterCIDRs = strings.Split(cidr, ",")
		}
	}
	return in, nil
}

// kubeadmPodSubnet reads networking.podSubnet of kube-system/kubeadm-config ("" when absent).
func kubeadmPodSubnet(ctx context.Context, c client.Client) (string, error) {
	var cm corev1.ConfigMap
	err := c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "kubeadm-config"}, &cm)
	if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading kube-system/kubeadm-config: %w", err)
	}
	var cfg struct {
		Networking struct {
			PodSubnet string `json:"podSubnet"`
		} `json:"networking"`
	}
	if err := yaml.Unmarshal([]byte(cm.Data["ClusterConfiguration"]), &cfg); err != nil {
		return "", fmt.Errorf("kube-system/kubeadm-config ClusterConfiguration: %w", err)
	}
	return cfg.Networking.PodSubnet, nil
}

// write does one step on old, the old pool as last read or written; a patch updates it in place
// (resourceVersion included) so that the next step's precondition is the pool this run left.
func (o *PoolsMigrateOptions) write(ctx context.Context, step pools.MigrationStep, old *calicov1.IPPool) error {
	switch step {
	case pools.StepDisableOld:
		if err := o.client.Patch(ctx, old, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"disabled":true}}`))); err != nil {
			return fmt.Errorf("disabling IP pool %s: %w", o.From, err)
		}
	case pools.StepDeleteOld:
		// Count again right before the delete: a pod may have got an address since the first read
		// (the pool was disabled, but one created just before could still be running).
		var bl calicov1.IPAMBlockList
		if err := o.client.List(ctx, &bl); err != nil {
			return fmt.Errorf("listing IPAM blocks: %w", err)
		}
		c, err := pools.TakeCensus(old, bl.Items)
		if err != nil {
			return err
		}
		if c.Allocations() > 0 {
			return &ExitError{Code: ExitFindings, Err: fmt.Errorf("IP pool %q got %d allocation(s) since it was read; it is not deleted, run again", o.From, c.Allocations())}
		}
		rv := old.ResourceVersion
		err = o.client.Delete(ctx, &calicov1.IPPool{ObjectMeta: metav1.ObjectMeta{Name: o.From}}, client.Preconditions{UID: &old.UID, ResourceVersion: &rv})
		switch {
		case apierrors.IsConflict(err):
			// Someone else changed the pool (re-enabled it, changed its CIDR) since this run read or
			// disabled it: what was counted may no longer hold.
			return &ExitError{Code: ExitFindings, Err: fmt.Errorf("IP pool %q was changed by someone else since this run read it; it is not deleted, run again", o.From)}
		case err != nil && !apierrors.IsNotFound(err):
			return fmt.Errorf("deleting IP pool %s: %w", o.From, err)
		}
	}
	return nil
}

func (o *PoolsMigrateOptions) print(w io.Writer, rep poolsMigrateReport) error {
	if o.Output == outputJSON {
		if rep.Steps == nil {
			rep.Steps = []pools.MigrationStep{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "pools migrate %s -> %s\n", rep.From, rep.To)
	for _, s := range rep.Steps {
		verb := "done"
		if rep.DryRun {
			verb = "would run (--dry-run)"
		}
		switch s {
		case pools.StepDisableOld:
			fmt.Fprintf(&b, "disable %s: %s\n", rep.From, verb)
		case pools.StepDeleteOld:
			fmt.Fprintf(&b, "delete %s: %s\n", rep.From, verb)
		}
	}
	c := rep.Census
	fmt.Fprintf(&b, "census of %s (%s): %d block(s), %d pod(s), %d tunnel address(es), %d other\n", c.Pool, c.CIDR, c.Blocks, c.Workloads, c.Tunnels, c.Other)
	for _, n := range c.Nodes {
		fmt.Fprintf(&b, "  %s: %d block(s), %d pod(s), %d tunnel address(es)", n.Node, n.Blocks, n.Workloads, n.Tunnels)
		if len(n.Pods) > 0 {
			fmt.Fprintf(&b, ": %s", strings.Join(n.Pods, ", "))
		}
		b.WriteString("\n")
	}
	if rep.Blocked != "" {
		fmt.Fprintf(&b, "refused: %s\n", rep.Blocked)
	} else if len(rep.Steps) == 0 {
		b.WriteString("nothing left to do\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
