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
// carries counts as the newest of its line (Catalogue.Recorded). CRDs is the newest of them, or the
// newest line whose CRD set the manifest carries.
func Lines(set *manifestdiff.Set) calicoversion.Deployment {
	found := map[calicoversion.Component]calicoversion.Release{}
	for _, o := range set.Objects() {
		comp, ok := calicoversion.ComponentOfWorkload(o.ID.Kind, o.ID.Name)
		if !ok {
			continue
		}
		v, ok := imageRelease(o.Content)
		if !ok {
			return calicoversion.Deployment{}
		}
		found[comp] = v
	}
	node, ok := found[calicoversion.Node]
	if !ok {
		return calicoversion.Deployment{}
	}
	d := calicoversion.Steady(node)
	if v, ok := found[calicoversion.Typha]; ok {
		d.Typha = v
	}
	if v, ok := found[calicoversion.KubeControllers]; ok {
		d.KubeControllers = v
	}
	d.CRDs = calicoversion.Newer(calicoversion.Newer(d.Node, d.Typha), d.KubeControllers)
	if crds := CRDLine(set); crds.Line().Compare(d.CRDs.Line()) > 0 {
		d.CRDs = crds
	}
	return d
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
// repository: calico/node, calico/cni, calico/typha, calico/kube-controllers).
func imageRelease(obj map[string]any) (calicoversion.Release, bool) {
	spec, _ := lookup(obj, "spec", "template", "spec").(map[string]any)
	for _, list := range []string{"containers", "initContainers"} {
		items, _ := spec[list].([]any)
		for _, c := range items {
			m, _ := c.(map[string]any)
			image, _ := m["image"].(string)
			repo, tag, ok := strings.Cut(image, ":")
			if !ok || !isCalicoRepository(repo) {
				continue
			}
			tag, _, _ = strings.Cut(tag, "@")
			r, err := calicoversion.Default().Recorded(tag)
			return r.Release, err == nil && !r.Release.IsZero()
		}
	}
	return calicoversion.Release{}, false
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

// Restarts returns the workloads a classified diff restarts with their reasons, in the order of the
// move's steps (calicoversion.Catalogue.Plan: going up calico-node first, going down Typha and
// kube-controllers first, a patch move all at once); then by name.
func Restarts(d *manifestdiff.Diff, from, to calicoversion.Release) []Restart {
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
		move, _ = calicoversion.Default().Plan(from, to)
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

// Move is the Calico part of a plan: the lines, the restarts in order and the facts of the move.
type Move struct {
	// Current and Target say what each component runs now and after the change.
	Current string `json:"current"`
	Target  string `json:"target"`
	// Direction is "up", "down" (between lines), "patch" (within a line) or "none".
	Direction string `json:"direction"`
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
	m.KnownIssues = NewKnownIssues(current, target)
	m.Restarts = Restarts(d, from, to)
	m.Facts = calicofacts.Evaluate(calicofacts.For(from, to), to, kubernetes, objects)
	if m.Facts == nil {
		m.Facts = []calicofacts.Finding{}
	}
	if m.Restarts == nil {
		m.Restarts = []Restart{}
	}
	return m
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
