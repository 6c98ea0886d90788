package imagevector

import (
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"
	"sigs.k8s.io/yaml"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/decode"
	"github.com/calico-pilot/calico-pilot/internal/version"
)

// Image names, as used in the embedded file and in override files (the reference extension's names).
const (
	NameCalicoNode            = "calico-node"
	NameCalicoCNI             = "calico-cni"
	NameCalicoTypha           = "calico-typha"
	NameCalicoKubeControllers = "calico-kube-controllers"
	NameCPA                   = "calico-cpa"
	NameCPVA                  = "calico-cpva"
	NameBirdExporter          = "bird-exporter"
	NameMultus                = "multus-cni"
	NameCNIPlugins            = "cni-plugins"
	// The optional Calico components' images (calicoversion.OptionalImageNames): entries from the
	// catalogue as for the core images; a Gardener shoot deploys none of them.
	NameCalicoAPIServer           = "calico-apiserver"
	NameCalicoGoldmane            = "calico-goldmane"
	NameCalicoWhisker             = "calico-whisker"
	NameCalicoWhiskerBackend      = "calico-whisker-backend"
	NameCalicoCSI                 = "calico-csi"
	NameCalicoNodeDriverRegistrar = "calico-node-driver-registrar"
)

// names are the images calico-pilot looks up; an entry for any other name is ignored (Vector.Ignored),
// as Gardener's image vector ignores names nobody looks up.
var names = []string{
	NameBirdExporter, NameCalicoCNI, NameCalicoKubeControllers, NameCalicoNode, NameCalicoTypha,
	NameCNIPlugins, NameCPA, NameCPVA, NameMultus,
	NameCalicoAPIServer, NameCalicoGoldmane, NameCalicoWhisker, NameCalicoWhiskerBackend, NameCalicoCSI, NameCalicoNodeDriverRegistrar,
}

// OverrideEnv is the environment variable naming an override file (Gardener's name, so operators keep
// their setup).
const OverrideEnv = "IMAGEVECTOR_OVERWRITE"

// Architectures an entry may be restricted to.
const (
	ArchAMD64 = "amd64"
	ArchARM64 = "arm64"
)

//go:embed images.yaml
var embedded []byte

// Source is one entry of an image vector in Gardener's format.
type Source struct {
	// Name identifies the image ("calico-node", ...). Required.
	Name string `json:"name"`
	// Ref is a full image reference; it excludes Repository and Tag.
	Ref *string `json:"ref,omitempty"`
	// Repository is the image repository without tag or digest.
	Repository *string `json:"repository,omitempty"`
	// Tag is a tag, a digest ("sha256:...") or both ("v1@sha256:...").
	Tag *string `json:"tag,omitempty"`
	// RuntimeVersion is a semver constraint on the Kubernetes version of the cluster the image runs in.
	RuntimeVersion *string `json:"runtimeVersion,omitempty"`
	// TargetVersion is a semver constraint on the Kubernetes version of the cluster the image acts on.
	TargetVersion *string `json:"targetVersion,omitempty"`
	// Architectures the image is for (amd64, arm64); none means both.
	Architectures []string `json:"architectures,omitempty"`

	// Version, SourceRepository, Labels and ResourceID are informational in Gardener's format (component
	// descriptors, CVE categorisation): accepted and not used.
	Version          *string `json:"version,omitempty"`
	SourceRepository *string `json:"sourceRepository,omitempty"`
	Labels           any     `json:"labels,omitempty"`
	ResourceID       any     `json:"resourceId,omitempty"`

	// Digest is not part of Gardener's format; it is decoded only to explain where a digest goes.
	Digest *string `json:"digest,omitempty"`

	// pinnedForEvery is set on an entry of a Calico image (one per release) whose tag or ref an
	// override without `version` set: it pins one image for every release, so the entry is of the
	// release its tag names, not of its `version` (Availability).
	pinnedForEvery bool
}

// Vector is an image vector: Gardener's format, a list of sources.
type Vector struct {
	Sources []Source `json:"images"`
	// CABundle (Gardener v1.149+: CA certificates of the registries, for Gardener's own components) is
	// accepted and not used: calico-pilot does not pull images itself.
	CABundle any `json:"caBundle,omitempty"`

	// ignored are the names of entries calico-pilot does not look up (Ignored).
	ignored []IgnoredName
	// catalogue is the Calico release catalogue the vector's Calico entries come from.
	catalogue *calicoversion.Catalogue
}

// calicoSources are the entries of Calico's images (the optional components' too), one per image
// and release of cat.
func calicoSources(cat *calicoversion.Catalogue) []Source {
	var out []Source
	for _, r := range cat.Releases() {
		for _, name := range calicoversion.AllImageNames() {
			repo, tag := r.ImageRepositoryTag(name)
			out = append(out, Source{Name: name, Repository: &repo, Tag: &tag, Version: ptrTo(r.Name())})
		}
	}
	return out
}

func ptrTo(s string) *string { return &s }

// Catalogue is the Calico release catalogue of the vector's Calico entries.
func (v *Vector) Catalogue() *calicoversion.Catalogue {
	if v.catalogue == nil {
		return calicoversion.Default()
	}
	return v.catalogue
}

// IgnoredName is the name of image vector entries calico-pilot does not use, with the image it
// probably meant when the name is a near miss of one of its own.
type IgnoredName struct {
	Name string
	// DidYouMean is the closest name calico-pilot uses, when Name is at most two edits away from
	// it ("calico-nodes"); empty otherwise ("pause-container").
	DidYouMean string
}

// Ignored returns the names of the entries calico-pilot does not use, each once, in the order they
// first appear. Gardener's image vector (and so the reference extension) ignores them: an operator's
// override file shared between extensions carries images for others (the reference's own example has
// pause-container). Callers log them once, so a misspelt name does not go unnoticed.
func (v *Vector) Ignored() []IgnoredName {
	return append([]IgnoredName(nil), v.ignored...)
}

// FindOptions say for which cluster an image is looked up.
type FindOptions struct {
	// RuntimeVersion and TargetVersion are Kubernetes versions ("1.33.2"); empty means unknown, which
	// satisfies every constraint without scoring (Gardener's rule for an absent version). calico-pilot's
	// images run in and act on the shoot: both are the shoot's version.
	RuntimeVersion string
	TargetVersion  string
	// Architecture requested; empty means amd64 (Gardener's default for scoring).
	Architecture string
	// OptionalTag is the tag of an entry that has none and gets none from TargetVersion (Gardener's
	// WithOptionalTag). Images sets it to calico-pilot's own version for its own images (cni-plugins).
	OptionalTag string
	// Calico is the Calico release a Calico image is looked up for; zero means the catalogue's default
	// release. Entries of Calico's images carry their release in `version`: an entry matches when its
	// `version` names the release or its line, or has no `version`.
	Calico calicoversion.Release
}

// ShootOptions are the options for images deployed into a shoot of the given Kubernetes version.
func ShootOptions(kubernetesVersion string) FindOptions {
	return FindOptions{RuntimeVersion: kubernetesVersion, TargetVersion: kubernetesVersion}
}

// Images is a resolved set of image references by name.
type Images struct {
	CalicoNode            string
	CalicoCNI             string
	CalicoTypha           string
	CalicoKubeControllers string
	CPA                   string
	CPVA                  string
	BirdExporter          string
	Multus                string
	CNIPlugins            string
	// The optional components' images, each of the release its component runs
	// (calicoversion.Deployment.Of); render uses them only for the components it renders.
	CalicoAPIServer           string
	CalicoGoldmane            string
	CalicoWhisker             string
	CalicoWhiskerBackend      string
	CalicoCSI                 string
	CalicoNodeDriverRegistrar string
}

// LoadVector returns the embedded vector (with the Calico images of the default catalogue) with
// override merged onto it by Gardener's rules: an override entry whose key (name, runtimeVersion,
// targetVersion, architectures; for Calico's images also the release of `version`) equals an entry's
// replaces the fields it sets; any other override entry is appended.
func LoadVector(override []byte) (*Vector, error) {
	return LoadVectorFor(calicoversion.Default(), override)
}

// LoadVectorFor is LoadVector with the Calico images of catalogue cat.
func LoadVectorFor(cat *calicoversion.Catalogue, override []byte) (*Vector, error) {
	base, err := Parse(embedded, "embedded image vector")
	if err != nil {
		return nil, err
	}
	base.catalogue = cat
	base.Sources = append(calicoSources(cat), base.Sources...)
	if override == nil {
		return base, nil
	}
	over, err := Parse(override, "image vector override")
	if err != nil {
		return nil, err
	}
	if err := checkReleaseNamed(over, "image vector override"); err != nil {
		return nil, err
	}
	return base.Merge(over), nil
}

// checkReleaseNamed refuses an entry of a Calico image without `version` whose tag (or ref) names
// no Calico release (a bare digest, "latest"): such an entry applies to every release, and which
// release its image is of cannot be known, so neither can the releases the landscape runs.
func checkReleaseNamed(v *Vector, what string) error {
	var errs []error
	for i, s := range v.Sources {
		if !isCalicoImage(s.Name) || s.Version != nil || (s.Tag == nil && s.Ref == nil) {
			continue
		}
		tag := ""
		if s.Tag != nil {
			tag = *s.Tag
		} else {
			_, tag = calicoversion.SplitImage(*s.Ref)
		}
		if _, ok := calicoversion.ReleaseOfTag(tag); ok {
			continue
		}
		given := fmt.Sprintf("tag %q", tag)
		if s.Tag == nil {
			given = fmt.Sprintf("ref %q", *s.Ref)
		}
		errs = append(errs, fmt.Errorf("%s: images[%d] (%s): %s names no Calico release, and an entry without `version` applies to every release: "+
			"add `version: vX.Y.Z` (the Calico release of this image), or a tag that starts with the release (vX.Y.Z@sha256:...)", what, i, s.Name, given))
	}
	return errors.Join(errs...)
}

// VectorFromEnv returns the embedded vector with the override file named by $IMAGEVECTOR_OVERWRITE, if
// set, merged onto it.
func VectorFromEnv(lookupEnv func(string) (string, bool), readFile func(string) ([]byte, error)) (*Vector, error) {
	path, ok := lookupEnv(OverrideEnv)
	if !ok || path == "" {
		return LoadVector(nil)
	}
	data, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading image vector override %s (from $%s): %w", path, OverrideEnv, err)
	}
	v, err := LoadVector(data)
	if err != nil {
		return nil, fmt.Errorf("%s (from $%s): %w", path, OverrideEnv, err)
	}
	return v, nil
}

// Parse decodes and validates an image vector. Fields outside Gardener's format are errors (Gardener
// ignores them; a misspelt "repositry" would silently keep the old image).
func Parse(data []byte, what string) (*Vector, error) {
	var v Vector
	if err := yaml.UnmarshalStrict(data, &v); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", what, err)
	}
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	var errs []error
	seen := map[string]bool{}
	for i, s := range v.Sources {
		p := fmt.Sprintf("%s: images[%d]", what, i)
		for _, err := range validate(s) {
			errs = append(errs, fmt.Errorf("%s.%w", p, err))
		}
		if s.Name != "" && !known[s.Name] && !seen[s.Name] {
			seen[s.Name] = true
			v.ignored = append(v.ignored, IgnoredName{Name: s.Name, DidYouMean: closest(s.Name)})
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &v, nil
}

// closest is the name calico-pilot uses that is at most two edits away from name (or equal but for
// case), or "".
func closest(name string) string { return decode.Suggest(name, names) }

var (
	digestRE      = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	fullVersionRE = regexp.MustCompile(`^v?[0-9]+\.[0-9]+\.[0-9]+`)
	// tagRE is the OCI distribution spec's tag grammar.
	tagRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)
)

// validate checks an entry as Gardener does (and more strictly: a typo must not keep the old image),
// whatever its name: the reference failed on a malformed entry of any name too.
func validate(s Source) []error {
	var errs []error
	if s.Name == "" {
		errs = append(errs, errors.New("name: required"))
	}
	if s.Digest != nil {
		errs = append(errs, errors.New("digest: not a field of Gardener's image vector format; put the digest in tag (tag: sha256:<hex> or tag: <tag>@sha256:<hex>)"))
	}
	errs = append(errs, validateReference(s)...)
	if s.Tag != nil {
		errs = append(errs, validateTag(*s.Tag)...)
	}
	errs = append(errs, validateConstraints(s)...)
	for j, a := range s.Architectures {
		if a != ArchAMD64 && a != ArchARM64 {
			errs = append(errs, fmt.Errorf("architectures[%d]: %q is not supported, expected amd64 or arm64", j, a))
		}
	}
	return errs
}

// optionalField is an optional string field of an entry and its name, for checks of several fields.
type optionalField struct {
	field string
	value *string
}

// validateReference checks how the entry names its image: ref, or repository (and tag), none empty.
func validateReference(s Source) []error {
	var errs []error
	for _, f := range []optionalField{{"ref", s.Ref}, {"repository", s.Repository}, {"tag", s.Tag}} {
		if f.value != nil && strings.TrimSpace(*f.value) == "" {
			errs = append(errs, fmt.Errorf("%s: must not be empty (leave it out instead)", f.field))
		}
	}
	switch {
	case s.Ref != nil && (s.Repository != nil || s.Tag != nil):
		errs = append(errs, errors.New("ref: excludes repository and tag; give either ref or repository (and tag)"))
	case s.Ref == nil && s.Repository == nil:
		errs = append(errs, errors.New("repository: required unless ref is given (an entry with only a tag cannot be resolved)"))
	}
	if s.Repository != nil && (strings.ContainsAny(*s.Repository, "@ ") || strings.HasSuffix(*s.Repository, ":")) {
		errs = append(errs, fmt.Errorf("repository: %q must be a repository without tag or digest", *s.Repository))
	}
	return errs
}

// validateTag checks a tag: a tag, a digest, or tag@digest.
func validateTag(tag string) []error {
	var errs []error
	// The tag part (before @, or all of a tag that is not a digest) has the OCI tag grammar:
	// a registry and the kubelet refuse anything else ("v3.28 rc1").
	if name, _, _ := strings.Cut(tag, "@"); name != "" && !strings.HasPrefix(name, "sha256:") && !tagRE.MatchString(name) {
		errs = append(errs, fmt.Errorf("tag: %q is not an image tag: up to 128 letters, digits, _, . and -, not starting with . or -", tag))
	}
	if _, digest, ok := strings.Cut(tag, "@"); ok {
		if !digestRE.MatchString(digest) {
			errs = append(errs, fmt.Errorf("tag: %q: the part after @ must be a digest sha256:<64 hex digits>", tag))
		}
	} else if strings.HasPrefix(tag, "sha256:") && !digestRE.MatchString(tag) {
		errs = append(errs, fmt.Errorf("tag: %q is not a digest, expected sha256:<64 hex digits>", tag))
	}
	return errs
}

// validateConstraints checks runtimeVersion and targetVersion are semver constraints.
func validateConstraints(s Source) []error {
	var errs []error
	for _, c := range []optionalField{{"runtimeVersion", s.RuntimeVersion}, {"targetVersion", s.TargetVersion}} {
		if c.value == nil {
			continue
		}
		if _, err := semver.NewConstraint(*c.value); err != nil {
			errs = append(errs, fmt.Errorf("%s: %q is not a semver constraint: %w", c.field, *c.value, err))
		}
	}
	return errs
}

// Merge returns v with override merged onto it (LoadVector). Neither input is changed.
func (v *Vector) Merge(override *Vector) *Vector {
	out := &Vector{Sources: make([]Source, len(v.Sources)), CABundle: v.CABundle, catalogue: v.catalogue}
	out.ignored = append(append([]IgnoredName(nil), v.ignored...), override.ignored...)
	seen := map[string]bool{}
	out.ignored = slices.DeleteFunc(out.ignored, func(n IgnoredName) bool {
		dup := seen[n.Name]
		seen[n.Name] = true
		return dup
	})
	copy(out.Sources, v.Sources)
	// An entry of a Calico image with `version` is more specific than one without, wherever it is in
	// the file: the entries without `version` are merged first.
	ordered := slices.Clone(override.Sources)
	slices.SortStableFunc(ordered, func(a, b Source) int { return versionedCalico(a) - versionedCalico(b) })
	for _, o := range ordered {
		matches := out.indexes(o)
		if len(matches) == 0 {
			out.Sources = append(out.Sources, o)
			continue
		}
		for _, i := range matches {
			out.Sources[i] = mergeSource(out.Sources[i], o)
		}
	}
	return out
}

// versionedCalico is 1 for an entry of a Calico image with `version`, else 0.
func versionedCalico(s Source) int {
	if isCalicoImage(s.Name) && s.Version != nil {
		return 1
	}
	return 0
}

// mergeSource is cur with the fields o sets. The `version` of a Calico image's entry stays the
// release it was made for (an override naming a line applies to each release of it).
func mergeSource(cur, o Source) Source {
	calico := isCalicoImage(cur.Name) && cur.Version != nil
	switch {
	case o.Ref != nil:
		cur.Ref, cur.Repository, cur.Tag = o.Ref, nil, nil
	case o.Repository != nil:
		cur.Ref, cur.Repository = nil, o.Repository
	}
	if o.Tag != nil {
		cur.Tag = o.Tag
	}
	if calico && (o.Tag != nil || o.Ref != nil) {
		cur.pinnedForEvery = o.Version == nil
	}
	if o.Version != nil && !calico {
		cur.Version = o.Version
	}
	return cur
}

// indexes are the positions of the entries with the same key as s (name, runtimeVersion,
// targetVersion, architectures): the first one, as in Gardener, except for Calico's images, whose key
// also has the release of `version`. An override of a Calico image without `version` applies to the
// entries of every release, one whose `version` names a line to every release of that line (a mirror's
// repository is meant for all of them; checkCalicoTag refuses a pinned tag deployed for another release).
func (v *Vector) indexes(s Source) []int {
	var out []int
	for i, e := range v.Sources {
		if e.Name != s.Name || !equalPtr(e.RuntimeVersion, s.RuntimeVersion) || !equalPtr(e.TargetVersion, s.TargetVersion) ||
			!sameSet(e.Architectures, s.Architectures) {
			continue
		}
		if !isCalicoImage(s.Name) {
			return []int{i}
		}
		if s.Version != nil && (e.Version == nil || !versionCovers(*s.Version, *e.Version)) {
			// Another key: an entry without `version` (appended by an override) is for every release.
			continue
		}
		out = append(out, i)
	}
	return out
}

// versionCovers is true when an override's `version` (a release or a line) covers an entry's
// `version` (a release): the same release, or the release's line. Values that are not Calico version
// names must be equal.
func versionCovers(override, entry string) bool {
	o, err1 := calicoversion.ParseName(override)
	e, err2 := calicoversion.ParseName(entry)
	if err1 != nil || err2 != nil {
		return strings.TrimSpace(override) == strings.TrimSpace(entry)
	}
	if !o.HasPatch {
		return o.Line() == e.Line()
	}
	return o == e
}

func equalPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	a, b = append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(a)
	sort.Strings(b)
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Find returns the image reference for name: the entry with the highest score for opts (ties keep the
// first entry), scored as Gardener does: per satisfied version constraint +1, or +2 when the constraint
// starts with a full x.y.z version or "="; +1 for an entry for several (or all) architectures that
// include the requested one, +2 for an entry for exactly that architecture.
func (v *Vector) Find(name string, opts FindOptions) (string, error) {
	if opts.Calico.IsZero() {
		opts.Calico = v.Catalogue().DefaultRelease()
	}
	best, err := v.best(name, opts)
	if err != nil {
		return "", err
	}
	return v.Sources[best].reference(opts)
}

// best is the index of the entry Find picks for name and opts (opts.Calico set for a Calico image).
func (v *Vector) best(name string, opts FindOptions) (int, error) {
	best, bestScore := -1, -1
	for i, s := range v.Sources {
		if s.Name != name {
			continue
		}
		score, ok, err := s.score(opts)
		if err != nil {
			return -1, fmt.Errorf("image %s: %w", name, err)
		}
		if ok && (score > bestScore || (score == bestScore && s.ofRelease() && !v.Sources[best].ofRelease())) {
			// Ties keep the first entry (Gardener's rule), except that an entry of a Calico image
			// made for the release looked up wins over one pinned for every release.
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return -1, fmt.Errorf("no image %q in the image vector for %s", name, opts.describe())
	}
	return best, nil
}

// ofRelease is true for an entry of a Calico image whose image is of the release of its `version`
// (the catalogue's, or an override's with `version`), not pinned for every release.
func (s Source) ofRelease() bool {
	return isCalicoImage(s.Name) && s.Version != nil && !s.pinnedForEvery
}

func (o FindOptions) describe() string {
	arch := o.Architecture
	if arch == "" {
		arch = ArchAMD64
	}
	return fmt.Sprintf("runtime version %q, target version %q, architecture %s", o.RuntimeVersion, o.TargetVersion, arch)
}

func (s Source) score(opts FindOptions) (int, bool, error) {
	if isCalicoImage(s.Name) && s.Version != nil && !versionCovers(*s.Version, opts.Calico.Name()) {
		return 0, false, nil
	}
	total := 0
	for _, c := range []struct {
		constraint *string
		version    string
	}{{s.RuntimeVersion, opts.RuntimeVersion}, {s.TargetVersion, opts.TargetVersion}} {
		if c.constraint == nil || c.version == "" {
			continue
		}
		constraint, err := semver.NewConstraint(*c.constraint)
		if err != nil {
			return 0, false, fmt.Errorf("constraint %q: %w", *c.constraint, err)
		}
		version, err := semver.NewVersion(c.version)
		if err != nil {
			return 0, false, fmt.Errorf("version %q: %w", c.version, err)
		}
		if !constraint.Check(version) {
			return 0, false, nil
		}
		trimmed := strings.TrimSpace(*c.constraint)
		if strings.HasPrefix(trimmed, "=") || fullVersionRE.MatchString(trimmed) {
			total += 2
		} else {
			total++
		}
	}
	arch := opts.Architecture
	if arch == "" {
		arch = ArchAMD64
	}
	switch {
	case len(s.Architectures) == 0:
		total++
	case !contains(s.Architectures, arch):
		return 0, false, nil
	case len(s.Architectures) == 1:
		total += 2
	default:
		total++
	}
	return total, true, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// reference is the image string of a source: ref, or repository with tag (":tag", "@sha256:...",
// ":tag@sha256:..."); a missing tag becomes v<target version>, or else the optional tag.
func (s Source) reference(opts FindOptions) (string, error) {
	if s.Ref != nil {
		return *s.Ref, nil
	}
	tag := ""
	if s.Tag != nil {
		tag = *s.Tag
	} else if opts.TargetVersion != "" {
		tag = "v" + strings.TrimPrefix(opts.TargetVersion, "v")
	} else {
		tag = opts.OptionalTag
	}
	switch {
	case tag == "":
		return "", fmt.Errorf("image %s: no tag and no target version to derive one from", s.Name)
	case strings.HasPrefix(tag, "sha256:"):
		return *s.Repository + "@" + tag, nil
	default:
		return *s.Repository + ":" + tag, nil
	}
}

// Images resolves every image calico-pilot deploys for opts, the Calico images of opts.Calico (zero:
// the catalogue's default release).
func (v *Vector) Images(opts FindOptions) (Images, error) {
	r := opts.Calico
	if r.IsZero() {
		r = v.Catalogue().DefaultRelease()
	}
	return v.ImagesFor(opts, calicoversion.Steady(r))
}

// ImagesFor resolves every image calico-pilot deploys for opts, each Calico image of the release its
// component runs in calico (opts.Calico is ignored): calico-node and its CNI init containers at
// calico.Node, Typha and kube-controllers at theirs.
func (v *Vector) ImagesFor(opts FindOptions, calico calicoversion.Deployment) (Images, error) {
	if calico.IsZero() {
		return Images{}, errors.New("no Calico release to look images up for")
	}
	var errs []error
	get := func(name string, line calicoversion.Release) string {
		o := opts
		o.Calico = line
		ref, err := v.Find(name, o)
		if err != nil {
			errs = append(errs, err)
			return ref
		}
		if err := v.checkCalicoTag(name, ref, line); err != nil {
			errs = append(errs, err)
		}
		return ref
	}
	imgs := Images{
		CalicoNode:            get(NameCalicoNode, calico.Node),
		CalicoCNI:             get(NameCalicoCNI, calico.Node),
		CalicoTypha:           get(NameCalicoTypha, calico.Typha),
		CalicoKubeControllers: get(NameCalicoKubeControllers, calico.KubeControllers),
		CPA:                   get(NameCPA, calicoversion.Release{}),
		CPVA:                  get(NameCPVA, calicoversion.Release{}),
		BirdExporter:          get(NameBirdExporter, calicoversion.Release{}),
		Multus:                get(NameMultus, calicoversion.Release{}),
		// calico-pilot's own image (Dockerfile target cni-plugins): looked up without the shoot's
		// version and, without a tag in the vector, tagged with calico-pilot's version, as the
		// reference finds and tags its cni-plugins image (docs/gardener-integration.md §8).
		CNIPlugins: func() string {
			ref, err := v.Find(NameCNIPlugins, FindOptions{Architecture: opts.Architecture, OptionalTag: version.Version})
			if err != nil {
				errs = append(errs, err)
			}
			return ref
		}(),
		CalicoAPIServer:           get(NameCalicoAPIServer, calico.Of(calicoversion.APIServer)),
		CalicoGoldmane:            get(NameCalicoGoldmane, calico.Of(calicoversion.Goldmane)),
		CalicoWhisker:             get(NameCalicoWhisker, calico.Of(calicoversion.Whisker)),
		CalicoWhiskerBackend:      get(NameCalicoWhiskerBackend, calico.Of(calicoversion.Whisker)),
		CalicoCSI:                 get(NameCalicoCSI, calico.Of(calicoversion.CSIDriver)),
		CalicoNodeDriverRegistrar: get(NameCalicoNodeDriverRegistrar, calico.Of(calicoversion.CSIDriver)),
	}
	return imgs, errors.Join(errs...)
}

// Resolver resolves the images per shoot Kubernetes version, as Gardener's image vector finds them
// for an extension (runtime version = target version = the shoot's), and remembers each version's
// result: a landscape has a handful of versions and many reconciles.
type Resolver struct {
	vector *Vector
	mu     sync.Mutex
	byVer  map[string]Images
	avail  map[string]Availability
}

// NewResolver returns a resolver for v.
func NewResolver(v *Vector) *Resolver {
	return &Resolver{vector: v, byVer: map[string]Images{}, avail: map[string]Availability{}}
}

// Vector is the vector the resolver looks up in.
func (r *Resolver) Vector() *Vector { return r.vector }

// ForShoot returns the images for a shoot of the given Kubernetes version ("" when unknown: every
// version constraint then holds without scoring) whose Calico components run the releases of calico.
func (r *Resolver) ForShoot(kubernetesVersion string, calico calicoversion.Deployment) (Images, error) {
	key := kubernetesVersion + "|" + calico.Node.Name() + "|" + calico.Typha.Name() + "|" + calico.KubeControllers.Name()
	r.mu.Lock()
	defer r.mu.Unlock()
	if imgs, ok := r.byVer[key]; ok {
		return imgs, nil
	}
	imgs, err := r.vector.ImagesFor(ShootOptions(kubernetesVersion), calico)
	if err != nil {
		return Images{}, fmt.Errorf("image vector for Kubernetes %q, Calico %s: %w", kubernetesVersion, calico, err)
	}
	r.byVer[key] = imgs
	return imgs, nil
}

// isCalicoImage is true for the images of Calico's components, optional ones included.
func isCalicoImage(name string) bool { return slices.Contains(calicoversion.AllImageNames(), name) }

// checkCalicoTag refuses a Calico image whose tag names another release than the one it is deployed
// for: an override without `version` that pins a tag applies to every release, and deploying v3.31.6
// images with a v3.31.7 or v3.32.1 render must not happen silently. Digests and other tags are not
// judged, nor is the release shoots without a record run (the catalogue's unrecorded release): what an
// override pinned for it before releases were recorded keeps deploying.
func (v *Vector) checkCalicoTag(name, ref string, release calicoversion.Release) error {
	if !isCalicoImage(name) || release.IsZero() || release == v.Catalogue().Unrecorded().Release {
		return nil
	}
	_, tag := calicoversion.SplitImage(ref)
	got, ok := calicoversion.ReleaseOfTag(tag)
	if !ok || got == release.Version() {
		return nil
	}
	return fmt.Errorf("image %s for Calico %s is %s, of release %s: an override entry without `version` pins its tag for every Calico release; add an entry with `version: %s` for this release", name, release, ref, got, release)
}
