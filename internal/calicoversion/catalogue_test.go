package calicoversion_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

func rel(t *testing.T, c *calicoversion.Catalogue, name string) calicoversion.Release {
	t.Helper()
	r, ok := c.Release(name)
	if !ok {
		t.Fatalf("release %s not in the catalogue", name)
	}
	return r
}

func TestParseName(t *testing.T) {
	for in, want := range map[string]string{"v3.31.7": "v3.31.7", "3.31.7": "v3.31.7", " v3.32 ": "v3.32", "3.32": "v3.32", "v10.0.12": "v10.0.12"} {
		n, err := calicoversion.ParseName(in)
		if err != nil || n.String() != want {
			t.Errorf("ParseName(%q) = %v, %v; want %s", in, n, err, want)
		}
	}
	for _, in := range []string{"", "latest", "v3", "v3.31.6.1", "v3.32.1-0.dev", "v3.x", "v03.31", "v3.31.-1"} {
		if n, err := calicoversion.ParseName(in); err == nil {
			t.Errorf("ParseName(%q) = %v, want an error", in, n)
		}
	}
}

// TestDefaultCatalogue checks the embedded catalogue against the release facts (docs/calico-lines.md):
// which release has which difference, with the "since" tags following the release branches (v3.32.1
// was made before v3.31.7 and has none of its changes).
func TestDefaultCatalogue(t *testing.T) {
	c := calicoversion.Default()
	if got := strings.Join(c.LineNames(), " "); got != "v3.31 v3.32" {
		t.Errorf("lines %s", got)
	}
	if got := strings.Join(c.ReleaseNames(), " "); got != "v3.31.6 v3.31.7 v3.32.1" {
		t.Errorf("releases %s", got)
	}
	if got := c.DefaultRelease().Name(); got != "v3.31.7" {
		t.Errorf("default release %s, want the newest of the default line v3.31", got)
	}
	if u := c.Unrecorded(); u.Release.Name() != "v3.31.6" || u.Retired {
		t.Errorf("unrecorded %+v, want v3.31.6 (what the reference deploys)", u)
	}
	has := map[string][]calicoversion.Difference{
		"v3.31.6": {calicoversion.AdminNetworkPolicy},
		"v3.31.7": {calicoversion.AdminNetworkPolicy, calicoversion.CNIVersion1, calicoversion.FelixSecurityfsMount},
		"v3.32.1": {calicoversion.ClusterNetworkPolicy, calicoversion.KubeVirt, calicoversion.BGPConfigurationsWrite,
			calicoversion.KubeControllersStatusSubresource, calicoversion.PolicyNameMigrator, calicoversion.DatastoreMigrationController,
			calicoversion.FelixNFTablesAuto, calicoversion.KubeAdminTiers},
	}
	for name, want := range has {
		r := rel(t, c, name)
		for _, d := range calicoversion.Implemented() {
			if got := r.Has(d); got != slices.Contains(want, d) {
				t.Errorf("%s has %s: %v", name, d, got)
			}
		}
		for _, img := range calicoversion.ImageNames() {
			if _, tag := r.ImageRepositoryTag(img); tag != name {
				t.Errorf("%s image %s: tag %q", name, img, tag)
			}
		}
	}
	if got := rel(t, c, "v3.32.1").KnownIssues(); len(got) != 1 || got[0].Component != calicoversion.KubeControllers {
		t.Errorf("v3.32.1 known issues %v", got)
	}
	if got := rel(t, c, "v3.31.7").KnownIssues(); len(got) != 0 {
		t.Errorf("v3.31.7 known issues %v", got)
	}
	for _, tt := range []struct {
		release, k8s string
		want         bool
	}{
		{"v3.31.6", "1.31.9", false}, {"v3.31.7", "1.32.0", true}, {"v3.31.6", "v1.35.1", true}, {"v3.31.7", "1.36.0", false},
		{"v3.32.1", "1.33.5", false}, {"v3.32.1", "1.34.0", true}, {"v3.32.1", "1.36.2", true}, {"v3.32.1", "1.37.0", false},
		{"v3.32.1", "", true},
	} {
		if got := rel(t, c, tt.release).SupportsKubernetes(tt.k8s); got != tt.want {
			t.Errorf("%s on Kubernetes %q: %v", tt.release, tt.k8s, got)
		}
	}
}

// TestEveryDifferenceIsData: a difference the code implements but no release is tagged with is dead code.
func TestEveryDifferenceIsData(t *testing.T) {
	d := calicoversion.Default().Data()
	for _, impl := range calicoversion.Implemented() {
		if !slices.ContainsFunc(d.Differences, func(x calicoversion.DifferenceData) bool { return x.Name == impl }) {
			t.Errorf("difference %s is implemented but not in catalogue.yaml", impl)
		}
	}
}

func TestResolve(t *testing.T) {
	c := calicoversion.Default()
	for in, want := range map[string]string{"v3.31": "v3.31.7", "3.31": "v3.31.7", "v3.31.6": "v3.31.6", "v3.31.7": "v3.31.7", " v3.32 ": "v3.32.1", "3.32.1": "v3.32.1"} {
		r, err := c.Resolve(in)
		if err != nil || r.Name() != want {
			t.Errorf("Resolve(%q) = %v, %v; want %s", in, r, err, want)
		}
	}
	for in, msg := range map[string]string{
		"v3.31.5": "Calico v3.31.5 is not a release this calico-pilot deploys; its line v3.31 has v3.31.6, v3.31.7 (name the line for its newest release)",
		"v3.32.9": "its line v3.32 has v3.32.1",
		"v3.30":   `Calico "v3.30" is not supported; accepted: a line (v3.31, v3.32: its newest release) or a release (v3.31.6, v3.31.7, v3.32.1)`,
		"latest":  `Calico "latest" is not a release name`,
		"":        `accepted: a line (v3.31, v3.32`,
	} {
		if _, err := c.Resolve(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("Resolve(%q): error %v, want it to say %q", in, err, msg)
		}
	}
}

// TestRecorded: a recorded release the catalogue does not carry keeps its line (never a line move):
// the newest release of that line.
func TestRecorded(t *testing.T) {
	c := calicoversion.Default()
	for in, want := range map[string]struct {
		release string
		retired bool
	}{
		"v3.31.6": {"v3.31.6", false}, "v3.31.7": {"v3.31.7", false}, "v3.32.1": {"v3.32.1", false},
		"v3.32.0": {"v3.32.1", true}, "v3.32.9": {"v3.32.1", true}, "v3.31.5": {"v3.31.7", true}, "3.31.6": {"v3.31.6", false},
	} {
		r, err := c.Recorded(in)
		if err != nil || r.Release.Name() != want.release || r.Retired != want.retired {
			t.Errorf("Recorded(%q) = %+v, %v; want %s retired=%v", in, r, err, want.release, want.retired)
		}
	}
	if r, err := c.Recorded(""); err != nil || !r.Release.IsZero() {
		t.Errorf("Recorded(\"\") = %+v, %v", r, err)
	}
	for _, in := range []string{"v3.33.0", "v3.30.2", "garbage"} {
		if r, err := c.Recorded(in); err == nil {
			t.Errorf("Recorded(%q) = %+v, want an error (a line not carried is never mapped to another line)", in, r)
		}
	}
	r, _ := c.Recorded("v3.32.0")
	if msg := r.Message(); !strings.Contains(msg, "v3.32.0 is not carried") || !strings.Contains(msg, "v3.32.1") {
		t.Errorf("message %q", msg)
	}
}

// TestPlanAndMove: Calico's order. Up: calico-node first, then Typha and kube-controllers; down: Typha
// and kube-controllers first; a patch move is one step. The CRDs are the newest schema the shoot had in
// every step.
func TestPlanAndMove(t *testing.T) {
	c := calicoversion.Default()
	v316, v317, v321 := rel(t, c, "v3.31.6"), rel(t, c, "v3.31.7"), rel(t, c, "v3.32.1")
	for _, tt := range []struct {
		name            string
		from, to, crds  calicoversion.Release
		phase           calicoversion.Phase
		kind            calicoversion.MoveKind
		node, typha, kc calicoversion.Release
		wantCRDs        calicoversion.Release
	}{
		{"up first", v316, v321, calicoversion.Release{}, calicoversion.PhaseFirst, calicoversion.MoveUp, v321, v316, v316, v321},
		{"up from the newer patch", v317, v321, v317, calicoversion.PhaseFirst, calicoversion.MoveUp, v321, v317, v317, v321},
		{"up complete", v316, v321, v316, calicoversion.PhaseComplete, calicoversion.MoveUp, v321, v321, v321, v321},
		{"down first", v321, v316, v321, calicoversion.PhaseFirst, calicoversion.MoveDown, v321, v316, v316, v321},
		{"down complete keeps the newer CRDs", v321, v317, v321, calicoversion.PhaseComplete, calicoversion.MoveDown, v317, v317, v317, v321},
		{"patch up", v316, v317, v316, calicoversion.PhaseComplete, calicoversion.MovePatch, v317, v317, v317, v317},
		{"patch down", v317, v316, v317, calicoversion.PhaseComplete, calicoversion.MovePatch, v316, v316, v316, v317},
	} {
		m, err := c.Plan(tt.from, tt.to)
		if err != nil || m.Kind != tt.kind {
			t.Fatalf("%s: Plan = %+v, %v; want kind %s", tt.name, m, err, tt.kind)
		}
		d := m.Deployment(tt.phase, tt.crds)
		if d.Node != tt.node || d.Typha != tt.typha || d.KubeControllers != tt.kc || d.CRDs != tt.wantCRDs {
			t.Errorf("%s: %v; want calico-node %s, typha %s, kube-controllers %s, CRDs %s", tt.name, d, tt.node, tt.typha, tt.kc, tt.wantCRDs)
		}
	}
	if m, _ := c.Plan(v316, v317); m.FirstPhase() != calicoversion.PhaseComplete || m.Describe(m.FirstPhase()) != "every component" {
		t.Errorf("a patch move is one step: %+v", m)
	}
	m, _ := c.Plan(v316, v321)
	if m.FirstPhase() != calicoversion.PhaseFirst || m.Describe(calicoversion.PhaseFirst) != "calico-node" ||
		!slices.Equal(m.Changed(calicoversion.PhaseFirst), []calicoversion.Component{calicoversion.Node}) {
		t.Errorf("up: %+v", m)
	}
	m, _ = c.Plan(v321, v316)
	if m.Describe(calicoversion.PhaseFirst) != "calico-typha and calico-kube-controllers" {
		t.Errorf("down: %s", m.Describe(calicoversion.PhaseFirst))
	}
	if m, err := c.Plan(v316, v316); err != nil || !m.IsZero() {
		t.Errorf("no move: %+v %v", m, err)
	}
	d := m.Deployment(calicoversion.PhaseFirst, v321)
	if got := d.Releases(); len(got) != 2 || got[0] != v316 || got[1] != v321 {
		t.Errorf("releases %v", got)
	}
	if d.IsSteady() || !calicoversion.Steady(v321).IsSteady() || calicoversion.Steady(v321).String() != "v3.32.1" {
		t.Error("IsSteady/String")
	}
}

// synthetic adds a line v3.33 (release v3.33.0 following v3.32.1) through the same path a real entry
// takes: the catalogue's data plus an entry.
func synthetic(t *testing.T) *calicoversion.Catalogue {
	t.Helper()
	d := calicoversion.Default().Data()
	d.Lines = append(d.Lines, calicoversion.LineData{Name: "v3.33", Kubernetes: calicoversion.KubernetesData{Min: "1.35", Max: "1.37"}, CRDs: "v3.32", CRDStorage: "crd.projectcalico.org/v1"})
	img := map[string]string{}
	for _, n := range calicoversion.AllImageNames() {
		img[n] = "quay.io/calico/" + strings.TrimPrefix(strings.TrimPrefix(n, "calico-"), "calico-") + ":v3.33.0"
	}
	d.Releases = append(d.Releases, calicoversion.ReleaseData{Name: "v3.33.0", Line: "v3.33", Follows: "v3.32.1", Images: img})
	c, err := calicoversion.New(d)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSyntheticLine(t *testing.T) {
	c := synthetic(t)
	v33 := rel(t, c, "v3.33.0")
	for _, d := range []calicoversion.Difference{calicoversion.ClusterNetworkPolicy, calicoversion.PolicyNameMigrator, calicoversion.FelixNFTablesAuto, calicoversion.KubeVirt} {
		if !v33.Has(d) {
			t.Errorf("v3.33.0 follows v3.32.1 and must have %s", d)
		}
	}
	for _, d := range []calicoversion.Difference{calicoversion.AdminNetworkPolicy, calicoversion.CNIVersion1} {
		if v33.Has(d) {
			t.Errorf("v3.33.0 must not have %s", d)
		}
	}
	if len(v33.KnownIssues()) != 1 {
		t.Errorf("the known issue since v3.32.1 has no until: v3.33.0 inherits it")
	}
	if _, err := c.Plan(rel(t, c, "v3.31.6"), v33); err == nil || !strings.Contains(err.Error(), "skips line v3.32") || !strings.Contains(err.Error(), "move to v3.32 first") {
		t.Errorf("a jump over a line: %v", err)
	}
	if m, err := c.Plan(rel(t, c, "v3.32.1"), v33); err != nil || m.Kind != calicoversion.MoveUp {
		t.Errorf("adjacent: %+v %v", m, err)
	}
	if r, err := c.Resolve("v3.33"); err != nil || r != v33 {
		t.Errorf("Resolve v3.33: %v %v", r, err)
	}
	if r, err := c.Recorded("v3.33.4"); err != nil || r.Release != v33 || !r.Retired {
		t.Errorf("Recorded v3.33.4: %+v %v", r, err)
	}
}

func TestNewRefusesBadData(t *testing.T) {
	for name, tt := range map[string]struct {
		edit func(*calicoversion.Data)
		msg  string
	}{
		"unknown difference": {func(d *calicoversion.Data) {
			d.Differences = append(d.Differences, calicoversion.DifferenceData{Name: "ebpf-v2", Since: "v3.31.6", What: "x"})
		}, "differences[11] ebpf-v2: no component implements it"},
		"follows a newer release": {func(d *calicoversion.Data) { d.Releases[0].Follows = "v3.32.1" }, "release v3.31.6: follows \"v3.32.1\": want an older release"},
		"missing image":           {func(d *calicoversion.Data) { delete(d.Releases[1].Images, "calico-cni") }, "releases[1] v3.31.7: images.calico-cni \"\": want REPOSITORY:TAG"},
		"image with a digest": {func(d *calicoversion.Data) {
			d.Releases[1].Images["calico-cni"] = "quay.io/calico/cni:v3.31.7@sha256:0123abcd"
		},
			"releases[1] v3.31.7: images.calico-cni \"quay.io/calico/cni:v3.31.7@sha256:0123abcd\": want REPOSITORY:TAG"},
		"release of another line": {func(d *calicoversion.Data) { d.Releases[1].Line = "v3.32" }, "releases[1] v3.31.7: line \"v3.32\": want its own line"},
		"move without typha":      {func(d *calicoversion.Data) { d.Moves.Up = d.Moves.Up[:1] }, "moves.up: calico-typha must be in exactly one step (found 0 times)"},
		"unknown since":           {func(d *calicoversion.Data) { d.KnownIssues[0].Since = "v3.32.0" }, "knownIssues[0] kube-controllers-stalls-while-calico-node-unavailable: since \"v3.32.0\": want a release of the catalogue"},
		"default line":            {func(d *calicoversion.Data) { d.DefaultLine = "v3.30" }, "defaultLine \"v3.30\""},
		"missing optional image":  {func(d *calicoversion.Data) { delete(d.Releases[2].Images, "calico-goldmane") }, "releases[2] v3.32.1: images.calico-goldmane \"\": want REPOSITORY:TAG"},
		"optional without move":   {func(d *calicoversion.Data) { delete(d.Moves.With, "whisker") }, "moves.with.whisker: missing"},
		"moves with optional":     {func(d *calicoversion.Data) { d.Moves.With["whisker"] = "goldmane" }, "moves.with.whisker: \"goldmane\" is not a core component"},
		"core in moves.with":      {func(d *calicoversion.Data) { d.Moves.With["calico-node"] = "calico-typha" }, "moves.with: \"calico-node\" is not an optional component"},
		"unrecorded line":         {func(d *calicoversion.Data) { d.Unrecorded = "v3.29.1" }, "unrecorded \"v3.29.1\""},
		"kubernetes range":        {func(d *calicoversion.Data) { d.Lines[1].Kubernetes.Min = "1.37" }, "lines[1] v3.32: kubernetes {min: \"1.37\", max: \"1.36\"}"},
	} {
		d := calicoversion.Default().Data()
		tt.edit(&d)
		// Each error is a line that starts with the path of the entry in catalogue.yaml.
		_, err := calicoversion.New(d)
		if err == nil || !slices.ContainsFunc(strings.Split(strings.TrimPrefix(err.Error(), "the Calico catalogue: "), "\n"), func(line string) bool {
			return strings.HasPrefix(line, tt.msg)
		}) {
			t.Errorf("%s: %v; want a line that starts %q", name, err, tt.msg)
		}
	}
	if _, err := calicoversion.Load([]byte("lines: []\nreleasez: []\n")); err == nil || !strings.Contains(err.Error(), "releasez") {
		t.Errorf("strict decoding: %v", err)
	}
}

func TestSplitImage(t *testing.T) {
	for ref, want := range map[string][2]string{
		"quay.io/calico/node:v3.31.6":                  {"quay.io/calico/node", "v3.31.6"},
		"registry.local:5000/calico/node:v3.31.6":      {"registry.local:5000/calico/node", "v3.31.6"},
		"quay.io/calico/node:v3.31.6@sha256:0123abcd":  {"quay.io/calico/node", "v3.31.6"},
		"registry.local:5000/calico/node":              {"registry.local:5000/calico/node", ""},
		"registry.local:5000/calico/node@sha256:01234": {"registry.local:5000/calico/node", ""},
	} {
		if repo, tag := calicoversion.SplitImage(ref); repo != want[0] || tag != want[1] {
			t.Errorf("SplitImage(%q) = %q, %q; want %q, %q", ref, repo, tag, want[0], want[1])
		}
	}
}

func TestReleaseOfTag(t *testing.T) {
	for tag, want := range map[string]string{"v3.31.6": "v3.31.6", "3.32.1": "v3.32.1", "v3.32.1-0.dev": "v3.32.1", "v3.31.6-fix": "v3.31.6"} {
		if n, ok := calicoversion.ReleaseOfTag(tag); !ok || n.String() != want {
			t.Errorf("ReleaseOfTag(%q) = %v, %t; want %s", tag, n, ok, want)
		}
	}
	for _, tag := range []string{"latest", "v3.31", "sha256:abc", "v3.31.6.1", ""} {
		if n, ok := calicoversion.ReleaseOfTag(tag); ok {
			t.Errorf("ReleaseOfTag(%q) = %v, want none", tag, n)
		}
	}
}

// TestMoveRunning: which releases may run each component in every step of a move. A step rolls the
// components it moves pod by pod, so those run either release until it ends; the last step of a line
// move starts once the first step's components rolled out, so only its own components still run the
// release moved from; a patch move (one step) rolls every component; a steady deployment runs one
// release and rolls nothing.
func TestMoveRunning(t *testing.T) {
	c := calicoversion.Default()
	v316, v317, v321 := rel(t, c, "v3.31.6"), rel(t, c, "v3.31.7"), rel(t, c, "v3.32.1")
	both := func(a, b calicoversion.Release) []calicoversion.Release { return []calicoversion.Release{a, b} }
	one := func(a calicoversion.Release) []calicoversion.Release { return []calicoversion.Release{a} }
	for _, tt := range []struct {
		name            string
		from, to        calicoversion.Release
		phase           calicoversion.Phase
		node, typha, kc []calicoversion.Release
	}{
		{"up first: calico-node rolls", v317, v321, calicoversion.PhaseFirst, both(v317, v321), one(v317), one(v317)},
		{"up complete: typha and kube-controllers roll", v317, v321, calicoversion.PhaseComplete, one(v321), both(v317, v321), both(v317, v321)},
		{"down first: typha and kube-controllers roll", v321, v316, calicoversion.PhaseFirst, one(v321), both(v316, v321), both(v316, v321)},
		{"down complete: calico-node rolls", v321, v316, calicoversion.PhaseComplete, both(v316, v321), one(v316), one(v316)},
		{"patch: every component rolls", v317, v316, calicoversion.PhaseComplete, both(v316, v317), both(v316, v317), both(v316, v317)},
	} {
		m, err := c.Plan(tt.from, tt.to)
		if err != nil {
			t.Fatal(err)
		}
		d := m.Deployment(tt.phase, calicoversion.Release{})
		for _, w := range []struct {
			c    calicoversion.Component
			want []calicoversion.Release
		}{{calicoversion.Node, tt.node}, {calicoversion.Typha, tt.typha}, {calicoversion.KubeControllers, tt.kc}} {
			if got := d.Running(w.c); !slices.Equal(got, w.want) {
				t.Errorf("%s: %s runs %v, want %v", tt.name, w.c, got, w.want)
			}
			if rolls := len(w.want) > 1; d.Rolls(w.c) != rolls || (rolls && d.Replacing != tt.from) {
				t.Errorf("%s: %s Rolls %t from %s, want %t from %s", tt.name, w.c, d.Rolls(w.c), d.Replacing, rolls, tt.from)
			}
		}
		want := []calicoversion.Release{tt.from, tt.to}
		slices.SortFunc(want, calicoversion.Release.Compare)
		if got := d.Releases(); !slices.Equal(got, want) {
			t.Errorf("%s: Releases %v, want both", tt.name, got)
		}
	}
	s := calicoversion.SteadyWithCRDs(v316, v321)
	for _, comp := range calicoversion.Components() {
		if got := s.Running(comp); !slices.Equal(got, one(v316)) || s.Rolls(comp) {
			t.Errorf("steady: %s runs %v (rolls %t), want v3.31.6 alone", comp, got, s.Rolls(comp))
		}
	}
	if (calicoversion.Deployment{}).Running(calicoversion.Node) != nil {
		t.Error("no deployment runs nothing")
	}
}

// TestOptionalComponents: every release names the optional components' images; each optional
// component runs the release of the core component it moves with, in every phase of every move.
func TestOptionalComponents(t *testing.T) {
	c := calicoversion.Default()
	for _, r := range c.Releases() {
		for _, img := range calicoversion.OptionalImageNames() {
			repo, tag := r.ImageRepositoryTag(img)
			if tag != r.Name() || !strings.HasPrefix(repo, "quay.io/calico/") {
				t.Errorf("%s: image %s = %s", r, img, r.Image(img))
			}
		}
	}
	with := map[calicoversion.Component]calicoversion.Component{
		calicoversion.APIServer: calicoversion.KubeControllers, calicoversion.Goldmane: calicoversion.Typha,
		calicoversion.Whisker: calicoversion.Typha, calicoversion.CSIDriver: calicoversion.Node,
	}
	for opt, core := range with {
		if got := c.MovesWith(opt); got != core {
			t.Errorf("MovesWith(%s) = %s, want %s", opt, got, core)
		}
	}
	if c.MovesWith(calicoversion.Node) != calicoversion.Node {
		t.Error("a core component moves with itself")
	}
	v316, v321 := rel(t, c, "v3.31.6"), rel(t, c, "v3.32.1")
	for _, tc := range []struct{ from, to calicoversion.Release }{{v316, v321}, {v321, v316}} {
		m, err := c.Plan(tc.from, tc.to)
		if err != nil {
			t.Fatal(err)
		}
		for _, phase := range []calicoversion.Phase{calicoversion.PhaseFirst, calicoversion.PhaseComplete} {
			d := m.Deployment(phase, calicoversion.Release{})
			for opt, core := range with {
				if d.Of(opt) != d.Of(core) {
					t.Errorf("%s to %s, %s: %s runs %s, %s runs %s", tc.from, tc.to, phase, opt, d.Of(opt), core, d.Of(core))
				}
				if m.StepOf(opt) != m.StepOf(core) || m.StepOf(opt) < 0 {
					t.Errorf("%s to %s: %s in step %d, %s in %d", tc.from, tc.to, opt, m.StepOf(opt), core, m.StepOf(core))
				}
			}
		}
	}
	// Moving up, calico-node (and the CSI driver) first; goldmane, whisker and calico-apiserver second.
	m, _ := c.Plan(v316, v321)
	if m.StepOf(calicoversion.CSIDriver) != 0 || m.StepOf(calicoversion.Goldmane) != 1 || m.StepOf(calicoversion.APIServer) != 1 {
		t.Errorf("up: steps %v", m.Steps)
	}
	if (calicoversion.Move{}).StepOf(calicoversion.Goldmane) != -1 {
		t.Error("no move has no step")
	}
	if got := calicoversion.AllComponents(); len(got) != 7 || !slices.Equal(got[:3], calicoversion.Components()) {
		t.Errorf("AllComponents = %v", got)
	}
	for _, o := range calicoversion.Optional() {
		if !o.IsOptional() || o.Workload().Name == "" || len(o.Images()) == 0 {
			t.Errorf("%s: optional %v, workload %+v, images %v", o, o.IsOptional(), o.Workload(), o.Images())
		}
	}
}
