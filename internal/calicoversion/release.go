package calicoversion

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Name is a parsed Calico release or line name: "v3.31.7", "3.31.7", "v3.31" (no patch).
type Name struct {
	Major, Minor, Patch int
	// HasPatch is false for a line name.
	HasPatch bool
}

// ParseName is the one parser of Calico version names: "vX.Y.Z" or "vX.Y", with or without the "v"
// and surrounding space. A pre-release or build suffix ("v3.32.1-0.dev") is not a release.
func ParseName(s string) (Name, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.Split(t, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return Name{}, fmt.Errorf("%q: want vMAJOR.MINOR or vMAJOR.MINOR.PATCH", s)
	}
	nums := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || p != strconv.Itoa(n) {
			return Name{}, fmt.Errorf("%q: want vMAJOR.MINOR or vMAJOR.MINOR.PATCH", s)
		}
		nums[i] = n
	}
	n := Name{Major: nums[0], Minor: nums[1]}
	if len(nums) == 3 {
		n.Patch, n.HasPatch = nums[2], true
	}
	return n, nil
}

// ReleaseOfTag is the release an image tag names ("v3.31.6", "v3.32.1-0.dev", "v3.31.6-fix": the
// release its leading "vX.Y.Z" names); false for a tag that does not start with one ("latest", a
// digest).
func ReleaseOfTag(tag string) (Name, bool) {
	t := strings.TrimPrefix(strings.TrimSpace(tag), "v")
	end := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if end >= 0 {
		t = t[:end]
	}
	n, err := ParseName(t)
	if err != nil || !n.HasPatch {
		return Name{}, false
	}
	return n, true
}

// SplitImage splits an image reference into its repository and tag: the tag is after the last colon
// that follows the last slash (a registry may have a port); a digest is left out. tag is "" for a
// reference without one.
func SplitImage(ref string) (repository, tag string) {
	ref, _, _ = strings.Cut(ref, "@")
	i := strings.LastIndex(ref, ":")
	if i < 0 || strings.Contains(ref[i:], "/") {
		return ref, ""
	}
	return ref[:i], ref[i+1:]
}

// String is "vX.Y.Z" (or "vX.Y" for a line).
func (n Name) String() string {
	if !n.HasPatch {
		return n.Line()
	}
	return fmt.Sprintf("v%d.%d.%d", n.Major, n.Minor, n.Patch)
}

// Line is the line's name, "vX.Y".
func (n Name) Line() string { return fmt.Sprintf("v%d.%d", n.Major, n.Minor) }

// Compare orders names: by major, minor, then patch (a line name sorts before its releases).
func (n Name) Compare(o Name) int {
	for _, d := range []int{n.Major - o.Major, n.Minor - o.Minor, n.Patch - o.Patch} {
		if d != 0 {
			return sign(d)
		}
	}
	return 0
}

func sign(i int) int {
	switch {
	case i < 0:
		return -1
	case i > 0:
		return 1
	}
	return 0
}

// Release is one release of a catalogue; the zero Release is "none". Releases are comparable
// (map keys, ==): two Releases are equal when they are the same entry of the same catalogue.
type Release struct{ r *releaseEntry }

// IsZero is true for no release.
func (r Release) IsZero() bool { return r.r == nil }

// Name is the release's name ("v3.31.7"); "" for no release.
func (r Release) Name() string {
	if r.r == nil {
		return ""
	}
	return r.r.name.String()
}

// String is Name.
func (r Release) String() string { return r.Name() }

// Version is the parsed name.
func (r Release) Version() Name {
	if r.r == nil {
		return Name{}
	}
	return r.r.name
}

// Line is the release's line.
func (r Release) Line() Line {
	if r.r == nil {
		return Line{}
	}
	return Line{r.r.line}
}

// Compare orders releases by version: -1 when r is older than o, 0 the same, +1 newer.
func (r Release) Compare(o Release) int { return r.Version().Compare(o.Version()) }

// SameLine is true when both releases are of one line.
func (r Release) SameLine(o Release) bool { return r.Line() == o.Line() }

// Has says whether the release brings difference d (catalogue.yaml, differences).
func (r Release) Has(d Difference) bool { return r.r != nil && r.r.differences[d] }

// Differences lists the differences the release has, in the catalogue's order.
func (r Release) Differences() []DifferenceData {
	if r.r == nil {
		return nil
	}
	var out []DifferenceData
	for _, d := range r.r.cat.data.Differences {
		if r.Has(d.Name) {
			out = append(out, d)
		}
	}
	return out
}

// Image is the reference ("repository:tag") of one of Calico's images (ImageNames) for this release.
func (r Release) Image(name string) string {
	if r.r == nil {
		return ""
	}
	return r.r.data.Images[name]
}

// ImageRepositoryTag splits Image(name).
func (r Release) ImageRepositoryTag(name string) (repository, tag string) {
	return SplitImage(r.Image(name))
}

// KnownIssues are the release's known issues (catalogue.yaml, knownIssues).
func (r Release) KnownIssues() []KnownIssue {
	if r.r == nil {
		return nil
	}
	return slices.Clone(r.r.issues)
}

// Follows is the release this one was made from (zero for the first).
func (r Release) Follows() Release {
	if r.r == nil || r.r.follows == nil {
		return Release{}
	}
	return Release{r.r.follows}
}

// Published is the release date as recorded ("" when not recorded).
func (r Release) Published() string {
	if r.r == nil {
		return ""
	}
	return r.r.data.Published
}

// SupportsKubernetes says whether the release's line supports a Kubernetes version ("1.33.4",
// "v1.34"); an empty or unparsable version is not judged (true).
func (r Release) SupportsKubernetes(k8s string) bool { return r.Line().SupportsKubernetes(k8s) }

// CRDSet is the name of the CRD set of the release's line (api/projectcalico/crds).
func (r Release) CRDSet() string { return r.Line().CRDSet() }

// CRDStorage is the API group/version Calico stores its objects under with this release's CRDs.
func (r Release) CRDStorage() string { return r.Line().CRDStorage() }

// Newer is the newer of two releases (a zero release is older than any).
func Newer(a, b Release) Release {
	if a.IsZero() || (!b.IsZero() && b.Compare(a) > 0) {
		return b
	}
	return a
}

// Line is one release line of a catalogue; the zero Line is "none".
type Line struct{ l *lineEntry }

// IsZero is true for no line.
func (l Line) IsZero() bool { return l.l == nil }

// Name is "vX.Y".
func (l Line) Name() string {
	if l.l == nil {
		return ""
	}
	return l.l.name.Line()
}

// String is Name.
func (l Line) String() string { return l.Name() }

// Compare orders lines.
func (l Line) Compare(o Line) int {
	var a, b Name
	if l.l != nil {
		a = l.l.name
	}
	if o.l != nil {
		b = o.l.name
	}
	return a.Compare(b)
}

// Releases are the line's releases, oldest first.
func (l Line) Releases() []Release {
	if l.l == nil {
		return nil
	}
	out := make([]Release, len(l.l.releases))
	for i, r := range l.l.releases {
		out[i] = Release{r}
	}
	return out
}

// ReleaseNames are the names of Releases.
func (l Line) ReleaseNames() []string {
	var out []string
	for _, r := range l.Releases() {
		out = append(out, r.Name())
	}
	return out
}

// Newest is the line's newest release.
func (l Line) Newest() Release {
	if l.l == nil || len(l.l.releases) == 0 {
		return Release{}
	}
	return Release{l.l.releases[len(l.l.releases)-1]}
}

// KubernetesRange is the line's supported Kubernetes minors, "1.32-1.35".
func (l Line) KubernetesRange() string {
	if l.l == nil {
		return ""
	}
	return l.l.data.Kubernetes.Min + "-" + l.l.data.Kubernetes.Max
}

// KubernetesMin and KubernetesMax are the ends of the range ("1.32").
func (l Line) KubernetesMin() string {
	if l.l == nil {
		return ""
	}
	return l.l.data.Kubernetes.Min
}

// KubernetesMax is the newest supported Kubernetes minor.
func (l Line) KubernetesMax() string {
	if l.l == nil {
		return ""
	}
	return l.l.data.Kubernetes.Max
}

// SupportsKubernetes says whether the line supports a Kubernetes version ("1.33.4", "v1.34"); an
// empty or unparsable version is not judged (true).
func (l Line) SupportsKubernetes(k8s string) bool {
	minor, ok := kubernetesMinor(k8s)
	if !ok || l.l == nil {
		return true
	}
	return minor >= l.l.kmin && minor <= l.l.kmax
}

// CRDSet is the name of the line's CRD set.
func (l Line) CRDSet() string {
	if l.l == nil {
		return ""
	}
	return l.l.data.CRDs
}

// CRDStorage is the API group/version Calico stores its objects under with the line's CRDs. Going
// back across a change of it loses every stored object.
func (l Line) CRDStorage() string {
	if l.l == nil {
		return ""
	}
	return l.l.data.CRDStorage
}

// kubernetesMinor returns the minor of a "1.x[.y]" version.
func kubernetesMinor(s string) (int, bool) {
	parts := strings.Split(strings.TrimPrefix(strings.TrimSpace(s), "v"), ".")
	if len(parts) < 2 || parts[0] != "1" {
		return 0, false
	}
	m, err := strconv.Atoi(parts[1])
	return m, err == nil
}

// KnownIssue is a known issue of a release.
type KnownIssue struct {
	ID        string
	Component Component
	Title     string
	Detail    string
	Action    string
	// Since is the first release that has it.
	Since string
}

// String is the one-line form: "calico-kube-controllers: TITLE (known issue ID)".
func (k KnownIssue) String() string {
	return fmt.Sprintf("%s: %s (known issue %s)", k.Component, k.Title, k.ID)
}
