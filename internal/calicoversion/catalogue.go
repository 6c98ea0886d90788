// Package calicoversion is the catalogue of the Calico releases calico-pilot deploys, as data
// (catalogue.yaml): each release's line, images, Kubernetes range and CRD set, every difference it
// brings in the rendered objects and its known issues, each tagged "since release X"; the move order
// between releases; the workloads a move changes; the release that shoots without a record run. Every
// other package asks it: nothing outside compares a version for equality or keeps a fact per line.
//
// docs/calico-lines.md describes the releases and docs/upgrades.md how a shoot moves between them.
package calicoversion

import (
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"
)

//go:embed catalogue.yaml
var catalogueYAML []byte

// Data is the catalogue as written in catalogue.yaml. Tests that need a release or line calico-pilot
// does not carry (yet) start from Default().Data(), add entries and build a Catalogue with New: the
// same path a real entry takes.
type Data struct {
	Lines       []LineData       `json:"lines"`
	DefaultLine string           `json:"defaultLine"`
	Unrecorded  string           `json:"unrecorded"`
	Moves       MovesData        `json:"moves"`
	Releases    []ReleaseData    `json:"releases"`
	Differences []DifferenceData `json:"differences"`
	KnownIssues []KnownIssueData `json:"knownIssues,omitempty"`
}

// LineData is one release line.
type LineData struct {
	Name       string         `json:"name"`
	Kubernetes KubernetesData `json:"kubernetes"`
	CRDs       string         `json:"crds"`
	CRDStorage string         `json:"crdStorage"`
}

// KubernetesData is a range of Kubernetes minors ("1.32"), both ends included.
type KubernetesData struct {
	Min string `json:"min"`
	Max string `json:"max"`
}

// MovesData lists the core components of each step of a move, per kind of move, and the core
// component each optional component moves with.
type MovesData struct {
	Up    [][]Component `json:"up"`
	Down  [][]Component `json:"down"`
	Patch [][]Component `json:"patch"`
	// With maps every optional component to the core component whose step (and release, in every
	// phase of a move) it takes.
	With map[Component]Component `json:"with"`
}

// ReleaseData is one release.
type ReleaseData struct {
	Name      string            `json:"name"`
	Line      string            `json:"line"`
	Follows   string            `json:"follows,omitempty"`
	Published string            `json:"published,omitempty"`
	Images    map[string]string `json:"images"`
}

// DifferenceData is one difference a release brings in the rendered objects.
type DifferenceData struct {
	Name  Difference `json:"name"`
	Since string     `json:"since"`
	Until string     `json:"until,omitempty"`
	What  string     `json:"what"`
}

// KnownIssueData is one known issue of a release.
type KnownIssueData struct {
	ID        string    `json:"id"`
	Since     string    `json:"since"`
	Until     string    `json:"until,omitempty"`
	Component Component `json:"component"`
	Title     string    `json:"title"`
	Detail    string    `json:"detail"`
	Action    string    `json:"action"`
}

// Catalogue is a checked, immutable catalogue of releases.
type Catalogue struct {
	data        Data
	lines       []*lineEntry    // oldest first
	releases    []*releaseEntry // oldest first
	defaultLine *lineEntry
	unrecorded  string
	moves       map[MoveKind][][]Component
	movesWith   map[Component]Component
}

type lineEntry struct {
	cat        *Catalogue
	name       Name
	data       LineData
	kmin, kmax int
	releases   []*releaseEntry // oldest first
}

type releaseEntry struct {
	cat         *Catalogue
	name        Name
	line        *lineEntry
	follows     *releaseEntry
	data        ReleaseData
	differences map[Difference]bool
	issues      []KnownIssue
}

var loadDefault = sync.OnceValues(func() (*Catalogue, error) { return Load(catalogueYAML) })

// Default is the catalogue this calico-pilot carries (catalogue.yaml). It is parsed once; the embedded
// file is checked by the package's tests, so an invalid one never ships.
func Default() *Catalogue {
	c, err := loadDefault()
	if err != nil {
		panic(fmt.Sprintf("the embedded Calico catalogue is invalid: %v", err))
	}
	return c
}

// Load parses and checks a catalogue file (strict: an unknown field is an error).
func Load(data []byte) (*Catalogue, error) {
	var d Data
	if err := yaml.UnmarshalStrict(data, &d); err != nil {
		return nil, fmt.Errorf("decoding the Calico catalogue: %w", err)
	}
	return New(d)
}

// Data returns a deep copy of what the catalogue was built from.
func (c *Catalogue) Data() Data {
	out := c.data
	out.Lines = slices.Clone(c.data.Lines)
	out.Releases = make([]ReleaseData, len(c.data.Releases))
	for i, r := range c.data.Releases {
		r.Images = cloneMap(r.Images)
		out.Releases[i] = r
	}
	out.Differences = slices.Clone(c.data.Differences)
	out.KnownIssues = slices.Clone(c.data.KnownIssues)
	out.Moves = MovesData{Up: cloneSteps(c.data.Moves.Up), Down: cloneSteps(c.data.Moves.Down), Patch: cloneSteps(c.data.Moves.Patch)}
	if c.data.Moves.With != nil {
		out.Moves.With = make(map[Component]Component, len(c.data.Moves.With))
		for k, v := range c.data.Moves.With {
			out.Moves.With[k] = v
		}
	}
	return out
}

func cloneMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func cloneSteps(s [][]Component) [][]Component {
	out := make([][]Component, len(s))
	for i, step := range s {
		out[i] = slices.Clone(step)
	}
	return out
}

// New checks d and builds the catalogue; every error names the entry and what is wrong.
func New(d Data) (*Catalogue, error) {
	b := &builder{c: &Catalogue{moves: map[MoveKind][][]Component{}, movesWith: map[Component]Component{}}, lines: map[string]*lineEntry{}, releases: map[string]*releaseEntry{}}
	b.c.data = d
	b.c.data = b.c.Data() // own copy
	d = b.c.data
	b.addLines(d.Lines)
	b.addReleases(d.Releases)
	b.setDefaults(d.DefaultLine, d.Unrecorded)
	b.addMoves(d.Moves)
	b.addDifferences(d.Differences)
	b.addKnownIssues(d.KnownIssues)
	if len(b.errs) > 0 {
		return nil, fmt.Errorf("the Calico catalogue: %w", errors.Join(b.errs...))
	}
	return b.c, nil
}

// builder builds a Catalogue, collecting every error.
type builder struct {
	c        *Catalogue
	lines    map[string]*lineEntry    // by "vX.Y"
	releases map[string]*releaseEntry // by "vX.Y.Z"
	errs     []error
}

func (b *builder) bad(format string, args ...any) {
	b.errs = append(b.errs, fmt.Errorf(format, args...))
}

// addLines checks and adds the lines, oldest first.
func (b *builder) addLines(lines []LineData) {
	for i, ld := range lines {
		n, err := ParseName(ld.Name)
		switch {
		case err != nil || n.HasPatch:
			b.bad("lines[%d].name %q: want a line vMAJOR.MINOR", i, ld.Name)
			continue
		case b.lines[n.Line()] != nil:
			b.bad("lines[%d].name %q: listed twice", i, ld.Name)
			continue
		case len(b.c.lines) > 0 && b.c.lines[len(b.c.lines)-1].name.Compare(n) >= 0:
			b.bad("lines[%d].name %q: lines are listed oldest first", i, ld.Name)
		}
		l := &lineEntry{cat: b.c, name: n, data: ld}
		var ok1, ok2 bool
		l.kmin, ok1 = kubernetesMinor(ld.Kubernetes.Min)
		l.kmax, ok2 = kubernetesMinor(ld.Kubernetes.Max)
		if !ok1 || !ok2 || l.kmin > l.kmax {
			b.bad("lines[%d] %s: kubernetes {min: %q, max: %q}: want two Kubernetes minors 1.x, min <= max", i, ld.Name, ld.Kubernetes.Min, ld.Kubernetes.Max)
		}
		if ld.CRDs == "" || ld.CRDStorage == "" {
			b.bad("lines[%d] %s: crds and crdStorage are required", i, ld.Name)
		}
		b.lines[n.Line()] = l
		b.c.lines = append(b.c.lines, l)
	}
	if len(b.c.lines) == 0 {
		b.bad("lines: at least one line is required")
	}
}

// addReleases checks and adds the releases and links each to its line and the release it follows.
func (b *builder) addReleases(releases []ReleaseData) {
	for i, rd := range releases {
		b.addRelease(i, rd)
	}
	slices.SortFunc(b.c.releases, func(x, y *releaseEntry) int { return x.name.Compare(y.name) })
	b.linkReleases()
}

// addRelease checks and adds release i.
func (b *builder) addRelease(i int, rd ReleaseData) {
	n, err := ParseName(rd.Name)
	if err != nil || !n.HasPatch {
		b.bad("releases[%d].name %q: want a release vMAJOR.MINOR.PATCH", i, rd.Name)
		return
	}
	if b.releases[n.String()] != nil {
		b.bad("releases[%d].name %q: listed twice", i, rd.Name)
		return
	}
	l := b.lines[normalizeLine(rd.Line)]
	if l == nil || l.name.Line() != n.Line() {
		b.bad("releases[%d] %s: line %q: want its own line, one of %s", i, rd.Name, rd.Line, strings.Join(b.c.LineNames(), ", "))
		return
	}
	b.checkImages(i, rd)
	r := &releaseEntry{cat: b.c, name: n, line: l, data: rd, differences: map[Difference]bool{}}
	b.releases[n.String()] = r
	b.c.releases = append(b.c.releases, r)
}

// checkImages checks release i names each of Calico's images (the optional components' too) as
// REPOSITORY:TAG, and no other.
func (b *builder) checkImages(i int, rd ReleaseData) {
	for _, img := range AllImageNames() {
		ref := rd.Images[img]
		repo, tag := SplitImage(ref)
		if repo == "" || tag == "" || strings.Contains(ref, "@") {
			b.bad("releases[%d] %s: images.%s %q: want REPOSITORY:TAG", i, rd.Name, img, ref)
		}
	}
	for img := range rd.Images {
		if !slices.Contains(AllImageNames(), img) {
			b.bad("releases[%d] %s: images.%s: not an image of Calico's components (%s)", i, rd.Name, img, strings.Join(AllImageNames(), ", "))
		}
	}
}

// linkReleases links the releases, oldest first, to their lines and the releases they follow; every
// line needs a release.
func (b *builder) linkReleases() {
	for _, r := range b.c.releases {
		r.line.releases = append(r.line.releases, r)
		if r.data.Follows == "" {
			continue
		}
		f := b.releases[normalize(r.data.Follows)]
		if f == nil || f.name.Compare(r.name) >= 0 {
			b.bad("release %s: follows %q: want an older release of the catalogue", r.name, r.data.Follows)
			continue
		}
		r.follows = f
	}
	for _, l := range b.c.lines {
		if len(l.releases) == 0 {
			b.bad("line %s: no release", l.name.Line())
		}
	}
}

// setDefaults checks the default line and the release unrecorded shoots run.
func (b *builder) setDefaults(defaultLine, unrecorded string) {
	if l := b.lines[normalizeLine(defaultLine)]; l == nil {
		b.bad("defaultLine %q: want a line of the catalogue (%s)", defaultLine, strings.Join(b.c.LineNames(), ", "))
	} else {
		b.c.defaultLine = l
	}
	if n, err := ParseName(unrecorded); err != nil || !n.HasPatch || b.lines[n.Line()] == nil {
		b.bad("unrecorded %q: want a release of a line of the catalogue", unrecorded)
	} else {
		b.c.unrecorded = n.String()
	}
}

// addMoves checks that every kind of move has each component in exactly one step.
func (b *builder) addMoves(moves MovesData) {
	for kind, steps := range map[MoveKind][][]Component{MoveUp: moves.Up, MoveDown: moves.Down, MovePatch: moves.Patch} {
		seen := map[Component]int{}
		for _, step := range steps {
			if len(step) == 0 {
				b.bad("moves.%s: an empty step", kind)
			}
			for _, comp := range step {
				seen[comp]++
			}
		}
		for _, comp := range Components() {
			if seen[comp] != 1 {
				b.bad("moves.%s: %s must be in exactly one step (found %d times)", kind, comp, seen[comp])
			}
		}
		for comp := range seen {
			if !slices.Contains(Components(), comp) {
				b.bad("moves.%s: %q is not a component (%s)", kind, comp, componentNames())
			}
		}
		b.c.moves[kind] = steps
	}
	b.addMovesWith(moves.With)
}

// addMovesWith checks that every optional component moves with one core component.
func (b *builder) addMovesWith(with map[Component]Component) {
	for _, opt := range Optional() {
		core, ok := with[opt]
		switch {
		case !ok:
			b.bad("moves.with.%s: missing; want the core component it moves with (%s)", opt, componentNames())
		case !slices.Contains(Components(), core):
			b.bad("moves.with.%s: %q is not a core component (%s)", opt, core, componentNames())
		default:
			b.c.movesWith[opt] = core
		}
	}
	for opt := range with {
		if !opt.IsOptional() {
			b.bad("moves.with: %q is not an optional component (%s)", opt, optionalNames())
		}
	}
}

// inRange returns whether a release is in [since, until) along the releases it follows.
func (b *builder) inRange(what, since, until string) func(*releaseEntry) bool {
	s := b.releases[normalize(since)]
	if s == nil {
		b.bad("%s: since %q: want a release of the catalogue", what, since)
		return func(*releaseEntry) bool { return false }
	}
	var u *releaseEntry
	if until != "" {
		if u = b.releases[normalize(until)]; u == nil {
			b.bad("%s: until %q: want a release of the catalogue", what, until)
		}
	}
	return func(r *releaseEntry) bool { return r.descendsFrom(s) && (u == nil || !r.descendsFrom(u)) }
}

// addDifferences tags the releases with the differences they bring.
func (b *builder) addDifferences(differences []DifferenceData) {
	seenDiff := map[Difference]bool{}
	for i, dd := range differences {
		what := fmt.Sprintf("differences[%d] %s", i, dd.Name)
		if !slices.Contains(implemented, dd.Name) {
			b.bad("%s: no component implements it (known: %s)", what, strings.Join(differenceNames(), ", "))
			continue
		}
		if seenDiff[dd.Name] {
			b.bad("%s: listed twice", what)
		}
		seenDiff[dd.Name] = true
		if strings.TrimSpace(dd.What) == "" {
			b.bad("%s: what is required", what)
		}
		has := b.inRange(what, dd.Since, dd.Until)
		for _, r := range b.c.releases {
			if has(r) {
				r.differences[dd.Name] = true
			}
		}
	}
}

// addKnownIssues tags the releases with their known issues.
func (b *builder) addKnownIssues(issues []KnownIssueData) {
	for i, kd := range issues {
		what := fmt.Sprintf("knownIssues[%d] %s", i, kd.ID)
		if kd.ID == "" || kd.Title == "" || kd.Detail == "" || kd.Action == "" {
			b.bad("%s: id, title, detail and action are required", what)
		}
		if !slices.Contains(Components(), kd.Component) {
			b.bad("%s: component %q: want one of %s", what, kd.Component, componentNames())
		}
		has := b.inRange(what, kd.Since, kd.Until)
		for _, r := range b.c.releases {
			if has(r) {
				r.issues = append(r.issues, KnownIssue{ID: kd.ID, Component: kd.Component, Title: kd.Title, Detail: kd.Detail, Action: kd.Action, Since: kd.Since})
			}
		}
	}
}

// descendsFrom is true when r is a or follows a, directly or not.
func (r *releaseEntry) descendsFrom(a *releaseEntry) bool {
	for x := r; x != nil; x = x.follows {
		if x == a {
			return true
		}
	}
	return false
}

func normalize(s string) string {
	n, err := ParseName(s)
	if err != nil {
		return s
	}
	return n.String()
}

func normalizeLine(s string) string {
	n, err := ParseName(s)
	if err != nil {
		return s
	}
	return n.Line()
}

// Lines returns the lines, oldest first.
func (c *Catalogue) Lines() []Line {
	return mapEach(c.lines, func(l *lineEntry) Line { return Line{l} })
}

// LineNames are the lines' names, oldest first ("v3.31", ...), for messages and flag help.
func (c *Catalogue) LineNames() []string {
	return mapEach(c.lines, func(l *lineEntry) string { return l.name.Line() })
}

// Releases returns every release, oldest first.
func (c *Catalogue) Releases() []Release {
	return mapEach(c.releases, func(r *releaseEntry) Release { return Release{r} })
}

// ReleaseNames are the releases' names, oldest first.
func (c *Catalogue) ReleaseNames() []string {
	return mapEach(c.releases, func(r *releaseEntry) string { return r.name.String() })
}

// mapEach is f of each element of in, in order.
func mapEach[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// Accepted says what a pin or a target may name, for error messages.
func (c *Catalogue) Accepted() string {
	return fmt.Sprintf("a line (%s: its newest release) or a release (%s)", strings.Join(c.LineNames(), ", "), strings.Join(c.ReleaseNames(), ", "))
}

// DefaultRelease is what a new shoot gets when neither its owner nor the operator says otherwise: the
// newest release of the catalogue's default line.
func (c *Catalogue) DefaultRelease() Release { return Line{c.defaultLine}.Newest() }

// DefaultLine is the catalogue's default line.
func (c *Catalogue) DefaultLine() Line { return Line{c.defaultLine} }

// Unrecorded is the release a shoot runs whose Network records none (deployed by the reference, or by
// calico-pilot before releases were recorded); when the catalogue no longer carries it, the newest
// release of its line, as for any retired release (Recorded).
func (c *Catalogue) Unrecorded() Recorded {
	r, err := c.Recorded(c.unrecorded)
	if err != nil {
		// New checked that its line is carried.
		panic(err)
	}
	return r
}

// Release returns the carried release named exactly (normalized: "3.31.7" is "v3.31.7").
func (c *Catalogue) Release(name string) (Release, bool) {
	n, err := ParseName(name)
	if err != nil || !n.HasPatch {
		return Release{}, false
	}
	for _, r := range c.releases {
		if r.name == n {
			return Release{r}, true
		}
	}
	return Release{}, false
}

// Line returns the line named ("v3.31", "3.31"; a release name gives its line).
func (c *Catalogue) Line(name string) (Line, bool) {
	n, err := ParseName(name)
	if err != nil {
		return Line{}, false
	}
	for _, l := range c.lines {
		if l.name.Line() == n.Line() {
			return Line{l}, true
		}
	}
	return Line{}, false
}

// Resolve returns what a pin, a rollout's target or a command's --calico-version names: a release the
// catalogue carries, or a line, meaning that line's newest release. Anything else is an error saying
// what is accepted.
func (c *Catalogue) Resolve(s string) (Release, error) {
	n, err := ParseName(s)
	if err != nil {
		//lint:ignore ST1005 the message starts with the product's name
		return Release{}, fmt.Errorf("Calico %q is not a release name; accepted: %s", s, c.Accepted())
	}
	l, ok := c.Line(n.Line())
	if !ok {
		//lint:ignore ST1005 the message starts with the product's name
		return Release{}, fmt.Errorf("Calico %q is not supported; accepted: %s", s, c.Accepted())
	}
	if !n.HasPatch {
		return l.Newest(), nil
	}
	if r, ok := c.Release(n.String()); ok {
		return r, nil
	}
	//lint:ignore ST1005 the message starts with the product's name
	return Release{}, fmt.Errorf("Calico %s is not a release this calico-pilot deploys; its line %s has %s (name the line for its newest release)",
		n, l.Name(), strings.Join(l.ReleaseNames(), ", "))
}

// Recorded is a release read back from a Network's status (or a deployed manifest): the carried
// release it runs as.
type Recorded struct {
	// Release is the carried release: the recorded one, or the newest of its line when it is retired.
	Release Release
	// Name is the name as recorded ("v3.32.0").
	Name string
	// Retired is true when the catalogue does not carry Name (older or newer than what it carries):
	// the shoot moves to Release, its line's newest, at its next reconcile.
	Retired bool
}

// Recorded maps a recorded release name to the release the shoot runs as: the release itself when
// carried; else the newest release of its line (retired: a calico-pilot that no longer carries it, or
// a release recorded by a newer calico-pilot). A line the catalogue does not carry is an error: the
// shoot cannot be rendered without moving it across lines. Empty is zero, no error.
func (c *Catalogue) Recorded(name string) (Recorded, error) {
	if strings.TrimSpace(name) == "" {
		return Recorded{}, nil
	}
	n, err := ParseName(name)
	if err != nil {
		return Recorded{}, fmt.Errorf("recorded Calico release %q is not a release name", name)
	}
	l, ok := c.Line(n.Line())
	if !ok {
		return Recorded{}, fmt.Errorf("recorded Calico release %q is of line %s, which this calico-pilot does not carry (lines: %s); "+
			"run a calico-pilot version that carries it", name, n.Line(), strings.Join(c.LineNames(), ", "))
	}
	if !n.HasPatch {
		return Recorded{Release: l.Newest(), Name: name}, nil
	}
	if r, ok := c.Release(n.String()); ok {
		return Recorded{Release: r, Name: name}, nil
	}
	return Recorded{Release: l.Newest(), Name: name, Retired: true}, nil
}

// Message says what a recorded release runs as, for people ("" when carried).
func (r Recorded) Message() string {
	if !r.Retired {
		return ""
	}
	return fmt.Sprintf("Calico %s is not carried by this calico-pilot (retired); the shoot moves to the newest release of its line, %s", r.Name, r.Release)
}
