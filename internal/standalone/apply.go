package standalone

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/install"
	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/manifestdiff"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/plan"
	"github.com/calico-pilot/calico-pilot/internal/pools"
	"github.com/calico-pilot/calico-pilot/internal/rollout"
	"github.com/calico-pilot/calico-pilot/internal/ssa"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// Preview is what apply would change, for plan's report: the live objects and what they become.
type Preview struct {
	Current, Target *manifestdiff.Set
	// From is what runs now (zero on an empty cluster), To what runs after the apply.
	From, To   calicoversion.Deployment
	Kubernetes string
	// PoolFindings are what the pools' sync would report (the owner's edits it keeps, say).
	PoolFindings []pools.Finding
	// Drift is what other field managers hold in the rendered objects that exist.
	Drift []Drift
	// Install is what runs, as apply read it (plan's live checks read it too).
	Install *install.Install

	changes     []objectChange
	replaced    []string
	ignored     []string
	poolActions int
	poolRecords []pools.Record
}

// Request is one apply.
type Request struct {
	Config *calicov1alpha1.NetworkConfig
	Facts  Facts
	// CalicoVersion is --calico-version: the release or line to move to ("" keeps the recorded one).
	CalicoVersion string
	DryRun        bool
	Adopt         bool
	// Timeout bounds the wait for each step's rollout and for CRDs to be Established.
	Timeout time.Duration
	// AcceptBlockers are the plan blockers (Blocker.Object) the user accepts.
	AcceptBlockers []string
	// Layout is where the objects go (the running install's layout: kube-system, or the tigera
	// operator's calico-system); TyphaTLS the Typha TLS material it uses (nil: none). Apply sets both
	// from what runs.
	Layout   layout.Layout
	TyphaTLS *layout.TyphaTLS
	// takeover is true while apply takes the tigera operator's install over: the operator's
	// workloads are replaced rather than merged into (replaceLive; the operator's own fields would
	// contradict calico-pilot's, an env var with both value and valueFrom).
	takeover bool
	// encapsulationStated: the file states the pools' encapsulation (install.Judgement).
	encapsulationStated bool
	// Components is what the cluster file says of the optional components (nil: keep what runs).
	Components ComponentsWanted
	// components are the optional components the render includes, with their TLS checksums
	// (decided by planComponents).
	components values.Components
	// noDefaultPools is values.Settings.NoDefaultPools, kept from what runs (keepRuntime).
	noDefaultPools bool
	// operatorReplicas is what the tigera operator ran with before a takeover stopped it.
	operatorReplicas int32
	// ignored are the objects (ObjectRef.String) annotated IgnoreAnnotation "true": left alone.
	ignored map[string]bool
	// unchanged are the objects (ObjectRef.String) a server-side apply leaves as they are, for the
	// one step of an apply that is no move (a move's steps change what the decision read).
	unchanged map[string]bool
	// replace are the workloads (ObjectRef.String) the decision replaces in place rather than
	// applies into: the tigera operator's, as it wrote them (replaceLive).
	replace map[string]bool
	// RemoveForeign names the objects (as plan prints them, or "all") whose fields set by other
	// managers apply removes; the others keep them (server-side apply leaves them alone).
	RemoveForeign []string
	// AllowDisruption accepts a plan with disruptive changes (an IP pool's encapsulation on every
	// node at once, say); without it apply refuses them, as plan and --dry-run do.
	AllowDisruption bool
	// Identity holds the Lease.
	Identity string
	// Out receives what apply decides and does.
	Out io.Writer
}

// Verdict is what plan makes of a Preview: its blockers, and whether a change is disruptive.
type Verdict struct {
	Blockers   []plan.Blocker
	Disruptive bool
}

// Applier applies rendered Calico to one cluster.
type Applier struct {
	Client    client.Client
	Encoder   *pipeline.Encoder
	Catalogue *calicoversion.Catalogue
	Vector    *imagevector.Vector
	Now       func() time.Time
	// Poll is how often rollouts and CRDs are polled.
	Poll time.Duration
	// PrintPlan writes plan's report of a decision for a person (nil: none).
	PrintPlan func(w io.Writer, r PlanReport) error

	// cmps are the no-op judges by the content of the rendered CRDs (comparer).
	cmpMu sync.Mutex
	cmps  map[string]*ssa.Comparer
}

// BlockedError is an apply refused by plan blockers that were not accepted.
type BlockedError struct{ Blockers []plan.Blocker }

func (e *BlockedError) Error() string {
	var ids []string
	for _, b := range e.Blockers {
		ids = append(ids, fmt.Sprintf("%q", b.Object))
	}
	return fmt.Sprintf("%d blocker(s) refuse the apply (listed above): nothing was changed; after reading them, accept one with --accept-blocker %s", len(e.Blockers), strings.Join(ids, " --accept-blocker "))
}

// AdoptionError refuses objects calico-pilot did not apply without --adopt.
type AdoptionError struct{ Objects []string }

func (e *AdoptionError) Error() string {
	return fmt.Sprintf("%d object(s) exist that calico-pilot did not apply (%s): this looks like an install from upstream's calico.yaml; "+
		"review what changes with --dry-run, then take them over with --adopt (their fields become calico-pilot's)", len(e.Objects), strings.Join(first(e.Objects, 5), ", "))
}

// ErrDisruptive refuses a plan with disruptive changes not accepted.
var ErrDisruptive = errors.New("the plan above has disruptive changes: nothing was changed; after reading them, accept them with --allow-disruption")

// RolloutTimeoutError is a step whose rollout did not complete in time: what holds it and what to do.
type RolloutTimeoutError struct{ Message string }

func (e *RolloutTimeoutError) Error() string { return e.Message }

// FieldErrors are invalid input with paths in the cluster file.
type FieldErrors struct{ Errs field.ErrorList }

func (e *FieldErrors) Error() string { return e.Errs.ToAggregate().Error() }

// pass is one rendered step of an apply.
type pass struct {
	deployment calicoversion.Deployment
	phase      calicoversion.Phase
	// wait are the components whose rollout ends the pass.
	wait []calicoversion.Component
}

// Apply decides, prints the decision and executes it. It returns after the last step rolled out,
// or with an error that says where it stopped; the state in the cluster lets the next apply continue
// from there. A dry run prints the decision and stops.
func (a *Applier) Apply(ctx context.Context, req Request) (err error) {
	if req.DryRun {
		d, err := a.Decide(ctx, req)
		if err != nil {
			return err
		}
		d.Print(req.Out)
		return d.dryRunVerdict(req.Out)
	}
	release, err := a.lock(ctx, req)
	if err != nil {
		return err
	}
	defer keepFirstError(&err, release)
	d, err := a.Decide(ctx, req)
	if err != nil {
		return err
	}
	d.Print(req.Out)
	if err := d.admit(); err != nil {
		return err
	}
	if d.Empty() {
		return a.sayWhatRuns(ctx, req.Out, "no changes, nothing was written", d.Request.Layout.OrDefault().Namespace, d.State)
	}
	return a.Execute(ctx, d, req.Out)
}

// Reconcile is one reconcile of a controller that keeps the cluster (calico-pilot manage): the
// decision, executed only when it is not empty, so that an unchanged cluster gets reads only (no
// Lease, no state, no object written). A decision with work takes the Lease and is decided again
// under it before it is executed. out receives the decision and what is done.
func (a *Applier) Reconcile(ctx context.Context, req Request) (d *Decision, err error) {
	if d, err = a.Decide(ctx, req); err != nil || d.Empty() {
		return d, err
	}
	release, err := a.lock(ctx, req)
	if err != nil {
		return d, err
	}
	defer keepFirstError(&err, release)
	if d, err = a.Decide(ctx, req); err != nil {
		return d, err
	}
	d.Print(req.Out)
	if err := d.admit(); err != nil {
		return d, err
	}
	if d.Empty() {
		return d, nil
	}
	return d, a.Execute(ctx, d, req.Out)
}

// Execute carries a decision out: the hand-over of the install source, then each step, then the
// prune and the state. out receives what is done.
func (a *Applier) Execute(ctx context.Context, d *Decision, out io.Writer) error {
	req := d.Request
	req.Out = out
	st := d.State
	w, err := newStateWriter(a.Client, d.recorded, d.Found)
	if err != nil {
		return err
	}
	t := d.takeover
	if !d.handOverNeeded() {
		t = nil
	}
	takenOverNow := t != nil && st.Operator == nil
	if st.Release == "" && st.Move == nil && !d.Release.Current.IsZero() {
		// What runs is recorded before the first write of the hand-over or a step.
		st.Release = d.Release.Current.Name()
	}
	if t != nil {
		if err := a.handOver(ctx, req, w, &st, t, d.Install, refs(d.Final)); err != nil {
			return err
		}
	}
	if err := a.runTLSSteps(ctx, req, d); err != nil {
		return err
	}
	last := d.Passes[len(d.Passes)-1]
	for _, p := range d.Passes {
		res, err := a.renderPass(req, p, last, d.Final)
		if err != nil {
			return err
		}
		if err := a.step(ctx, req, w, &st, d.Release, p, res); err != nil {
			return err
		}
	}
	if err := a.finish(ctx, out, w, st, d.Final, last, req.Layout.OrDefault().Namespace, d.components.enabledNames()); err != nil {
		return err
	}
	if takenOverNow && t.op.Installation != nil {
		fmt.Fprintf(out, "the Installation %s stays, owning nothing and without finalizers: with the operator stopped it reverts nothing; delete it (kubectl delete installation %s) "+
			"once you no longer want to give Calico back to the operator\n", t.op.Installation.GetName(), t.op.Installation.GetName())
	}
	return nil
}

// lock takes the Lease for an apply that writes (a dry run writes nothing and takes none). release
// gives it back, also when ctx has ended.
func (a *Applier) lock(ctx context.Context, req Request) (release func() error, err error) {
	if req.DryRun {
		return func() error { return nil }, nil
	}
	lk, err := Acquire(ctx, a.Client, req.Identity, a.Now)
	if err != nil {
		return nil, err
	}
	return func() error {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		return lk.Release(rctx)
	}, nil
}

// keepFirstError runs release and keeps its error in *err unless an earlier one is there.
func keepFirstError(err *error, release func() error) {
	if rerr := release(); rerr != nil && *err == nil {
		*err = rerr
	}
}

// releaseFacts gathers what the release decision needs: the recorded release (for an install
// calico-pilot did not record, the release every component runs, read from their images), the
// newest CRDs the state records or the cluster holds, the move in progress and the pin.
func (a *Applier) releaseFacts(req Request, st State, found bool, in *install.Install) (calicoversion.Facts, error) {
	recorded, adopting, err := a.recordedRelease(req, st, found, in)
	if err != nil {
		return calicoversion.Facts{}, err
	}
	crds, err := a.crdFloor(req.Out, st, found, in)
	if err != nil {
		return calicoversion.Facts{}, err
	}
	facts := calicoversion.Facts{Recorded: recorded, RecordedCRDs: crds, Deployed: found || adopting, Kubernetes: req.Facts.KubernetesVersion, Now: a.Now()}
	if m := st.Move; m != nil {
		a.moveFacts(req, m, &facts)
	}
	facts.Pin = askedPin(req)
	return facts, nil
}

// recordedRelease is the release the state records; without a state, the release every Calico
// component runs (adopting: an install calico-pilot did not record, or whose state was lost), read
// from their images: one the catalogue does not carry, or a mixed read, is refused (install.ReleaseOf).
func (a *Applier) recordedRelease(req Request, st State, found bool, in *install.Install) (release string, adopting bool, err error) {
	if (found && (st.Release != "" || st.Move != nil)) || !in.Found() {
		return st.Release, false, nil
	}
	var pin *calicoversion.Release
	if p := askedPin(req); p != nil {
		if r, err := a.Catalogue.Resolve(*p); err == nil {
			pin = &r
		}
	}
	running, err := in.ReleaseOf(a.Catalogue, pin)
	if err != nil {
		return "", false, err
	}
	if in.ByCalicoPilot() {
		fmt.Fprintf(req.Out, "state: %s/%s is missing, although calico-pilot applied calico-node: rebuilt from the cluster (Calico %s from the images: %s)\n",
			Namespace, StateConfigMap, running.Release, strings.Join(running.Images, ", "))
	} else {
		fmt.Fprintf(req.Out, "running: Calico %s (%s)\n", running.Release, strings.Join(running.Images, ", "))
	}
	return running.Release.Name(), true, nil
}

// crdFloor is the newest CRD release of the state's record and of the CRDs the cluster holds (read
// from their schema): CRDs never go down, also when the state was lost or restored from an older
// backup. It says when the cluster's CRDs are newer than the state says.
func (a *Applier) crdFloor(out io.Writer, st State, found bool, in *install.Install) (string, error) {
	held, err := in.CRDRelease(a.Catalogue)
	if err != nil {
		return "", err
	}
	recorded, err := a.Catalogue.Recorded(st.CRDRelease)
	if err != nil {
		return "", fmt.Errorf("the state ConfigMap %s/%s crdRelease: %w", Namespace, StateConfigMap, err)
	}
	if held.IsZero() || (!recorded.Release.IsZero() && recorded.Release.Line().Compare(held.Line()) >= 0) {
		return st.CRDRelease, nil
	}
	switch {
	case found && st.CRDRelease != "":
		fmt.Fprintf(out, "CRDs: the cluster's CRDs are those of Calico %s (read from their schema), newer than the state's record (%s): kept at %s, CRDs never go down\n", held.Line(), st.CRDRelease, held.Line())
	default:
		fmt.Fprintf(out, "CRDs: the cluster's CRDs are those of Calico %s (read from their schema): kept at %s or newer, CRDs never go down\n", held.Line(), held.Line())
	}
	return held.Name(), nil
}

// moveFacts records the move in progress m in facts.
func (a *Applier) moveFacts(req Request, m *MoveState, facts *calicoversion.Facts) {
	facts.Moving = &calicoversion.MoveRecord{From: m.From, To: m.To, Phase: m.Phase, Started: m.Started}
	asked, err := a.Catalogue.Resolve(req.CalicoVersion)
	if req.CalicoVersion == "" || err != nil || asked.Name() == m.To {
		return
	}
	// A move in progress completes, unless its way is given up explicitly (a step that does
	// not roll out): the cluster then moves from the release the move started from, which
	// every component not yet moved still runs, to the asked one; the CRDs stay.
	fmt.Fprintf(req.Out, "giving up the move %s -> %s (phase %s): --calico-version asks for %s\n", m.From, m.To, m.Phase, asked)
	facts.Moving, facts.Recorded = nil, m.From
}

// askedPin is the release the user asks for: --calico-version, else the file's
// networkConfig.calicoVersion (nil: none).
func askedPin(req Request) *string {
	if req.CalicoVersion != "" {
		return &req.CalicoVersion
	}
	return req.Config.CalicoVersion
}

// decide is the release decision for the cluster, reported; a pin it does not follow is an error.
func (a *Applier) decide(req Request, facts calicoversion.Facts) (calicoversion.Decision, error) {
	d, err := a.Catalogue.Decide(facts)
	if err != nil {
		return calicoversion.Decision{}, fmt.Errorf("the state ConfigMap %s/%s: %w", Namespace, StateConfigMap, err)
	}
	if note, err := kubernetesWords(a.Catalogue, d, facts, req.Facts); err != nil || note != "" {
		if err != nil {
			return calicoversion.Decision{}, err
		}
		fmt.Fprintf(req.Out, "Calico: %s\n", note)
		return d, nil
	}
	if d.Status == calicoversion.ConditionFalse && facts.Pin != nil {
		// Decide speaks of a shoot and its owner's pin; here the pin is --calico-version (or the file's
		// networkConfig.calicoVersion) and the shoot is this cluster.
		return calicoversion.Decision{}, fmt.Errorf("calico version: %s", clusterWords(d.Message))
	}
	fmt.Fprintf(req.Out, "Calico: %s\n", clusterWords(d.Message))
	return d, nil
}

// keep takes the settings the file leaves out from what runs (install.Keep) when apply takes an
// install over (no state, or an adoption recorded without its kept settings), and from the state's
// record of an adoption afterwards (install.FillFrom: a calico-pilot install's own objects are not
// read back, so that a field someone changed by hand is restored, not kept); it replaces the
// request's NetworkConfig with the kept one and prints what was kept and what the file contradicts.
func (a *Applier) keep(req *Request, in *install.Install, st *State, found bool) install.Judgement {
	var j install.Judgement
	switch {
	case found && st.Kept != nil:
		j = install.FillFrom(req.Config, st.Kept, fmt.Sprintf("recorded at the adoption in %s/%s", Namespace, StateConfigMap), pathNetworkConfig)
	case !found || st.Adopted:
		j = in.Keep(req.Config, req.Facts.IPFamilies, pathNetworkConfig)
		if in.Found() {
			st.Kept = j.Recorded
		}
	default:
		return install.Judgement{Config: req.Config}
	}
	req.Config, req.encapsulationStated = j.Config, j.StatesEncapsulation
	if len(j.Kept) > 0 {
		fmt.Fprintf(req.Out, "kept from the cluster (the file leaves them out):\n")
		for _, k := range j.Kept {
			fmt.Fprintf(req.Out, "  %s\n", k)
		}
	}
	if len(j.Contradictions) > 0 {
		fmt.Fprintf(req.Out, "the file differs from what runs:\n")
		for _, c := range j.Contradictions {
			fmt.Fprintf(req.Out, "  %s\n", c)
		}
	}
	return j
}

// printBlockers prints the blockers of the file's contradictions (the plan printed its own).
func printBlockers(out io.Writer, contradictions []install.Contradiction) {
	for _, c := range contradictions {
		if c.Blocker {
			fmt.Fprintf(out, "blocker: %s\n", c)
		}
	}
}

// unaccepted are the blockers whose object is not among accepted.
func unaccepted(blockers []plan.Blocker, accepted []string) []plan.Blocker {
	var refused []plan.Blocker
	for _, b := range blockers {
		if !slices.Contains(accepted, b.Object) {
			refused = append(refused, b)
		}
	}
	return refused
}

// dryRunVerdict ends a dry run: a note on the objects an apply would take over, and the blockers
// that would refuse it.
func (d *Decision) dryRunVerdict(out io.Writer) error {
	req, st, foreign, v := d.Request, d.State, d.Foreign, d.Verdict
	req.Out = out
	switch {
	case len(foreign) > 0 && !st.Adopted && req.Adopt:
		fmt.Fprintf(req.Out, "note: %d object(s) exist that calico-pilot did not apply (%s); this apply with --adopt takes them over\n", len(foreign), strings.Join(first(foreign, 5), ", "))
	case len(foreign) > 0 && !st.Adopted:
		fmt.Fprintf(req.Out, "note: %d object(s) exist that calico-pilot did not apply (%s); apply takes them over only with --adopt\n", len(foreign), strings.Join(first(foreign, 5), ", "))
	}
	if len(v.Blockers) > 0 {
		return &BlockedError{Blockers: v.Blockers}
	}
	return nil
}

// admit refuses an apply that blockers not accepted stand against, that has disruptive changes not
// accepted with --allow-disruption, or that would take over objects calico-pilot did not apply
// without --adopt; it records an adoption in the decision's state.
func (d *Decision) admit() error {
	req, st, foreign, v := d.Request, &d.State, d.Foreign, d.Verdict
	if len(v.Blockers) > 0 {
		return &BlockedError{Blockers: v.Blockers}
	}
	if len(foreign) > 0 && !req.Adopt && !st.Adopted {
		return &AdoptionError{Objects: foreign}
	}
	if v.Disruptive && !req.AllowDisruption {
		return ErrDisruptive
	}
	if len(foreign) > 0 {
		st.Adopted = true
	}
	return nil
}

// adoptPools is what a pool adopted now gets: the file's encapsulation when it states one (the owner
// asked, and the plan shows it), else the one it runs with (pools.AdoptAsTheyRun).
func adoptPools(stated bool, res pools.Result, desired, live []calicov1.IPPool) pools.Result {
	if stated {
		return pools.AdoptAsConfigured(res, desired, live)
	}
	return pools.AdoptAsTheyRun(res, desired)
}

// renderPass is the render of pass p: final (rendered by review) for the last step's deployment.
func (a *Applier) renderPass(req Request, p, last pass, final pipeline.Result) (pipeline.Result, error) {
	if p.deployment == last.deployment {
		return final, nil
	}
	return a.render(req, p.deployment)
}

// step applies one pass: the state it records first, its objects and pools, the state with the
// pools' records, then the wait for its rollout. w writes the state when it changed.
func (a *Applier) step(ctx context.Context, req Request, w *stateWriter, st *State, d calicoversion.Decision, p pass, res pipeline.Result) error {
	a.recordStep(req.Out, st, d, p)
	if err := w.write(ctx, *st, a.Now()); err != nil {
		return err
	}
	records, err := a.applyPass(ctx, req, res, *st)
	if err != nil {
		return err
	}
	st.Pools = pools.ToStatus(records)
	if err := w.write(ctx, *st, a.Now()); err != nil {
		return err
	}
	if err := a.waitRollout(ctx, req, res, p, d); err != nil {
		return err
	}
	o, err := split(res)
	if err != nil {
		return err
	}
	return a.applyAll(ctx, o.apiServices, req)
}

// recordStep sets in st what a step records before anything is applied: the move's phase (and says
// so), or the release; and the newest CRDs ever applied.
func (a *Applier) recordStep(out io.Writer, st *State, d calicoversion.Decision, p pass) {
	if d.Moving() {
		st.Move = &MoveState{From: d.Move.From.Name(), To: d.Move.To.Name(), Phase: string(p.phase), Started: d.Started}
		if st.Move.Started.IsZero() {
			st.Move.Started = a.Now()
		}
		fmt.Fprintf(out, "step %s of the move %s -> %s: %s\n", p.phase, d.Move.From, d.Move.To, d.Move.Describe(p.phase))
	} else {
		// Recorded before anything is applied: an apply that stops half-way (a timeout, Ctrl-C)
		// leaves a state from which the next one decides the same release, not the catalogue's
		// release for an unrecorded install.
		st.Release = p.deployment.Node.Name()
	}
	st.CRDRelease = calicoversion.Newer(p.deployment.CRDs, mustRecorded(a.Catalogue, st.CRDRelease)).Name()
}

// finish deletes what calico-pilot applied and no longer renders, and records the steady state.
func (a *Applier) finish(ctx context.Context, out io.Writer, w *stateWriter, st State, final pipeline.Result, last pass, ns string, components []string) error {
	rendered := refs(final)
	if err := a.prune(ctx, out, st.Owned, rendered); err != nil {
		return err
	}
	st.Owned, st.Move = rendered, nil
	st.Release = last.deployment.Node.Name()
	st.Components = components
	if err := w.write(ctx, st, a.Now()); err != nil {
		return err
	}
	return a.sayWhatRuns(ctx, out, "applied", ns, st)
}

// sayWhatRuns ends an apply: the release every Calico workload of the namespace runs, read from all
// of them (calico-pilot's and any other), or which run another release.
func (a *Applier) sayWhatRuns(ctx context.Context, out io.Writer, verb, ns string, st State) error {
	same, others, err := a.runsWhere(ctx, ns, st.Release)
	if err != nil {
		return err
	}
	if len(others) == 0 {
		fmt.Fprintf(out, "%s: Calico %s runs on every component (CRDs of %s); state in %s/%s\n", verb, st.Release, st.CRDRelease, Namespace, StateConfigMap)
		return nil
	}
	fmt.Fprintf(out, "%s: Calico %s runs on %s (CRDs of %s); another release runs on %s; state in %s/%s\n",
		verb, st.Release, strings.Join(same, ", "), st.CRDRelease, strings.Join(others, ", "), Namespace, StateConfigMap)
	return nil
}

// clusterWords rewords a decision's message (written for a shoot and its owner's pin) for a plain
// cluster, where the pin is --calico-version or the file's networkConfig.calicoVersion.
func clusterWords(msg string) string {
	return strings.NewReplacer(
		"asked by its owner's pin (providerConfig calicoVersion)", "asked by --calico-version or networkConfig.calicoVersion",
		"its owner's pin (providerConfig calicoVersion)", "the asked release (--calico-version or networkConfig.calicoVersion)",
		"providerConfig calicoVersion", "the asked release", "the shoot", "the cluster").Replace(msg)
}

func first(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(slices.Clone(s[:n]), fmt.Sprintf("and %d more", len(s)-n))
}

func mustRecorded(cat *calicoversion.Catalogue, name string) calicoversion.Release {
	r, _ := cat.Recorded(name) // a bad record was refused by Decide already
	return r.Release
}

// planPasses lists the steps an apply takes: one for a steady cluster; for a move, each remaining
// phase in Calico's order, each waiting for the components it changed.
func planPasses(cat *calicoversion.Catalogue, d calicoversion.Decision) []pass {
	if !d.Moving() {
		return []pass{{deployment: d.Deployment(), wait: calicoversion.AllComponents()}}
	}
	var out []pass
	if d.Phase == calicoversion.PhaseFirst {
		out = append(out, pass{deployment: d.Move.Deployment(calicoversion.PhaseFirst, d.CRDs), phase: calicoversion.PhaseFirst, wait: withOptional(cat, d.Move.Changed(calicoversion.PhaseFirst))})
	}
	return append(out, pass{deployment: d.Move.Deployment(calicoversion.PhaseComplete, d.CRDs), phase: calicoversion.PhaseComplete, wait: withOptional(cat, d.Move.Changed(calicoversion.PhaseComplete))})
}

// withOptional adds to a step's core components the optional ones that move with them (the
// catalogue's moves.with), so that the step waits for their rollout too.
func withOptional(cat *calicoversion.Catalogue, core []calicoversion.Component) []calicoversion.Component {
	out := slices.Clone(core)
	for _, o := range calicoversion.Optional() {
		if slices.Contains(core, cat.MovesWith(o)) {
			out = append(out, o)
		}
	}
	return out
}

// render runs the pipeline for the cluster at deployment dep.
func (a *Applier) render(req Request, dep calicoversion.Deployment) (pipeline.Result, error) {
	images, err := imagevector.NewResolver(a.Vector).ForShoot(req.Facts.KubernetesVersion, dep)
	if err != nil {
		return pipeline.Result{}, err
	}
	// The pipeline also renders a shoot's seed-side monitoring, which needs a control-plane namespace;
	// a plain cluster has no seed, so those objects are rendered for a name and never applied.
	src := pipeline.Source{Shoot: req.Facts.Shoot(nil), SeedNamespace: "no-seed"}
	res, errs, err := a.Encoder.Render(src, req.Config, values.Settings{Images: images, Calico: dep, Layout: req.Layout, TyphaTLS: req.TyphaTLS, NoDefaultPools: req.noDefaultPools, Components: req.components})
	if err != nil {
		return pipeline.Result{}, fmt.Errorf("rendering Calico %s: %w", dep, err)
	}
	if len(errs) > 0 {
		return pipeline.Result{}, &FieldErrors{Errs: FileErrors(errs)}
	}
	return res, nil
}

// objects are the rendered objects apply writes with server-side apply, by kind group, in the order
// they are applied; IP pools are not among them (internal/pools creates them once).
type objects struct {
	crds, rbac, other, workloads, apiServices []*unstructured.Unstructured
}

func split(res pipeline.Result) (objects, error) {
	var o objects
	for _, doc := range res.Manifest.Docs() {
		if doc.Kind == "IPPool" {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := json.Unmarshal(doc.JSON, &u.Object); err != nil {
			return objects{}, fmt.Errorf("decoding rendered %s: %w", doc.ID(), err)
		}
		unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
		switch doc.Kind {
		case "CustomResourceDefinition":
			o.crds = append(o.crds, u)
		case "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
			o.rbac = append(o.rbac, u)
		case "DaemonSet", "Deployment":
			o.workloads = append(o.workloads, u)
		case "APIService":
			// Applied once its backend rolled out: the aggregator never points at an API server
			// that is not there (or not trusted) yet.
			o.apiServices = append(o.apiServices, u)
		default:
			o.other = append(o.other, u)
		}
	}
	return o, nil
}

func (o objects) all() []*unstructured.Unstructured {
	return slices.Concat(o.crds, o.rbac, o.other, o.workloads, o.apiServices)
}

func refOf(u *unstructured.Unstructured) ObjectRef {
	return ObjectRef{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()}
}

func refs(res pipeline.Result) []ObjectRef {
	o, _ := split(res)
	var out []ObjectRef
	for _, u := range o.all() {
		out = append(out, refOf(u))
	}
	for _, p := range res.Pools {
		out = append(out, ObjectRef{APIVersion: "crd.projectcalico.org/v1", Kind: "IPPool", Name: p.Name})
	}
	return out
}

// ssa applies u under calico-pilot's field manager. Force: the fields of objects calico-pilot
// applies are its own (adoption is decided before anything is applied).
func (a *Applier) ssa(ctx context.Context, u *unstructured.Unstructured, dryRun bool) error {
	opts := []client.ApplyOption{client.FieldOwner(FieldManager), client.ForceOwnership}
	if dryRun {
		opts = append(opts, client.DryRunAll)
	}
	if err := a.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), opts...); err != nil {
		return fmt.Errorf("applying %s: %w", refOf(u), err)
	}
	return nil
}

// applyPass writes one step: CRDs (waiting until Established), RBAC, the other objects, the IP
// pools (created once, internal/pools), then the workloads.
func (a *Applier) applyPass(ctx context.Context, req Request, res pipeline.Result, st State) ([]pools.Record, error) {
	o, err := split(res)
	if err != nil {
		return nil, err
	}
	if err := a.applyAll(ctx, o.crds, req); err != nil {
		return nil, err
	}
	if err := a.waitEstablished(ctx, req.Timeout, o.crds); err != nil {
		return nil, err
	}
	if err := a.applyAll(ctx, slices.Concat(o.rbac, o.other), req); err != nil {
		return nil, err
	}
	records, err := a.syncPools(ctx, req, res.Pools, st)
	if err != nil {
		return nil, err
	}
	if err := a.applyAll(ctx, o.workloads, req); err != nil {
		return nil, err
	}
	return records, nil
}

// applyAll applies each of us in order (copies: the rendered objects stay as rendered), and removes
// the fields other managers set in those remove names. A live object annotated IgnoreAnnotation
// "true" is left alone.
func (a *Applier) applyAll(ctx context.Context, us []*unstructured.Unstructured, req Request) error {
	for _, u := range us {
		if req.ignored[refOf(u).String()] {
			// Annotated IgnoreAnnotation "true": its owner took it over for a while (the decision says so).
			continue
		}
		if req.unchanged[refOf(u).String()] {
			// The decision found that a server-side apply leaves it as it is.
			continue
		}
		if req.replace[refOf(u).String()] {
			if _, err := a.replaceLive(ctx, u.DeepCopy(), false, true); err != nil {
				return err
			}
		}
		applied := u.DeepCopy()
		if err := a.ssa(ctx, applied, false); err != nil {
			return err
		}
		if wanted(req.RemoveForeign, refOf(u).String()) {
			if err := a.removeForeign(ctx, applied); err != nil {
				return err
			}
		}
	}
	return nil
}

// IgnoreAnnotation on an object calico-pilot applies, with the value "true", makes apply leave the
// object as it is (the analogue of the tigera operator's unsupported.operator.tigera.io/ignore): a
// person takes it over for a while, to debug or to try a change, and removes the annotation to give
// it back.
const IgnoreAnnotation = "calico-pilot.dev/ignore"

// replaceLive puts u in the place of the live object of its name, with an update that keeps the
// object (its UID, so its pods roll) and drops every field calico-pilot does not render: a takeover
// of workloads the tigera operator wrote with updates, whose fields merged with calico-pilot's would
// contradict them. The Service-assigned and server fields are the API server's to keep.
// An object calico-pilot applied already (a later apply of the takeover) is left to server-side
// apply. replaced says whether it replaced u.
// force replaces an object calico-pilot applied already too: the decision found the operator's marks
// on it before the hand-over removed them.
func (a *Applier) replaceLive(ctx context.Context, u *unstructured.Unstructured, dryRun, force bool) (replaced bool, err error) {
	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(u.GroupVersionKind())
	if err := a.Client.Get(ctx, client.ObjectKeyFromObject(u), live); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("reading %s to take it over: %w", refOf(u), err)
	}
	if managedByUs(live) && !ownedByOperator(live) && !force {
		// Applied by calico-pilot already, and the operator has not taken it back since (it puts
		// its ownerReferences back and reverts the pod template when it runs again).
		return false, nil
	}
	obj := u.DeepCopy()
	obj.SetResourceVersion(live.GetResourceVersion())
	obj.SetOwnerReferences(live.GetOwnerReferences())
	obj.SetFinalizers(live.GetFinalizers())
	opts := []client.UpdateOption{client.FieldOwner(FieldManager)}
	if dryRun {
		opts = append(opts, client.DryRunAll)
	}
	if err := a.Client.Update(ctx, obj, opts...); err != nil {
		return false, fmt.Errorf("taking %s over from the tigera operator: %w", refOf(u), err)
	}
	*u = *obj
	return true, nil
}

// ownedByOperator is true when one of the tigera operator's resources owns u.
func ownedByOperator(u *unstructured.Unstructured) bool {
	for _, ref := range u.GetOwnerReferences() {
		if strings.HasPrefix(ref.APIVersion, install.OperatorGroup+"/") {
			return true
		}
	}
	return false
}

// isWorkload is true for calico-pilot's DaemonSets and Deployments.
func isWorkload(u *unstructured.Unstructured) bool {
	return u.GetKind() == "DaemonSet" || u.GetKind() == "Deployment"
}

// removeForeign removes from obj (as the apply left it) the fields other managers hold that
// calico-pilot does not render, with an update that fails if the object changed meanwhile.
func (a *Applier) removeForeign(ctx context.Context, obj *unstructured.Unstructured) error {
	roots, _, err := foreignRoots(obj)
	if err != nil || len(roots) == 0 {
		return err
	}
	removePaths(obj.Object, roots)
	if err := a.Client.Update(ctx, obj, client.FieldOwner(FieldManager)); err != nil {
		return fmt.Errorf("removing the fields other managers set in %s: %w", refOf(obj), err)
	}
	return nil
}

// syncPools creates the pools the config needs that were never created and patches only the
// encapsulation a config change asks for: pools.Decide, as the controller does.
func (a *Applier) syncPools(ctx context.Context, req Request, desired []calicov1.IPPool, st State) ([]pools.Record, error) {
	out := req.Out
	var live calicov1.IPPoolList
	if err := a.Client.List(ctx, &live); err != nil {
		return nil, fmt.Errorf("listing IP pools: %w", err)
	}
	res := adoptPools(req.encapsulationStated, pools.Decide(desired, live.Items, pools.FromStatus(st.Pools), a.Now()), desired, live.Items)
	for _, act := range res.Actions {
		switch act.Kind {
		case pools.ActionCreate:
			if err := a.Client.Create(ctx, act.Object); err != nil {
				return nil, fmt.Errorf("creating IP pool %s: %w", act.Name, err)
			}
			fmt.Fprintf(out, "created IP pool %s (%s)\n", act.Name, act.Object.Spec.CIDR)
		case pools.ActionPatchEncapsulation:
			obj := &calicov1.IPPool{}
			obj.Name = act.Name
			if err := a.Client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, act.MergePatch())); err != nil {
				return nil, fmt.Errorf("patching IP pool %s: %w", act.Name, err)
			}
			fmt.Fprintf(out, "patched IP pool %s encapsulation (ipipMode %s, vxlanMode %s)\n", act.Name, act.IPIPMode, act.VXLANMode)
		}
	}
	for _, f := range res.Findings {
		fmt.Fprintf(out, "IP pool %s: %s\n", f.Pool, f.Message)
	}
	return res.Records, nil
}

func (a *Applier) waitEstablished(ctx context.Context, timeout time.Duration, crds []*unstructured.Unstructured) error {
	var pending []string
	err := wait.PollUntilContextTimeout(ctx, a.Poll/5, timeout, true, func(ctx context.Context) (bool, error) {
		pending = nil
		for _, u := range crds {
			var crd apiextensionsv1.CustomResourceDefinition
			if err := a.Client.Get(ctx, client.ObjectKey{Name: u.GetName()}, &crd); err != nil {
				return false, client.IgnoreNotFound(err)
			}
			established := false
			for _, c := range crd.Status.Conditions {
				if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
					established = true
				}
			}
			if !established {
				pending = append(pending, u.GetName())
			}
		}
		return len(pending) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("CRDs not Established after %s (%s): %w; nothing after the CRDs was applied, run apply again", timeout, strings.Join(first(pending, 5), ", "), err)
	}
	return nil
}

// waitRollout waits until the pass's components completed their rollout (observed generation,
// every pod updated and available).
func (a *Applier) waitRollout(ctx context.Context, req Request, res pipeline.Result, p pass, d calicoversion.Decision) error {
	comps := present(p.wait, res.Workloads())
	lay := req.Layout.OrDefault()
	holding, readErr, err := a.pollRollout(ctx, req.Timeout, lay, comps)
	switch {
	case err == nil:
		for _, c := range comps {
			fmt.Fprintf(req.Out, "rolled out: %s\n", c)
		}
		return nil
	case !wait.Interrupted(err):
		return fmt.Errorf("waiting for the rollout: %w", err)
	case ctx.Err() != nil:
		return fmt.Errorf("interrupted while waiting for %s to roll out; what was applied keeps running and the state records the step: run apply again to continue", describe(holding))
	}
	return a.rolloutTimedOut(ctx, req.Timeout, lay.Namespace, holding, readErr, d)
}

// present are the components of want that the render has a workload for, in want's order.
func present(want []calicoversion.Component, workloads map[calicoversion.Component]string) []calicoversion.Component {
	var out []calicoversion.Component
	for _, c := range want {
		if _, ok := workloads[c]; ok {
			out = append(out, c)
		}
	}
	return out
}

// pollRollout polls comps until each completed its rollout or timeout passed. holding are those
// the last full read found not complete; readErr is the last read's error when it failed.
func (a *Applier) pollRollout(ctx context.Context, timeout time.Duration, lay layout.Layout, comps []calicoversion.Component) (holding []rollout.Component, readErr error, err error) {
	err = wait.PollUntilContextTimeout(ctx, a.Poll, timeout, true, func(ctx context.Context) (bool, error) {
		var now []rollout.Component
		for _, c := range comps {
			rc, err := rollout.ReadWorkloadAt(ctx, a.Client, lay.Workload(c))
			if err != nil {
				// A failed read (the deadline close, the client's rate limiter refusing to wait past
				// it, an API server that does not answer for a moment) keeps what the last full read
				// found and polls again; the timeout says what was last seen.
				readErr = err
				return false, nil
			}
			if !rc.Complete() {
				now = append(now, rc)
			}
		}
		holding, readErr = now, nil
		return len(holding) == 0, nil
	})
	return holding, readErr, err
}

// rolloutTimedOut is the error of a rollout that did not complete in time: what holds it, which
// pods are not ready, and what to do.
func (a *Applier) rolloutTimedOut(ctx context.Context, timeout time.Duration, ns string, holding []rollout.Component, readErr error, d calicoversion.Decision) error {
	var b strings.Builder
	fmt.Fprintf(&b, "timed out after %s waiting for the rollout of %s", timeout, describe(holding))
	b.WriteString(lastReadFailure(readErr))
	for _, h := range holding {
		if pods := a.heldBy(ctx, ns, h.Name); pods != "" {
			fmt.Fprintf(&b, "; pods of %s not ready or not updated: %s", h.Name, pods)
		}
	}
	b.WriteString(". What runs keeps running and the state records the step. Find why these pods do not become ready (kubectl -n " + ns + " describe pod ...), then run apply again to continue")
	if d.Moving() {
		fmt.Fprintf(&b, ", or go back with --calico-version %s", d.Move.From)
	}
	return &RolloutTimeoutError{Message: b.String()}
}

func describe(cs []rollout.Component) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.String())
	}
	if len(out) == 0 {
		return "Calico's workloads"
	}
	return strings.Join(out, "; ")
}

// heldBy names the pods of a workload that are not ready (at most five).
func (a *Applier) heldBy(ctx context.Context, ns, workload string) string {
	var pods corev1.PodList
	if err := a.Client.List(ctx, &pods, client.InNamespace(ns), client.MatchingLabels{"k8s-app": workload}); err != nil {
		return ""
	}
	var out []string
	for _, p := range pods.Items {
		ready := false
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				ready = true
			}
		}
		if !ready {
			out = append(out, fmt.Sprintf("%s (%s on %s)", p.Name, p.Status.Phase, p.Spec.NodeName))
		}
	}
	return strings.Join(first(out, 5), ", ")
}

// prune deletes what the state says calico-pilot applied and no longer renders; never a CRD or an
// IP pool.
func (a *Applier) prune(ctx context.Context, out io.Writer, owned, rendered []ObjectRef) error {
	for _, r := range prunable(owned, rendered) {
		if err := a.Client.Delete(ctx, r.object()); err != nil && !apierrors.IsNotFound(err) && !meta.IsNoMatchError(err) {
			return fmt.Errorf("deleting %s, no longer rendered: %w", r, err)
		}
		fmt.Fprintf(out, "deleted %s (calico-pilot applied it and no longer renders it)\n", r)
	}
	return nil
}

// prunable are the objects of owned apply deletes: those no longer rendered, except CRDs and IP
// pools (a CRD takes its objects with it; pools are the cluster owner's once created).
func prunable(owned, rendered []ObjectRef) []ObjectRef {
	var out []ObjectRef
	for _, r := range owned {
		if !slices.Contains(rendered, r) && r.Kind != "CustomResourceDefinition" && r.Kind != "IPPool" {
			out = append(out, r)
		}
	}
	// An APIService goes before the API server behind it, so that discovery never meets an
	// APIService without a backend.
	slices.SortStableFunc(out, func(a, b ObjectRef) int { return pruneRank(a) - pruneRank(b) })
	return out
}

func pruneRank(r ObjectRef) int {
	if r.Kind == "APIService" {
		return 0
	}
	return 1
}

// object is an empty object of r's kind, namespace and name, to read or delete it.
func (r ObjectRef) object() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(r.APIVersion)
	u.SetKind(r.Kind)
	u.SetNamespace(r.Namespace)
	u.SetName(r.Name)
	return u
}
