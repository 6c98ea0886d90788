package plan

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/calico-pilot/calico-pilot/api/projectcalico/crds"
	"github.com/calico-pilot/calico-pilot/internal/calicofacts"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/manifestdiff"
)

// Lines reads the release each Calico component runs in a manifest, from the image tags of the
// components' workloads (calicoversion.Component.Workload). A component that is not deployed (no
// Typha) gets calico-node's release; a workload whose tag is of no line of the catalogue leaves the
// whole result zero (it is not calico-pilot's or the reference's); a release the catalogue no longer
// carries counts as the newest of its line (Catalogue.Recorded; Read says which). CRDs is the newest
// of them, or the newest line whose CRD set the manifest carries.
func Lines(set *manifestdiff.Set) calicoversion.Deployment { return Read(set).Deployment }

// Running is what a manifest's Calico workloads run.
type Running struct {
	// Deployment is the carried release of each component (Lines).
	Deployment calicoversion.Deployment
	// Retired are the releases the images name that the catalogue does not carry, each once, in the
	// order of the components: each runs as the newest release of its line.
	Retired []calicoversion.Recorded
}

// Read reads what a manifest's Calico workloads run (Lines), and which of their releases are retired.
func Read(set *manifestdiff.Set) Running {
	found := map[calicoversion.Component]calicoversion.Recorded{}
	for _, o := range set.Objects() {
		comp, ok := calicoversion.ComponentOfWorkload(o.ID.Kind, o.ID.Name)
		if !ok {
			continue
		}
		v, ok := imageRelease(o.Content)
		if !ok {
			return Running{}
		}
		found[comp] = v
	}
	node, ok := found[calicoversion.Node]
	if !ok {
		return Running{}
	}
	var run Running
	d := calicoversion.Steady(node.Release)
	if v, ok := found[calicoversion.Typha]; ok {
		d.Typha = v.Release
	}
	if v, ok := found[calicoversion.KubeControllers]; ok {
		d.KubeControllers = v.Release
	}
	d.CRDs = calicoversion.Newer(calicoversion.Newer(d.Node, d.Typha), d.KubeControllers)
	if crds := CRDLine(set); crds.Line().Compare(d.CRDs.Line()) > 0 {
		d.CRDs = crds
	}
	run.Deployment = d
	for _, c := range calicoversion.Components() {
		if r, ok := found[c]; ok && r.Retired && !slices.ContainsFunc(run.Retired, func(x calicoversion.Recorded) bool { return x.Name == r.Name }) {
			run.Retired = append(run.Retired, r)
		}
	}
	return run
}

// CRDLine is the newest release of the newest Calico line whose whole CRD set the manifest carries
// (zero when it carries none of the sets, e.g. a manifest without CRDs): the schema a move must not go
// below.
func CRDLine(set *manifestdiff.Set) calicoversion.Release {
	have := map[string]bool{}
	for _, o := range set.Objects() {
		if o.ID.Kind == "CustomResourceDefinition" {
			have[o.ID.Name] = true
		}
	}
	lines := calicoversion.Default().Lines()
	for i := len(lines) - 1; i >= 0; i-- {
		defs, err := crds.CustomResourceDefinitionsFor(lines[i].CRDSet())
		if err != nil {
			continue
		}
		all := len(defs) > 0
		for _, d := range defs {
			all = all && have[d.Name]
		}
		if all {
			return lines[i].Newest()
		}
	}
	return calicoversion.Release{}
}

// imageRelease is the release of the first Calico image of a workload's containers (by image name's
// repository: calico/node, calico/cni, calico/typha, calico/kube-controllers), as Catalogue.Recorded
// reads it.
func imageRelease(obj map[string]any) (calicoversion.Recorded, bool) {
	spec, _ := lookup(obj, "spec", "template", "spec").(map[string]any)
	for _, list := range []string{"containers", "initContainers"} {
		items, _ := spec[list].([]any)
		for _, c := range items {
			m, _ := c.(map[string]any)
			image, _ := m["image"].(string)
			repo, tag := calicoversion.SplitImage(image)
			if tag == "" || !isCalicoRepository(repo) {
				continue
			}
			n, ok := calicoversion.ReleaseOfTag(tag)
			if !ok {
				return calicoversion.Recorded{}, false
			}
			r, err := calicoversion.Default().Recorded(n.String())
			return r, err == nil && !r.Release.IsZero()
		}
	}
	return calicoversion.Recorded{}, false
}

// isCalicoRepository is true for a repository of Calico's images (its last two path elements are
// those of a catalogue image: "calico/node", also under a mirror).
func isCalicoRepository(repo string) bool {
	for _, name := range calicoversion.ImageNames() {
		r, _ := calicoversion.Default().DefaultRelease().ImageRepositoryTag(name)
		parts := strings.Split(r, "/")
		if len(parts) >= 2 && strings.HasSuffix(repo, "/"+strings.Join(parts[len(parts)-2:], "/")) {
			return true
		}
	}
	return false
}

// Restart is one workload whose pods a plan replaces, in the step Calico's order puts it.
type Restart struct {
	// Workload is "Kind namespace/name".
	Workload string `json:"workload"`
	// Step is 1 or 2: in a move between lines, the component that moves first (calico-node going
	// up, Typha and kube-controllers going down) is step 1, the others follow once it has rolled
	// out; without a move every restart is step 1.
	Step int `json:"step"`
	// Reasons say why its pods are replaced (manifestdiff's rules).
	Reasons []string `json:"reasons"`
}

// restartsIn returns the workloads a classified diff restarts with their reasons, in the order of
// the move's steps in cat (going up calico-node first, going down Typha and kube-controllers first,
// a patch move all at once); then by name.
func restartsIn(cat *calicoversion.Catalogue, d *manifestdiff.Diff, from, to calicoversion.Release) []Restart {
	reasons := map[string][]string{}
	add := func(impacts []manifestdiff.Impact) {
		for _, im := range impacts {
			if im.Class != manifestdiff.ClassRestart {
				continue
			}
			for _, w := range im.Workloads {
				if !slices.Contains(reasons[w], im.Reason) {
					reasons[w] = append(reasons[w], im.Reason)
				}
			}
		}
	}
	for _, o := range d.Objects {
		add(o.Impacts)
		for _, c := range o.Changes {
			add(c.Impacts)
		}
	}
	var move calicoversion.Move
	if !from.IsZero() && !to.IsZero() {
		move, _ = cat.Plan(from, to)
	}
	out := make([]Restart, 0, len(reasons))
	for w, rs := range reasons {
		sort.Strings(rs)
		step := 1
		kind, rest, _ := strings.Cut(w, " ")
		_, name, _ := strings.Cut(rest, "/")
		if comp, ok := calicoversion.ComponentOfWorkload(kind, name); ok {
			for i, st := range move.Steps {
				if slices.Contains(st, comp) {
					step = i + 1
				}
			}
		}
		out = append(out, Restart{Workload: w, Step: step, Reasons: rs})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Step != out[j].Step {
			return out[i].Step < out[j].Step
		}
		return out[i].Workload < out[j].Workload
	})
	return out
}

// Move is the Calico part of a plan: the releases, the restarts in order and the facts of the move.
type Move struct {
	// Current and Target say what each component runs now and after the change.
	Current string `json:"current"`
	Target  string `json:"target"`
	// Direction is "up", "down" (between lines), "patch" (within a line) or "none".
	Direction string `json:"direction"`
	// Refused says why calico-pilot does not make this move ("" when it does): a move that skips a
	// line, naming the line to move to first. It is a blocker.
	Refused string `json:"refused,omitempty"`
	// Retired say which releases the shoot runs that this calico-pilot no longer carries, and what
	// they run as (the newest release of their line) from the next reconcile.
	Retired []string `json:"retired,omitempty"`
	// Restarts are the workloads that roll, in Calico's order.
	Restarts []Restart `json:"restarts"`
	// Facts are the facts of the move as they apply to this shoot (docs/calico-downgrade.md).
	Facts []calicofacts.Finding `json:"facts"`
	// KnownIssues are the known issues of the target's releases that the current ones do not have
	// (catalogue.yaml knownIssues, docs/calico-lines.md).
	KnownIssues []KnownIssue `json:"knownIssues"`
}

// KnownIssue is a known issue of a release a plan moves to.
type KnownIssue struct {
	ID        string `json:"id"`
	Release   string `json:"release"`
	Component string `json:"component"`
	Title     string `json:"title"`
	Detail    string `json:"detail"`
	Action    string `json:"action"`
}

// Warning is the known issue in one line, as admission and validate warn about it: the release, the
// component, the title and its ID, and where the operator reads what to do.
func (k KnownIssue) Warning() string {
	return fmt.Sprintf("known issue of Calico %s (%s): %s [%s]; what to do: docs/calico-lines.md", k.Release, k.Component, k.Title, k.ID)
}

// NewKnownIssues are the known issues that target brings: each issue of a release a component runs
// in target, about that component, that the component's release in current does not have; each once,
// oldest release first. A step of a move that leaves the issue's component where it was brings
// nothing yet (calico-node moving first to a release whose issue is kube-controllers').
func NewKnownIssues(current, target calicoversion.Deployment) []KnownIssue {
	out := []KnownIssue{}
	if target.IsZero() {
		return out
	}
	seen := map[string]bool{}
	for _, r := range target.Releases() {
		for _, k := range r.KnownIssues() {
			if seen[k.ID] || target.Of(k.Component) != r || hasIssue(current.Of(k.Component), k.ID) {
				continue
			}
			seen[k.ID] = true
			out = append(out, KnownIssue{ID: k.ID, Release: r.Name(), Component: string(k.Component), Title: k.Title, Detail: k.Detail, Action: k.Action})
		}
	}
	return out
}

func hasIssue(r calicoversion.Release, id string) bool {
	for _, k := range r.KnownIssues() {
		if k.ID == id {
			return true
		}
	}
	return false
}

// NewMove assembles the Calico part of a plan: current and target deployments, the classified
// diff, the shoot's Kubernetes version ("" unknown) and its objects (nil: not read).
func NewMove(current, target calicoversion.Deployment, d *manifestdiff.Diff, kubernetes string, objects calicofacts.Objects) Move {
	return NewMoveIn(calicoversion.Default(), current, target, d, kubernetes, objects)
}

// NewMoveIn is NewMove in catalogue cat.
func NewMoveIn(cat *calicoversion.Catalogue, current, target calicoversion.Deployment, d *manifestdiff.Diff, kubernetes string, objects calicofacts.Objects) Move {
	from, to := current.Node, target.Node
	m := Move{Current: DescribeLines(current), Target: DescribeLines(target), Direction: "none"}
	switch c := to.Compare(from); {
	case from.IsZero() || to.IsZero() || c == 0:
	case from.SameLine(to):
		m.Direction = "patch"
	case c > 0:
		m.Direction = "up"
	case c < 0:
		m.Direction = "down"
	}
	if !from.IsZero() && !to.IsZero() {
		if _, err := cat.Plan(from, to); err != nil {
			m.Refused = err.Error()
		}
	}
	m.KnownIssues = NewKnownIssues(current, target)
	m.Restarts = restartsIn(cat, d, from, to)
	m.Facts = calicofacts.Evaluate(calicofacts.For(from, to), to, kubernetes, objects)
	if m.Facts == nil {
		m.Facts = []calicofacts.Finding{}
	}
	if m.Restarts == nil {
		m.Restarts = []Restart{}
	}
	return m
}

// Describe says what the workloads run, as their images name it: DescribeLines, with a retired
// release named as deployed ("v3.31 (v3.31.5, retired)").
func (r Running) Describe() string {
	if len(r.Retired) == 0 {
		return DescribeLines(r.Deployment)
	}
	if len(r.Retired) == 1 && r.Deployment.IsSteady() {
		return fmt.Sprintf("%s (%s, retired)", r.Deployment.Node.Line(), r.Retired[0].Name)
	}
	var names []string
	for _, x := range r.Retired {
		names = append(names, x.Name)
	}
	return DescribeLines(r.Deployment) + " (retired: " + strings.Join(names, ", ") + ")"
}

// WithRunning is the move from what a manifest runs: a retired release is named as deployed and in
// Retired, and moving it to the newest release of its line is a patch move (every component at once),
// which the next reconcile makes.
func (m Move) WithRunning(run Running) Move {
	if len(run.Retired) == 0 {
		return m
	}
	m.Current = run.Describe()
	m.Retired = RetiredNotes(run.Retired...)
	if m.Direction == "none" && m.Target != "unknown" {
		m.Direction = "patch"
	}
	return m
}

// RetiredNotes are the messages of retired releases (Catalogue.Recorded), each once: what a shoot
// runs that this calico-pilot no longer carries, and what it runs as from its next reconcile.
func RetiredNotes(retired ...calicoversion.Recorded) []string {
	var out []string
	for _, r := range retired {
		if msg := r.Message(); msg != "" && !slices.Contains(out, msg+".") {
			out = append(out, msg+".")
		}
	}
	return out
}

// DescribeLines says what a deployment runs, for people: "v3.31 (v3.31.6)", "v3.31 (v3.31.6), CRDs
// v3.32", each component during a move, or "unknown".
func DescribeLines(d calicoversion.Deployment) string {
	switch {
	case d.IsZero():
		return "unknown"
	case d.IsSteady() && (d.CRDs.IsZero() || d.CRDs == d.Node):
		return fmt.Sprintf("%s (%s)", d.Node.Line(), d.Node)
	case d.IsSteady() && d.CRDs.SameLine(d.Node):
		return fmt.Sprintf("%s (%s)", d.Node.Line(), d.Node)
	case d.IsSteady():
		return fmt.Sprintf("%s (%s), CRDs %s", d.Node.Line(), d.Node, d.CRDs.Line())
	}
	return d.String()
}

// Blockers are the facts that refuse the move: blockers whose check found something.
func (m Move) Blockers() []Blocker {
	var out []Blocker
	if m.Refused != "" {
		out = append(out, Blocker{Object: "Calico move", Message: m.Refused})
	}
	for _, f := range m.Facts {
		if !f.Blocks() {
			continue
		}
		msg := f.Title
		if f.Detail != "" {
			msg += ": " + f.Detail
		}
		if f.Count > 0 {
			msg += fmt.Sprintf(": %d object(s): %s", f.Count, strings.Join(f.Objects, "; "))
			if f.Count > len(f.Objects) {
				msg += "; ..."
			}
		}
		if f.Action != "" {
			msg += "; " + f.Action
		}
		out = append(out, Blocker{Object: "Calico " + f.ID, Message: msg})
	}
	return out
}
