package standalone

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/calico-pilot/calico-pilot/internal/calicofacts"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/install"
	"github.com/calico-pilot/calico-pilot/internal/manifestdiff"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/plan"
	"github.com/calico-pilot/calico-pilot/internal/pools"
)

// Decision is what one apply does to a cluster, computed before anything is written from three
// inputs: what runs (the install, read once), what apply recorded (the state) and what is wanted
// (the request: the cluster file and the flags). --dry-run prints it, apply executes it, and the
// manage controller does both for every reconcile; an unchanged cluster's decision is empty
// (Empty), and executing an empty decision writes nothing.
type Decision struct {
	// Request is the request as decided: its NetworkConfig carries the settings kept from what runs.
	Request Request
	// Source is the install apply found, chosen once: every step that depends on it asks it.
	Source Source
	// Install is what runs; Found whether apply recorded a state, State that state with what this
	// apply adds before its first step (kept settings, the operator's pools).
	Install *install.Install
	State   State
	Found   bool
	// Release is the release decision; Passes the steps in Calico's order, Final the last one's render.
	Release calicoversion.Decision
	Passes  []pass
	Final   pipeline.Result
	// Judgement is what the file leaves to what runs and where the two disagree.
	Judgement install.Judgement
	// Preview is both sides of the plan; Report the plan of them; Foreign the live objects apply
	// would take over; Verdict the blockers not accepted and whether a change is disruptive.
	Preview Preview
	Report  PlanReport
	Foreign []string
	Verdict Verdict
	// Summary is what matters, for the first screen: what stops, what restarts, what nobody manages,
	// what a workload loses. Details are the rest, in the order they were decided.
	Summary Summary

	takeover *takeover
	// components are the optional components and their certificates.
	components *componentsPlan
	// recorded is the state as read, before this apply added to it; next the state it records at its end.
	recorded, next State
	details        bytes.Buffer
}

// PlanReport is plan's verdict on a Preview: the classified diff, its summary, the blockers (the
// plan's and the live checks') and the Calico move.
type PlanReport struct {
	Diff     *manifestdiff.Diff
	Summary  manifestdiff.Summary
	Blockers []plan.Blocker
	Move     plan.Move
}

// Summary is the first screen of a decision.
type Summary struct {
	// Source says what runs and who manages it.
	Source string
	// Calico is the release decision in one line.
	Calico string
	// Stops are what apply stops (the tigera operator).
	Stops []string
	// Restarts are the workloads whose pods are replaced.
	Restarts []string
	// Unmanaged are what keeps running with nobody managing it, and why it matters.
	Unmanaged []string
	// Loses are what a live workload loses that something else had put there (env, volumes,
	// hostAliases, containers), per workload.
	Loses []string
	// Certificates are the certificate steps the apply writes (issue, renew, a CA change).
	Certificates []string
	// Created, Updated, Deleted and Unchanged count the objects.
	Created, Updated, Deleted, Unchanged int
	// Blockers are those not accepted; Disruptive whether a change is.
	Blockers   []string
	Disruptive bool
}

// Empty is true when executing the decision writes nothing: no object to create, change or delete,
// no IP pool to create or patch, no hand-over step, no move, and a state that stays as recorded.
func (d *Decision) Empty() bool {
	s := d.Summary
	if s.Created+s.Updated+s.Deleted > 0 || d.Preview.poolActions > 0 || d.handOverNeeded() || d.components.pending() || d.Release.Moving() || !d.Found {
		return false
	}
	next, err := encodeUnstamped(d.next)
	if err != nil {
		return false
	}
	was, err := encodeUnstamped(d.recorded)
	return err == nil && bytes.Equal(next, was)
}

// handOverNeeded is true when the install source's hand-over has work to do: the first takeover of the
// tigera operator's install, a certificate to renew, or the operator's marks back on the workloads
// (it ran again after the takeover and took them back).
func (d *Decision) handOverNeeded() bool {
	t := d.takeover
	return t != nil && (d.State.Operator == nil || len(t.renewed) > 0 || len(d.Preview.replaced) > 0)
}

// nextState is the state an apply of d records at its end.
func (a *Applier) nextState(d *Decision) State {
	next := d.State
	last := d.Passes[len(d.Passes)-1]
	next.Release = last.deployment.Node.Name()
	for _, p := range d.Passes {
		next.CRDRelease = calicoversion.Newer(p.deployment.CRDs, mustRecorded(a.Catalogue, next.CRDRelease)).Name()
	}
	next.Owned, next.Move = refs(d.Final), nil
	next.Components = d.components.enabledNames()
	next.Pools = pools.ToStatus(d.Preview.poolRecords)
	return next
}

// Decide computes the decision of req without writing anything.
func (a *Applier) Decide(ctx context.Context, req Request) (*Decision, error) {
	in, err := install.Read(ctx, a.Client)
	if err != nil {
		return nil, err
	}
	st, found, err := ReadState(ctx, a.Client)
	if err != nil {
		return nil, err
	}
	d := &Decision{Install: in, State: st, Found: found, recorded: st}
	src, err := chooseSource(req, in, st, found)
	if err != nil {
		return nil, err
	}
	d.Source = src
	out := &d.details
	req.Out = out
	t, err := a.planTakeover(req, in, st)
	if err != nil {
		return nil, err
	}
	req.Layout = in.Layout
	if t != nil {
		req.TyphaTLS, req.takeover = t.tls, true
		t.describe(out, in, st, a.Now())
		d.State.Pools = operatorPools(d.State.Pools, in, t.op, a.Now())
		d.takeover = t
	}
	facts, err := a.releaseFacts(req, d.State, found, in)
	if err != nil {
		return nil, err
	}
	d.Judgement = a.keep(&req, in, &d.State, found)
	keepRuntime(&req, in, &d.State, found)
	if err := a.decideComponents(ctx, d, &req); err != nil {
		return nil, err
	}
	rd, err := a.decide(req, facts)
	if err != nil {
		return nil, err
	}
	d.Release = rd
	if err := a.ownTurnedOff(d, &req); err != nil {
		return nil, err
	}
	d.Passes = planPasses(a.Catalogue, rd)
	last := d.Passes[len(d.Passes)-1]
	d.Request = req
	if err := a.review(ctx, d, facts.Deployed, last); err != nil {
		return nil, err
	}
	d.summarize()
	d.next = a.nextState(d)
	return d, nil
}

// review is the plan, before anything is written: it renders the last step, previews what the whole
// apply changes and judges it as plan does, with the live checks of what runs (read once, with the
// install): the blockers not accepted (the plan's and the file's contradictions Calico cannot make
// live) and whether a change is disruptive.
func (a *Applier) review(ctx context.Context, d *Decision, deployed bool, last pass) error {
	req := d.Request
	final, err := a.render(req, last.deployment)
	if err != nil {
		return err
	}
	preview, foreign, err := a.preview(ctx, req, d.State, final)
	if err != nil {
		return err
	}
	var from calicoversion.Deployment // nothing runs on an empty cluster
	if deployed {
		from = d.Release.Deployment()
	}
	preview.From, preview.To, preview.Kubernetes, preview.Install = from, last.deployment, req.Facts.KubernetesVersion, d.Install
	rep, err := a.judge(ctx, preview)
	if err != nil {
		return err
	}
	v := Verdict{Blockers: rep.Blockers, Disruptive: rep.Summary.Highest == manifestdiff.ClassDisruptive || rep.Summary.Highest == manifestdiff.ClassBlocked}
	if a.PrintPlan != nil {
		fmt.Fprintf(&d.details, "plan:\n")
		if err := a.PrintPlan(&d.details, rep); err != nil {
			return err
		}
	}
	contradictions := append(slices.Clone(d.Judgement.Contradictions), d.Install.PoolContradictions(final.Pools, "cluster.podCIDR", req.Facts.PodCIDRFromFile)...)
	for _, c := range contradictions {
		if c.Blocker {
			v.Blockers = append(v.Blockers, plan.Blocker{Object: c.Field, Message: c.String()})
		} else if strings.HasPrefix(c.Field, "IPPool ") {
			fmt.Fprintln(&d.details, c.String())
		}
	}
	printBlockers(&d.details, contradictions)
	printDrift(&d.details, preview.Drift, req.RemoveForeign)
	for _, f := range preview.PoolFindings {
		fmt.Fprintf(&d.details, "IP pool %s: %s\n", f.Pool, f.Message)
	}
	v.Blockers = unaccepted(v.Blockers, req.AcceptBlockers)
	d.Final, d.Preview, d.Report, d.Foreign, d.Verdict = final, preview, rep, foreign, v
	if len(d.Passes) == 1 {
		d.Request.unchanged = map[string]bool{}
		for _, c := range preview.changes {
			if c.unchanged && c.live != nil && c.after != nil {
				d.Request.unchanged[refOf(c.live).String()] = true
			}
		}
	}
	if len(preview.ignored) > 0 {
		d.Request.ignored = map[string]bool{}
		for _, r := range preview.ignored {
			d.Request.ignored[r] = true
			fmt.Fprintf(&d.details, "left alone: %s (annotated %s: \"true\")\n", r, IgnoreAnnotation)
		}
	}
	if len(preview.replaced) > 0 {
		d.Request.replace = map[string]bool{}
		for _, r := range preview.replaced {
			d.Request.replace[r] = true
		}
	}
	return nil
}

// judge is plan's verdict on p: the diff classified, the live checks against what runs (the pools,
// IPAM blocks and stored objects of the CRDs that change) and the facts of a move between lines.
func (a *Applier) judge(ctx context.Context, p Preview) (PlanReport, error) {
	diff := manifestdiff.Compare(p.Current, p.Target)
	manifestdiff.DefaultClassifier().Classify(diff)
	live, err := p.Install.Live(ctx, a.Client, plan.ChangedCRDs(diff))
	if err != nil {
		return PlanReport{}, err
	}
	objects, err := calicofacts.Gather(ctx, a.Client, calicofacts.For(p.From.Node, p.To.Node))
	if err != nil {
		return PlanReport{}, err
	}
	move := plan.NewMove(p.From, p.To, diff, p.Kubernetes, objects)
	return PlanReport{Diff: diff, Summary: diff.Summarize(), Blockers: append(plan.Blockers(diff, live), move.Blockers()...), Move: move}, nil
}

// summarize fills the first screen from what was decided.
func (d *Decision) summarize() {
	s := &d.Summary
	s.Source = d.Source.Describe(d.Install)
	s.Calico = d.Release.Message
	if t := d.takeover; t != nil {
		if d.State.Operator == nil && t.op.Found && t.op.Replicas > 0 {
			s.Stops = append(s.Stops, fmt.Sprintf("the tigera operator (Deployment %s/%s, %d replica(s) -> 0; recorded, so that it can be given Calico back)", install.OperatorNamespace, install.OperatorDeployment, t.op.Replicas))
		}
		for _, c := range t.op.Components {
			if d.components != nil && (d.components.on[calicoversion.Component(c.Name)] || slices.Contains(d.components.off, calicoversion.Component(c.Name))) {
				continue
			}
			u := fmt.Sprintf("%s (%s)", c.Name, strings.Join(c.Objects, ", "))
			if !c.Expires.IsZero() {
				u += fmt.Sprintf(": its certificate %s expires %s and nobody renews it", c.Certificate, c.Expires.UTC().Format("2006-01-02"))
			}
			s.Unmanaged = append(s.Unmanaged, u)
		}
	}
	if p := d.components; p != nil {
		for _, c := range p.off {
			s.Stops = append(s.Stops, fmt.Sprintf("%s (components.%s.enabled: false): its objects are deleted, an APIService before the API server behind it; "+
				"what was written through projectcalico.org/v3 stays in Calico's CRDs", c, fileKey(c)))
		}
		if p.pending() {
			for _, st := range p.tls.Steps {
				s.Certificates = append(s.Certificates, st.Title)
			}
		}
	}
	s.Restarts = d.Report.Summary.Restarts
	for _, c := range d.Preview.changes {
		switch {
		case c.live == nil:
			s.Created++
		case c.after == nil:
			s.Deleted++
		case c.unchanged:
			s.Unchanged++
		default:
			s.Updated++
			if lost := lostFields(c.live, c.after); len(lost) > 0 {
				s.Loses = append(s.Loses, fmt.Sprintf("%s: %s", refOf(c.live), strings.Join(lost, "; ")))
			}
		}
	}
	for _, b := range d.Verdict.Blockers {
		s.Blockers = append(s.Blockers, fmt.Sprintf("%s: %s", b.Object, b.Message))
	}
	s.Disruptive = d.Verdict.Disruptive
}

// Print writes the decision for a person: the summary first (what runs, the release, what stops,
// restarts, stays unmanaged or is lost, the counts, the blockers), then the details.
func (d *Decision) Print(w io.Writer) {
	s := d.Summary
	fmt.Fprintf(w, "summary:\n  install: %s\n  Calico: %s\n", s.Source, clusterWords(s.Calico))
	list := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(w, "  %s:\n", title)
		for _, i := range items {
			fmt.Fprintf(w, "    - %s\n", i)
		}
	}
	list("stops", s.Stops)
	list("restarts", s.Restarts)
	list("loses (set by another manager, not rendered by calico-pilot)", s.Loses)
	list("keeps running, managed by nobody", s.Unmanaged)
	list("left alone (annotated "+IgnoreAnnotation+": \"true\")", d.Preview.ignored)
	list("certificates", s.Certificates)
	fmt.Fprintf(w, "  objects: %d created, %d updated, %d deleted, %d unchanged\n", s.Created, s.Updated, s.Deleted, s.Unchanged)
	list("blockers", s.Blockers)
	if s.Disruptive {
		fmt.Fprintf(w, "  disruptive: yes (see the plan below; apply needs --allow-disruption)\n")
	}
	fmt.Fprintf(w, "details:\n")
	_, _ = w.Write(d.details.Bytes())
}

// lostFields are what a live workload has in its pod template that the apply's result no longer has:
// env vars, volumes, volume mounts, hostAliases, containers and init containers, by name.
func lostFields(live, after *unstructured.Unstructured) []string {
	if !isWorkload(live) {
		return nil
	}
	var out []string
	tmpl := func(u *unstructured.Unstructured, path ...string) []any {
		l, _, _ := unstructured.NestedSlice(u.Object, append([]string{"spec", "template", "spec"}, path...)...)
		return l
	}
	names := func(l []any, key string) []string {
		var n []string
		for _, e := range l {
			if m, ok := e.(map[string]any); ok {
				if s, ok := m[key].(string); ok {
					n = append(n, s)
				}
			}
		}
		return n
	}
	missing := func(what string, was, now []string) {
		var gone []string
		for _, n := range was {
			if !slices.Contains(now, n) {
				gone = append(gone, n)
			}
		}
		if len(gone) > 0 {
			out = append(out, fmt.Sprintf("%s %s", what, strings.Join(gone, ", ")))
		}
	}
	for _, kind := range []string{"initContainers", "containers"} {
		was, now := tmpl(live, kind), tmpl(after, kind)
		missing(kind, names(was, "name"), names(now, "name"))
		for _, c := range was {
			cm, _ := c.(map[string]any)
			name, _ := cm["name"].(string)
			for _, n := range now {
				nm, _ := n.(map[string]any)
				if nm["name"] != name {
					continue
				}
				we, _ := cm["env"].([]any)
				ne, _ := nm["env"].([]any)
				missing("container "+name+" env", names(we, "name"), names(ne, "name"))
				wm, _ := cm["volumeMounts"].([]any)
				nmo, _ := nm["volumeMounts"].([]any)
				missing("container "+name+" volumeMounts", names(wm, "mountPath"), names(nmo, "mountPath"))
			}
		}
	}
	missing("volumes", names(tmpl(live, "volumes"), "name"), names(tmpl(after, "volumes"), "name"))
	var wasHosts, nowHosts []string
	for _, h := range tmpl(live, "hostAliases") {
		if m, ok := h.(map[string]any); ok {
			hs, _ := m["hostnames"].([]any)
			for _, x := range hs {
				wasHosts = append(wasHosts, fmt.Sprint(x))
			}
		}
	}
	for _, h := range tmpl(after, "hostAliases") {
		if m, ok := h.(map[string]any); ok {
			hs, _ := m["hostnames"].([]any)
			for _, x := range hs {
				nowHosts = append(nowHosts, fmt.Sprint(x))
			}
		}
	}
	missing("hostAliases", wasHosts, nowHosts)
	return out
}

// decideComponents plans the optional components (planComponents), puts their settings in the
// request's render (with the final certificates' checksums and goldmane's Service address) and adds
// to the objects apply owns those of a running component the file turns off, so that the prune
// deletes them (an APIService first).
func (a *Applier) decideComponents(ctx context.Context, d *Decision, req *Request) error {
	p, err := a.planComponents(ctx, *req, d.Install, d.State)
	if err != nil {
		return err
	}
	d.components = p
	ip := ""
	if p.on[calicoversion.Goldmane] {
		if ip, err = a.goldmaneServiceIP(ctx, req.Layout.OrDefault().Namespace); err != nil {
			return err
		}
	}
	last := -1
	if p.tls != nil {
		last = len(p.tls.Steps) - 1
	}
	req.components = p.settings(last, ip)
	p.describe(req.Out, req.Layout.OrDefault().Namespace)
	return nil
}

// ownTurnedOff adds to the objects apply owns those of a running component the file turns off (what
// it renders with the component on, never applied), so that the prune deletes them, an APIService
// first. It runs once the release is decided.
func (a *Applier) ownTurnedOff(d *Decision, req *Request) error {
	p := d.components
	if p == nil || len(p.off) == 0 {
		return nil
	}
	last := -1
	if p.tls != nil {
		last = len(p.tls.Steps) - 1
	}
	ip := req.components.GoldmaneServiceIP
	// What the components turned off would be, to know their objects (rendered, never applied).
	with := *req
	with.components = p.settings(last, ip)
	for _, c := range p.off {
		switch c {
		case calicoversion.APIServer:
			with.components.APIServer = true
		case calicoversion.Goldmane:
			with.components.Goldmane = true
		case calicoversion.Whisker:
			with.components.Whisker = true
		case calicoversion.CSIDriver:
			with.components.CSIDriver = true
		}
	}
	if with.components.APIServiceCABundle == "" {
		with.components.APIServiceCABundle = "unused"
	}
	res, err := a.render(with, d.Release.Deployment())
	if err != nil {
		return fmt.Errorf("the components to turn off: %w", err)
	}
	for _, r := range refs(res) {
		if r.Kind != "CustomResourceDefinition" && r.Kind != "IPPool" && !slices.Contains(d.State.Owned, r) {
			d.State.Owned = append(d.State.Owned, r)
		}
	}
	return nil
}
