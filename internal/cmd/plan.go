package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/calicofacts"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/install"
	"github.com/calico-pilot/calico-pilot/internal/manifestdiff"
	"github.com/calico-pilot/calico-pilot/internal/plan"
)

// PlanOptions are the flags of `calico-pilot plan`.
type PlanOptions struct {
	// foldKinds are the kinds whose field changes the text report folds into a line each (apply's
	// CustomResourceDefinitions unless --show-crd-fields).
	foldKinds []string
	// RenderOptions render the target (this calico-pilot, the given Shoot or Network + Cluster).
	RenderOptions
	// Current is the deployed ManagedResource secret (a Secret manifest) or a manifest stream.
	Current string
	// Target is a manifest stream or ManagedResource secret to compare with instead of rendering
	// (e.g. another calico-pilot version's `render` output).
	Target string
	// Kubeconfig reads the live cluster: pools, IPAM blocks, Calico CRDs and their stored versions.
	Kubeconfig string
	// AllowDisruption makes disruptive (but not blocked) changes exit 0.
	AllowDisruption bool
	// PlanOutput is text or json.
	PlanOutput string
	// TargetVersion is the Calico release or line to plan a move to (RenderOptions.CalicoVersion): the
	// target is rendered at it. Without --current, --kubeconfig is a seed's and every calico shoot of it is
	// planned (a table).
	TargetVersion string
	// LiveShoots makes a seed plan read every shoot through its access secret in the seed, as the
	// controller does, for the live checks of the move.
	LiveShoots bool

	live client.Client
}

// NewPlanCommand returns `calico-pilot plan`.
func NewPlanCommand(streams IO) *cobra.Command {
	o := &PlanOptions{}
	cmd := &cobra.Command{
		Use:   "plan --current FILE (--shoot FILE | --network FILE --cluster FILE | --target FILE) [--kubeconfig SHOOT] [--target-version RELEASE|LINE] | plan --kubeconfig SEED --target-version RELEASE|LINE",
		Short: "Preview a config or version change object by object: what changes, what restarts, what is blocked",
		Long: `Compare what is deployed now (--current: the ManagedResource secret of the shoot, e.g.
kubectl get secret -n shoot--p--s <secret of extension-networking-calico-config> -o yaml, or any manifest stream)
with the target: what this calico-pilot renders for the given Shoot or Network + Cluster (put the new
providerConfig in it), or a manifest given with --target. It prints every added, removed and changed object
with what the change does (applied in place, rollout of calico-node/typha, disruptive) and the blockers:
  - a change of an immutable IP pool field (cidr, blockSize);
  - removing an IP pool that still has allocations (needs --kubeconfig);
  - dropping a CRD, or a CRD field that stored objects use (field use needs --kubeconfig);
  - re-enabling an IP pool the cluster's owner disabled (needs --kubeconfig);
  - a downgrade across a CRD storage change (stored versions from --kubeconfig, else the current CRD).
--kubeconfig is the shoot's; plan only reads (IP pools, IPAM blocks, CRDs, and the objects of Calico CRDs
whose schema loses a field).

--target-version RELEASE|LINE plans a move to a Calico release (v3.31.7), or a line meaning its newest
release (v3.32): the target is rendered at it, and plan shows what each component runs now and after,
a release the shoot runs that this calico-pilot no longer carries (retired: it runs as the newest
release of its line from the next reconcile), the restarts in Calico's order (a patch release within a
line: every component in one step; between lines calico-node first going up, Typha and
kube-controllers first going down), the facts of a move between lines (docs/calico-downgrade.md) with
their live checks against the shoot (--kubeconfig: e.g. AdminNetworkPolicies going up,
ClusterNetworkPolicies and policies that would change tier going down), and the known issues of the
target's release (docs/calico-lines.md: what goes wrong and what to do). A fact that blocks and is
found refuses the plan, and so does a target that skips a line (moves go to the adjacent line only:
the message names the line to move to first).
Without --current, --kubeconfig is a seed's: every calico shoot of the seed is planned for
--target-version, as a table (shoot, Kubernetes, current release, target, restarts, blockers), with
each shoot's retired release and the target's known issues below it.

Exit status: 0 safe (prints "no changes" when nothing differs), 1 blocked (a blocker, or a target
that skips a line), or disruptive without --allow-disruption, 2 bad input (an unknown release or line).`,
		Example: `  calico-pilot plan --current mr-secret.yaml --network network.yaml --cluster cluster.yaml
  calico-pilot plan --current mr-secret.yaml --shoot shoot.yaml --kubeconfig shoot.kubeconfig -o json
  calico-pilot plan --current mr-secret.yaml --target other-version.yaml --allow-disruption
  calico-pilot plan --current mr-secret.yaml --network network.yaml --cluster cluster.yaml --target-version v3.32 --kubeconfig shoot.kubeconfig
  calico-pilot plan --kubeconfig seed.kubeconfig --target-version v3.32`,
		Args: cobra.NoArgs,
	}
	return bindOptions(cmd, o, streams)
}

// AddFlags registers render's input flags (plan renders the target like render does) and plan's own.
func (o *PlanOptions) AddFlags(f *pflag.FlagSet) {
	o.RenderOptions.AddFlags(f)
	// plan prints its own report: render's output flags do not apply.
	_ = f.MarkHidden("output-dir")
	_ = f.MarkHidden("seed")
	_ = f.MarkHidden("seed-namespace")
	_ = f.MarkHidden("crds")
	f.Lookup("output").Usage = "output format: text or json"
	f.Lookup("output").DefValue = outputText
	o.Output = outputText
	f.StringVar(&o.Current, "current", "", "the deployed ManagedResource secret (Secret manifest) or a manifest stream (required)")
	f.StringVar(&o.Target, "target", "", "a manifest stream or ManagedResource secret to compare with, instead of rendering")
	f.StringVar(&o.Kubeconfig, "kubeconfig", "", "kubeconfig of the shoot for the live checks (read only); without --current, a seed's (with --target-version)")
	f.BoolVar(&o.AllowDisruption, "allow-disruption", false, "exit 0 on disruptive changes that are not blocked")
	// plan names the line it moves to --target-version; render's --calico-version is the same value.
	_ = f.MarkHidden("calico-version")
	f.BoolVar(&o.LiveShoots, "live-shoots", false, "with a seed plan: read every shoot through its access secret in the seed (gardener-internal, else gardener), as the controller does, and run the move's live checks there (read only; the shoots' API servers must be reachable from here)")
	f.StringVar(&o.TargetVersion, "target-version", "", "Calico release or line to move to ("+calicoversion.Default().Accepted()+"): render the target at it and show the restarts in Calico's order and the facts of the move; without --current, --kubeconfig is a seed's and every calico shoot of it is planned")
}

// Complete parses render's flags and reads --kubeconfig (and the files it names) into the live
// client.
func (o *PlanOptions) Complete() error {
	if o.TargetVersion != "" {
		if o.CalicoVersion != "" && o.CalicoVersion != o.TargetVersion {
			return errors.New("--target-version and --calico-version name the same release: give one")
		}
		o.CalicoVersion, o.versionFlag = o.TargetVersion, "--target-version"
	}
	if err := o.RenderOptions.Complete(); err != nil {
		if o.TargetVersion != "" {
			err = errors.New(strings.Replace(err.Error(), "--calico-version", "--target-version", 1))
		}
		return err
	}
	o.PlanOutput, o.RenderOptions.Output = o.RenderOptions.Output, "yaml"
	if o.Kubeconfig == "" || o.live != nil || o.seedMode() {
		return nil
	}
	c, err := cliClient("--kubeconfig", o.Kubeconfig, clientgoscheme.AddToScheme, calicov1.AddToScheme, apiextensionsv1.AddToScheme)
	if err != nil {
		return err
	}
	o.live = c
	return nil
}

// Validate checks the flag combination.
func (o *PlanOptions) Validate() error {
	if err := checkOutput("output", o.PlanOutput); err != nil {
		return err
	}
	if o.LiveShoots && !o.seedMode() {
		return errors.New("--live-shoots is for a seed plan (--kubeconfig SEED --target-version RELEASE|LINE, no --current); for one shoot give its kubeconfig with --kubeconfig")
	}
	if o.seedMode() {
		if o.Shoot != "" || o.Network != "" || o.Cluster != "" || o.Target != "" {
			return errors.New("a seed plan (--kubeconfig SEED --target-version RELEASE|LINE, no --current) reads every shoot from the seed: drop --shoot, --network, --cluster and --target")
		}
		return nil
	}
	if o.Current == "" {
		return errors.New("--current is required: the deployed ManagedResource secret or manifest (or, for every shoot of a seed, --kubeconfig SEED with --target-version and no --current)")
	}
	// Standard input can be read once: two inputs from it would give the second one nothing.
	var fromStdin []string
	for _, f := range []struct{ flag, path string }{{"--current", o.Current}, {"--target", o.Target}, {"--shoot", o.Shoot}, {"--network", o.Network}, {"--cluster", o.Cluster}} {
		if f.path == stdinPath {
			fromStdin = append(fromStdin, f.flag)
		}
	}
	if len(fromStdin) > 1 {
		return fmt.Errorf("%s all read stdin (-), which can be read once: give all but one of them as files", strings.Join(fromStdin, " and "))
	}
	if o.Target != "" {
		if o.Shoot != "" || o.Network != "" || o.Cluster != "" {
			return errors.New("--target replaces rendering: give either --target or --shoot / --network with --cluster")
		}
		return nil
	}
	return o.RenderOptions.Validate()
}

// Run reads both sides, diffs, classifies, finds the blockers and reports. It only reads, so an
// interrupt stops it at once (exit 130) whatever it is doing: reading an input, decompressing,
// parsing or listing the live cluster.
func (o *PlanOptions) Run(ctx context.Context, streams IO) error {
	return promptly(ctx, streams, func(out, errOut io.Writer) error {
		return o.run(ctx, IO{In: streams.In, Out: out, ErrOut: errOut})
	})
}

// seedMode: without --current, --kubeconfig with --target-version plans every shoot of a seed.
func (o *PlanOptions) seedMode() bool {
	return o.Current == "" && o.Kubeconfig != "" && o.TargetVersion != ""
}

func (o *PlanOptions) run(ctx context.Context, streams IO) error {
	if o.seedMode() {
		return o.runSeed(ctx, streams)
	}
	parser, err := manifestdiff.NewParser()
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	current, err := o.readSet(ctx, parser, "--current", o.Current, streams.In)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	var target *manifestdiff.Set
	if o.Target != "" {
		target, err = o.readSet(ctx, parser, "--target", o.Target, streams.In)
	} else {
		// The CRDs the current manifest deployed are the floor of the target's: a move never renders
		// an older schema (which would delete the newer line's CRDs or prune their fields).
		o.crdFloor = plan.CRDLine(current)
		var m interface{ JSON() []byte }
		m, err = o.build(streams)
		if err != nil {
			var ee *ExitError
			if errors.As(err, &ee) && ee.Code == ExitFindings {
				return &ExitError{Code: ExitUsage, Err: errors.New("the target does not validate (errors above)")}
			}
			return err
		}
		target, err = parser.ManagedResourceData(map[string][]byte{"config.yaml": m.JSON()})
	}
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	d := manifestdiff.Compare(current, target)
	manifestdiff.DefaultClassifier().Classify(d)
	var live *plan.Live
	if o.live != nil {
		if live, err = readLive(ctx, o.live, d); err != nil {
			return &ExitError{Code: ExitUsage, Err: err}
		}
	}
	move, err := o.calicoMove(ctx, current, target, d)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	blockers := append(plan.Blockers(d, live), move.Blockers()...)
	sum := d.Summarize()
	disruptive := sum.Highest == manifestdiff.ClassDisruptive || sum.Highest == manifestdiff.ClassBlocked
	if err := o.report(streams.Out, d, blockers, sum, live != nil, move); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	switch {
	case len(blockers) > 0:
		return &ExitError{Code: ExitFindings, Err: fmt.Errorf("%d blocker(s): the change is refused", len(blockers))}
	case disruptive && !o.AllowDisruption:
		return &ExitError{Code: ExitFindings, Err: errors.New("the change is disruptive; rerun with --allow-disruption to accept it")}
	}
	return nil
}

// readSet reads one side of the plan: a ManagedResource Secret manifest (its data keys) or a
// manifest stream, decided once from the documents (planinput.go).
func (o *PlanOptions) readSet(ctx context.Context, p *manifestdiff.Parser, flag, path string, stdin io.Reader) (*manifestdiff.Set, error) {
	data, err := readInputContext(ctx, path, stdin)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	set, _, err := plan.ReadInput(ctx, p, data)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, inputName(path), err)
	}
	return set, nil
}

// readLive reads the live checks' facts of the cluster of c through the one reader of a running
// install (internal/install): pools, IPAM blocks, CRDs, and the use of the CRDs d changes.
func readLive(ctx context.Context, c client.Client, d *manifestdiff.Diff) (*plan.Live, error) {
	in, err := install.Read(ctx, c)
	if err != nil {
		return nil, err
	}
	return in.Live(ctx, c, plan.ChangedCRDs(d))
}

// calicoMove is the Calico part of the plan: the lines now (from the current manifest's images) and
// after (the target's images, else the line rendered), the restarts in Calico's order, and the facts
// of a move between lines with their live checks when --kubeconfig gives the shoot.
func (o *PlanOptions) calicoMove(ctx context.Context, current, target *manifestdiff.Set, d *manifestdiff.Diff) (plan.Move, error) {
	run := plan.Read(current)
	from, to := run.Deployment, plan.Lines(target)
	if o.Target == "" {
		// Rendered here: the deployment chosen, with the CRD schema kept (images cannot tell it).
		to = o.calico.Deployment
	}
	var objects calicofacts.Objects
	if o.live != nil { // no move between lines, no facts (calicofacts.For): nothing is read
		var err error
		if objects, err = calicofacts.Gather(ctx, o.live, calicofacts.For(from.Node, to.Node)); err != nil {
			return plan.Move{}, err
		}
	}
	return plan.NewMove(from, to, d, o.kubernetes, objects).WithRunning(run), nil
}

type planReport struct {
	Blockers []plan.Blocker  `json:"blockers"`
	Live     bool            `json:"liveChecked"`
	Calico   plan.Move       `json:"calico"`
	Diff     json.RawMessage `json:"diff"`
}

func (o *PlanOptions) report(w io.Writer, d *manifestdiff.Diff, blockers []plan.Blocker, sum manifestdiff.Summary, live bool, move plan.Move) error {
	if o.PlanOutput == outputJSON {
		var buf bytes.Buffer
		if err := d.WriteJSON(&buf); err != nil {
			return err
		}
		if blockers == nil {
			blockers = []plan.Blocker{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(planReport{Blockers: blockers, Live: live, Calico: move, Diff: json.RawMessage(bytes.TrimSpace(buf.Bytes()))})
	}
	if len(d.Objects) == 0 && len(blockers) == 0 {
		_, err := fmt.Fprintf(w, "no changes (%d objects compared)\nCalico: %s, unchanged\n", sum.Unchanged, move.Current)
		for _, r := range move.Retired {
			fmt.Fprintf(w, "note: %s\n", r)
		}
		return err
	}
	if err := d.WriteTextFolding(w, o.foldKinds...); err != nil {
		return err
	}
	writeMove(w, move, live)
	if len(blockers) > 0 {
		fmt.Fprintf(w, "\nblockers:\n")
		for _, b := range blockers {
			fmt.Fprintf(w, "  %s: %s\n", b.Object, b.Message)
		}
	}
	if !live {
		fmt.Fprintf(w, "\n(no --kubeconfig: allocations, disabled pools and stored CRD fields were not checked)\n")
	}
	return nil
}

// writeMove prints the Calico releases and, for a move, the restarts in Calico's order (a patch
// release: every component at once), the facts of a move between lines and the target's known issues.
func writeMove(w io.Writer, m plan.Move, live bool) {
	defer writeKnownIssues(w, m.KnownIssues)
	if m.Direction == "none" {
		fmt.Fprintf(w, "\nCalico: %s, target %s\n", m.Current, m.Target)
		for _, r := range m.Retired {
			fmt.Fprintf(w, "note: %s\n", r)
		}
		return
	}
	kind := map[string]string{"up": "upgrade", "down": "downgrade", "patch": "patch release: every component in one step"}[m.Direction]
	fmt.Fprintf(w, "\nCalico: %s -> %s (%s)\n", m.Current, m.Target, kind)
	for _, r := range m.Retired {
		fmt.Fprintf(w, "note: %s\n", r)
	}
	if m.Refused != "" {
		fmt.Fprintf(w, "refused: %s\n", m.Refused)
	}
	if len(m.Restarts) > 0 {
		fmt.Fprintf(w, "restarts, in Calico's order:\n")
		for _, r := range m.Restarts {
			when := "first"
			switch {
			case m.Direction == "patch":
				when = "all at once"
			case r.Step == 2:
				when = "after step 1 has rolled out"
			}
			fmt.Fprintf(w, "  %d. %s (%s): %s\n", r.Step, r.Workload, when, strings.Join(r.Reasons, "; "))
		}
	}
	if len(m.Facts) == 0 {
		return
	}
	fmt.Fprintf(w, "facts of the move (docs/calico-downgrade.md):\n")
	for _, f := range m.Facts {
		status := ""
		switch f.Status {
		case calicofacts.StatusClear:
			continue
		case calicofacts.StatusNotChecked:
			status = " (not checked: needs --kubeconfig SHOOT)"
			if f.Kubernetes {
				status = " (not checked: the shoot's Kubernetes version is unknown)"
			}
		}
		fmt.Fprintf(w, "  %-7s %s%s\n", f.Severity, f.Summary(), status)
		for _, obj := range f.Objects {
			fmt.Fprintf(w, "          %s\n", obj)
		}
		if f.Count > len(f.Objects) {
			fmt.Fprintf(w, "          ... and %d more\n", f.Count-len(f.Objects))
		}
		if f.Action != "" {
			fmt.Fprintf(w, "          do: %s\n", f.Action)
		}
	}
	if !live {
		fmt.Fprintf(w, "  (live checks need --kubeconfig of the shoot)\n")
	}
}

// writeKnownIssues prints the known issues a move brings (catalogue.yaml), with what to do.
func writeKnownIssues(w io.Writer, issues []plan.KnownIssue) {
	if len(issues) == 0 {
		return
	}
	fmt.Fprintf(w, "known issues of the target (docs/calico-lines.md):\n")
	for _, k := range issues {
		fmt.Fprintf(w, "  %s %s: %s [%s]\n", k.Component, k.Release, k.Title, k.ID)
		fmt.Fprintf(w, "          do: %s\n", k.Action)
	}
}
