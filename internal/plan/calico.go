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

// The Calico workloads whose image tells the release they run, by object name.
const (
	workloadNode            = "calico-node"
	workloadTypha           = "calico-typha-deploy"
	workloadKubeControllers = "calico-kube-controllers"
)

// calicoImages are the repositories of Calico's own images (the tag is the release).
var calicoImages = []string{"calico/node", "calico/cni", "calico/typha", "calico/kube-controllers"}

// Lines reads the release each Calico component runs in a manifest, from the image tags of the
// calico-node DaemonSet and the calico-typha-deploy and calico-kube-controllers Deployments. A
// component that is not deployed (no Typha) gets calico-node's line; a Deployment whose tags are of no
// supported line leaves the whole result zero (it is not calico-pilot's or the reference's). CRDs is
// the newest of them (a manifest does not say which schema its CRDs are).
func Lines(set *manifestdiff.Set) calicoversion.Deployment {
	found := map[string]calicoversion.Version{}
	for _, o := range set.Objects() {
		if o.ID.Kind != "DaemonSet" && o.ID.Kind != "Deployment" {
			continue
		}
		switch o.ID.Name {
		case workloadNode, workloadTypha, workloadKubeControllers:
		default:
			continue
		}
		v, ok := imageLine(o.Content)
		if !ok {
			return calicoversion.Deployment{}
		}
		found[o.ID.Name] = v
	}
	node, ok := found[workloadNode]
	if !ok {
		return calicoversion.Deployment{}
	}
	d := calicoversion.Deployment{Node: node, Typha: node, KubeControllers: node}
	if v, ok := found[workloadTypha]; ok {
		d.Typha = v
	}
	if v, ok := found[workloadKubeControllers]; ok {
		d.KubeControllers = v
	}
	d.CRDs = calicoversion.Newer(calicoversion.Newer(d.Node, d.Typha), d.KubeControllers)
	if crds := CRDLine(set); crds.Compare(d.CRDs) > 0 {
		d.CRDs = crds
	}
	return d
}

// CRDLine is the newest Calico line whose whole CRD set the manifest carries (zero when it carries
// none of the sets, e.g. a manifest without CRDs): the schema a move must not go below.
func CRDLine(set *manifestdiff.Set) calicoversion.Version {
	have := map[string]bool{}
	for _, o := range set.Objects() {
		if o.ID.Kind == "CustomResourceDefinition" {
			have[o.ID.Name] = true
		}
	}
	lines := calicoversion.Supported()
	for i := len(lines) - 1; i >= 0; i-- {
		defs, err := crds.CustomResourceDefinitionsFor(lines[i])
		if err != nil {
			continue
		}
		all := len(defs) > 0
		for _, d := range defs {
			all = all && have[d.Name]
		}
		if all {
			return lines[i]
		}
	}
	return calicoversion.Version{}
}

// imageLine is the line of the first Calico image of a workload's containers.
func imageLine(obj map[string]any) (calicoversion.Version, bool) {
	spec, _ := lookup(obj, "spec", "template", "spec").(map[string]any)
	for _, list := range []string{"containers", "initContainers"} {
		items, _ := spec[list].([]any)
		for _, c := range items {
			m, _ := c.(map[string]any)
			image, _ := m["image"].(string)
			repo, tag, ok := strings.Cut(image, ":")
			if !ok || !slices.ContainsFunc(calicoImages, func(s string) bool { return strings.HasSuffix(repo, s) }) {
				continue
			}
			tag, _, _ = strings.Cut(tag, "@")
			v, err := LineOfRelease(tag)
			return v, err == nil
		}
	}
	return calicoversion.Version{}, false
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

// Restarts returns the workloads a classified diff restarts with their reasons, in Calico's order of
// a move from one line to another (calicoversion.Move): going up calico-node first, going down
// Typha and kube-controllers first; then by name.
func Restarts(d *manifestdiff.Diff, from, to calicoversion.Version) []Restart {
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
	up, down := to.Compare(from) > 0 && !from.IsZero(), to.Compare(from) < 0 && !to.IsZero()
	out := make([]Restart, 0, len(reasons))
	for w, rs := range reasons {
		sort.Strings(rs)
		step := 1
		_, name, _ := strings.Cut(w, "/")
		switch {
		case up && name != workloadNode && isCalicoWorkload(name):
			step = 2
		case down && name == workloadNode:
			step = 2
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

func isCalicoWorkload(name string) bool {
	return name == workloadNode || name == workloadTypha || name == workloadKubeControllers
}

// Move is the Calico part of a plan: the lines, the restarts in order and the facts of the move.
type Move struct {
	// Current and Target say what each component runs now and after the change.
	Current string `json:"current"`
	Target  string `json:"target"`
	// Direction is "up", "down" or "none".
	Direction string `json:"direction"`
	// Restarts are the workloads that roll, in Calico's order.
	Restarts []Restart `json:"restarts"`
	// Facts are the facts of the move as they apply to this shoot (docs/calico-downgrade.md).
	Facts []calicofacts.Finding `json:"facts"`
}

// NewMove assembles the Calico part of a plan: current and target deployments, the classified
// diff, the shoot's Kubernetes version ("" unknown) and its objects (nil: not read).
func NewMove(current, target calicoversion.Deployment, d *manifestdiff.Diff, kubernetes string, objects calicofacts.Objects) Move {
	from, to := current.Node, target.Node
	m := Move{Current: DescribeLines(current), Target: DescribeLines(target), Direction: "none"}
	switch c := to.Compare(from); {
	case from.IsZero() || to.IsZero():
	case c > 0:
		m.Direction = "up"
	case c < 0:
		m.Direction = "down"
	}
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
		return fmt.Sprintf("%s (%s)", d.Node.Minor, d.Node.Release)
	case d.IsSteady():
		return fmt.Sprintf("%s (%s), CRDs %s", d.Node.Minor, d.Node.Release, d.CRDs.Minor)
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
