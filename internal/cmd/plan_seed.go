package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/calicofacts"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/controller/network"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/manifestdiff"
	"github.com/calico-pilot/calico-pilot/internal/overlayswitch"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/plan"
	"github.com/calico-pilot/calico-pilot/internal/seedstate"
	"github.com/calico-pilot/calico-pilot/internal/swapcheck"
)

// seedPlanRow is one shoot of a seed plan.
type seedPlanRow struct {
	Namespace string `json:"namespace"`
	Shoot     string `json:"shoot,omitempty"`
	// Kubernetes is the shoot's Kubernetes version.
	Kubernetes string `json:"kubernetes,omitempty"`
	// Move is the Calico part: lines, restarts in order, facts (live checks run only with
	// --live-shoots: the seed's kubeconfig does not reach the shoot by itself).
	Move plan.Move `json:"calico"`
	// Blockers refuse the move for this shoot.
	Blockers []plan.Blocker `json:"blockers"`
	// Errors say why the shoot could not be planned.
	Errors []string `json:"errors,omitempty"`
	// Images are the Calico releases the image vector makes available for the shoot's Kubernetes
	// version (imagevector.Availability), when it lacks some ("v3.31.6 (not v3.31.7, v3.32.1)").
	Images string `json:"images,omitempty"`
}

// runSeed plans the move of every calico shoot of a seed to --target-version: per shoot what it runs
// (the deployed ManagedResource's images, else the Network's recorded line), what it would run, the
// workloads that restart in Calico's order and the blockers (the diff's, and the facts that can be
// checked without the shoot: its Kubernetes version). Read only.
func (o *PlanOptions) runSeed(ctx context.Context, streams IO) error {
	target, err := calicoversion.Default().Resolve(o.TargetVersion)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("--target-version: %w", err)}
	}
	checker, resolver, err := o.seedChecker()
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	c, err := cliClient("--kubeconfig", o.Kubeconfig, network.AddToScheme)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	shoots, err := seedstate.Assemble(ctx, seedstate.ClientSource{Reader: c}, network.Type, network.ManagedResourceName)
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("reading the seed: %w", err)}
	}
	rows := make([]seedPlanRow, 0, len(shoots))
	for _, s := range shoots {
		if err := ctx.Err(); err != nil {
			return err
		}
		var gather liveGather
		if o.LiveShoots {
			gather = func(from, to calicoversion.Release) (calicofacts.Objects, error) {
				return gatherShoot(ctx, c, s.Namespace, from, to)
			}
		}
		rows = append(rows, planSeedShoot(checker, resolver, s, o.TargetVersion, target, gather))
	}
	var b bytes.Buffer
	if o.PlanOutput == outputJSON {
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		err = enc.Encode(rows)
	} else {
		err = writeSeedPlan(&b, rows, target, o.LiveShoots)
	}
	if err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	if _, err := streams.Out.Write(b.Bytes()); err != nil {
		return &ExitError{Code: ExitUsage, Err: err}
	}
	refused := 0
	for _, r := range rows {
		if len(r.Blockers) > 0 || len(r.Errors) > 0 {
			refused++
		}
	}
	if refused > 0 {
		return &ExitError{Code: ExitFindings, Err: fmt.Errorf("%d of %d shoot(s) cannot move to %s as they are", refused, len(rows), target.Name())}
	}
	return nil
}

// seedChecker is swap-check's renderer and comparer with the ControllerConfiguration and feature
// gates of render's flags, and the image vector (with $IMAGEVECTOR_OVERWRITE) to resolve per shoot.
func (o *PlanOptions) seedChecker() (*swapcheck.Checker, *imagevector.Resolver, error) {
	enc, err := pipeline.NewEncoder()
	if err != nil {
		return nil, nil, err
	}
	parser, err := manifestdiff.NewParser()
	if err != nil {
		return nil, nil, err
	}
	vector, err := imagevector.VectorFromEnv(os.LookupEnv, readFileLimited)
	if err != nil {
		return nil, nil, err
	}
	ctrl, errs, err := o.controllerConfig()
	if err != nil {
		return nil, nil, err
	}
	if len(errs) > 0 {
		return nil, nil, fmt.Errorf("--controller-config: %w", errs.ToAggregate())
	}
	fg, err := o.featureGates(ctrl)
	if err != nil {
		return nil, nil, err
	}
	return &swapcheck.Checker{Encoder: enc, Parser: parser, ControllerConfig: ctrl, Settings: pipeline.OperatorSettings(ctrl, fg),
		DataKey: network.ManagedResourceDataKey}, imagevector.NewResolver(vector), nil
}

// planSeedShoot plans one shoot: current lines, render at the target as the controller would after the
// move (CRDs never below what the shoot had), the diff against the deployed manifest, the restarts in
// Calico's order and the blockers.
// asked is --target-version as written: a line names, per shoot, its newest release the image vector
// has for the shoot's Kubernetes version; a target whose images are missing cannot be planned, and
// the error names the entries to add.
func planSeedShoot(checker *swapcheck.Checker, resolver *imagevector.Resolver, s seedstate.Shoot, asked string, target calicoversion.Release, gather liveGather) seedPlanRow {
	row := seedPlanRow{Namespace: s.Namespace, Blockers: []plan.Blocker{}}
	fail := func(msg string) seedPlanRow {
		row.Errors = append(row.Errors, msg)
		row.Move = plan.Move{Current: "unknown", Target: target.Name(), Direction: "none", Restarts: []plan.Restart{}, Facts: []calicofacts.Finding{}, KnownIssues: []plan.KnownIssue{}}
		return row
	}
	if s.Shoot == nil {
		return fail("the Cluster's shoot is not available: " + strings.Join(s.Problems, "; "))
	}
	row.Shoot = s.Shoot.Namespace + "/" + s.Shoot.Name
	row.Kubernetes = s.Shoot.Spec.Kubernetes.Version
	avail := resolver.Availability(row.Kubernetes)
	if len(avail.Missing()) > 0 {
		row.Images = avail.Summary()
	}
	target, err := calicoversion.Default().ResolveAvailable(asked, avail.Func())
	if err != nil {
		return fail(err.Error())
	}
	run, deployed, err := seedCurrent(checker.Parser, s)
	if err != nil {
		return fail(err.Error())
	}
	current := run.Deployment
	next := calicoversion.SteadyWithCRDs(target, current.CRDs)
	if _, err := calicoversion.Default().Plan(current.Node, target); err != nil {
		// Refused (a move that skips a line): nothing to render, the blocker names the line to move to first.
		row.Move = plan.NewMove(current, next, &manifestdiff.Diff{}, row.Kubernetes, nil).WithRunning(run)
		row.Blockers = append(row.Blockers, row.Move.Blockers()...)
		return row
	}
	images, err := resolver.ForShoot(row.Kubernetes, next)
	if err != nil {
		return fail(err.Error())
	}
	ch := *checker
	ch.Settings.Calico, ch.Settings.Images = next, images
	rep := ch.SeedParsed(s, deployed)
	if rep.Verdict == swapcheck.VerdictFails {
		row.Errors = append(row.Errors, rep.Errors...)
	}
	d := rep.Diff
	if d == nil {
		d = &manifestdiff.Diff{}
	}
	var objects calicofacts.Objects
	if gather != nil && !current.Node.SameLine(next.Node) {
		if objects, err = gather(current.Node, next.Node); err != nil {
			// The operator asked for the live checks: a move planned without them is not clear.
			row.Errors = append(row.Errors, fmt.Sprintf("live checks: %v", err))
		}
	}
	row.Move = plan.NewMove(current, next, d, row.Kubernetes, objects).WithRunning(run)
	row.Blockers = append(append(row.Blockers, plan.Blockers(d, nil)...), row.Move.Blockers()...)
	return row
}

// seedCurrent is what a shoot of a seed runs: the deployed manifest's images, else the release its
// Network records, else the catalogue's unrecorded release (Networks deployed before releases were
// recorded); with the releases it runs that this calico-pilot no longer carries (the images' and the
// record's). It returns the parsed deployed manifest too (nil when none), so that it is parsed once.
func seedCurrent(p *manifestdiff.Parser, s seedstate.Shoot) (plan.Running, *manifestdiff.Set, error) {
	f, err := plan.NetworkFacts(s.Network)
	if err != nil {
		return plan.Running{}, nil, err
	}
	var recorded plan.Running
	if f.Deployed {
		d, err := calicoversion.Default().Decide(f)
		if err != nil {
			return plan.Running{}, nil, fmt.Errorf("the Network's %w", err)
		}
		recorded.Deployment = d.Deployment()
		if d.Retired != nil {
			recorded.Retired = append(recorded.Retired, *d.Retired)
		}
	}
	var set *manifestdiff.Set
	if s.Deployed != nil {
		if set, err = p.ManagedResourceData(s.Deployed); err != nil {
			return plan.Running{}, nil, fmt.Errorf("reading the deployed manifest: %w", err)
		}
		if run := plan.Read(set); !run.Deployment.IsZero() {
			if !recorded.Deployment.IsZero() {
				run.Deployment.CRDs = calicoversion.Newer(run.Deployment.CRDs, recorded.Deployment.CRDs)
			}
			for _, r := range recorded.Retired {
				if !slices.ContainsFunc(run.Retired, func(x calicoversion.Recorded) bool { return x.Name == r.Name }) {
					run.Retired = append(run.Retired, r)
				}
			}
			return run, set, nil
		}
	}
	if !recorded.Deployment.IsZero() {
		return recorded, set, nil
	}
	unrecorded := calicoversion.Default().Unrecorded()
	run := plan.Running{Deployment: calicoversion.Steady(unrecorded.Release)}
	if unrecorded.Retired {
		run.Retired = []calicoversion.Recorded{unrecorded}
	}
	return run, set, nil
}

// writeSeedPlan writes the table and, below it, each shoot's notes, errors, blockers and live
// findings, then what the moving shoots share once: the facts of the move and the known issues.
func writeSeedPlan(w *bytes.Buffer, rows []seedPlanRow, target calicoversion.Release, live bool) error {
	if len(rows) == 0 {
		_, err := fmt.Fprintf(w, "no calico shoots found\n")
		return err
	}
	if err := writeSeedTable(w, rows); err != nil {
		return err
	}
	for _, r := range rows {
		writeShootLines(w, r, live)
	}
	if shared := sharedFacts(rows, live); len(shared) > 0 {
		fmt.Fprintf(w, "\n\nfacts of moving to %s (docs/calico-downgrade.md):\n%s", plan.DescribeLines(calicoversion.Steady(target)), strings.Join(shared, "\n"))
	}
	if issues := seedKnownIssues(rows); len(issues) > 0 {
		fmt.Fprintf(w, "\n\n")
		var b bytes.Buffer
		writeKnownIssues(&b, issues)
		w.WriteString(strings.TrimSuffix(b.String(), "\n"))
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// writeSeedTable writes one line per shoot: its name, Kubernetes version, lines, restarts and
// blockers.
func writeSeedTable(w io.Writer, rows []seedPlanRow) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SHOOT\tKUBERNETES\tCURRENT\tTARGET\tRESTARTS\tBLOCKERS")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.name(), orDash(r.Kubernetes), r.Move.Current, r.Move.Target, restartSteps(r.Move.Restarts), r.blockersCell())
	}
	return tw.Flush()
}

// name is the shoot's control-plane namespace, with the shoot when it is known.
func (r seedPlanRow) name() string {
	if r.Shoot == "" {
		return r.Namespace
	}
	return r.Namespace + " (" + r.Shoot + ")"
}

// blockersCell is the table's BLOCKERS cell: "cannot plan", the number of blockers, or "-".
func (r seedPlanRow) blockersCell() string {
	switch {
	case len(r.Errors) > 0:
		return "cannot plan"
	case len(r.Blockers) > 0:
		return fmt.Sprint(len(r.Blockers))
	}
	return "-"
}

// writeShootLines writes a shoot's retirement notes, errors and blockers, and with live checks what
// they found in the shoot that is not a blocker (the blockers among them are listed already).
func writeShootLines(w io.Writer, r seedPlanRow, live bool) {
	if r.Images != "" {
		fmt.Fprintf(w, "\n%s: images: the image vector has Calico %s for Kubernetes %s", r.Namespace, r.Images, r.Kubernetes)
	}
	for _, n := range r.Move.Retired {
		fmt.Fprintf(w, "\n%s: note: %s", r.Namespace, n)
	}
	for _, e := range r.Errors {
		fmt.Fprintf(w, "\n%s: error: %s", r.Namespace, e)
	}
	for _, b := range r.Blockers {
		fmt.Fprintf(w, "\n%s: blocker: %s: %s", r.Namespace, b.Object, b.Message)
	}
	if !live {
		return
	}
	for _, f := range r.Move.Facts {
		if f.Status == calicofacts.StatusFound && f.Severity != calicofacts.Blocker {
			fmt.Fprintf(w, "\n%s: %s: %s", r.Namespace, strings.ToLower(string(f.Severity)), f.Summary())
		}
	}
}

// sharedFacts are the lines of the facts the moving shoots share, each once: not the ones without
// consequence (Info, Clear), not the Kubernetes checks (each shoot's own, in its blockers), and with
// live checks not what they found (each shoot's own lines).
func sharedFacts(rows []seedPlanRow, live bool) []string {
	shown := map[string]bool{}
	var shared []string
	for _, r := range rows {
		for _, f := range r.Move.Facts {
			if shown[f.ID] || !isSharedFact(f, live) {
				continue
			}
			shown[f.ID] = true
			note := ""
			if f.Status == calicofacts.StatusNotChecked {
				note = " (live check: add --live-shoots, or run plan --current ... --kubeconfig SHOOT per shoot)"
			}
			shared = append(shared, fmt.Sprintf("  %-7s %s%s", f.Severity, f.Summary(), note))
		}
	}
	return shared
}

// isSharedFact tells whether a finding belongs to the facts every moving shoot shares (sharedFacts).
func isSharedFact(f calicofacts.Finding, live bool) bool {
	return f.Severity != calicofacts.Info && f.Status != calicofacts.StatusClear && !f.Kubernetes && (!live || f.Status != calicofacts.StatusFound)
}

// seedKnownIssues are the known issues the move brings to any shoot, each once.
func seedKnownIssues(rows []seedPlanRow) []plan.KnownIssue {
	var issues []plan.KnownIssue
	for _, r := range rows {
		for _, k := range r.Move.KnownIssues {
			if !slices.ContainsFunc(issues, func(x plan.KnownIssue) bool { return x.ID == k.ID }) {
				issues = append(issues, k)
			}
		}
	}
	return issues
}

// restartSteps is the restarts in one cell: "1: calico-node; 2: calico-kube-controllers, calico-typha-deploy".
func restartSteps(rs []plan.Restart) string {
	if len(rs) == 0 {
		return "-"
	}
	steps := map[int][]string{}
	for _, r := range rs {
		_, name, _ := strings.Cut(r.Workload, "/")
		steps[r.Step] = append(steps[r.Step], name)
	}
	var parts []string
	for _, s := range []int{1, 2} {
		if len(steps[s]) > 0 {
			parts = append(parts, fmt.Sprintf("%d: %s", s, strings.Join(steps[s], ", ")))
		}
	}
	return strings.Join(parts, "; ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// liveGather reads a shoot's objects for the live checks of a move between two lines; nil: no
// live checks (the seed's kubeconfig does not reach the shoots by itself).
type liveGather func(from, to calicoversion.Release) (calicofacts.Objects, error)

// liveShootTimeout bounds the live checks of one shoot in a seed plan.
const liveShootTimeout = 30 * time.Second

// gatherShoot reads, for the live checks of a move from one line to another, the objects of the
// shoot of a control-plane namespace, reached through its access secret in the seed
// (overlayswitch.ShootRESTConfig, as the controller reaches it). Read only; one shoot that does not
// answer gives up after liveShootTimeout.
func gatherShoot(ctx context.Context, seed client.Reader, namespace string, from, to calicoversion.Release) (calicofacts.Objects, error) {
	ctx, cancel := context.WithTimeout(ctx, liveShootTimeout)
	defer cancel()
	cfg, err := overlayswitch.ShootRESTConfig(ctx, seed, namespace)
	if err != nil {
		return nil, err
	}
	cfg.UserAgent = "calico-pilot-plan"
	cfg.Timeout = liveShootTimeout
	shoot, err := client.New(cfg, client.Options{})
	if err != nil {
		return nil, fmt.Errorf("building the shoot client: %w", err)
	}
	return calicofacts.Gather(ctx, shoot, calicofacts.For(from, to))
}
