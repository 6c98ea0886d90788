package imagevector

import (
	"fmt"
	"slices"
	"strings"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// Availability is which Calico releases an image vector can deploy into a shoot of one Kubernetes
// version: a release is available when each of Calico's images resolves, for that version, to an
// image of that release. An entry made for the release (the catalogue's, or an override's with
// `version`) is of its release; one an override without `version` pinned is of the release its tag
// names (so it makes that release available and the others not). Without an override every carried
// release is available. It is a pure function of the vector, the catalogue and the version.
type Availability struct {
	// Kubernetes is the shoot's Kubernetes version ("" when unknown: every constraint holds).
	Kubernetes string
	cat        *calicoversion.Catalogue
	missing    map[calicoversion.Release]error
}

// Availability computes which releases v can deploy into a shoot of Kubernetes version kubernetes.
func (v *Vector) Availability(kubernetes string) Availability {
	a := Availability{Kubernetes: kubernetes, cat: v.Catalogue(), missing: map[calicoversion.Release]error{}}
	for _, r := range a.cat.Releases() {
		var why []string
		for _, name := range calicoversion.ImageNames() {
			if w := v.imageOf(name, r, kubernetes); w != "" {
				why = append(why, w)
			}
		}
		if len(why) > 0 {
			//lint:ignore ST1005 the message starts with the product's name
			a.missing[r] = fmt.Errorf("Calico %s's images are not in the image vector for Kubernetes %s: %s", r, orUnknown(kubernetes), strings.Join(why, "; "))
		}
	}
	return a
}

func orUnknown(k8s string) string {
	if k8s == "" {
		return "(any version)"
	}
	return k8s
}

// imageOf says why image name is not of release r for a shoot of Kubernetes version k8s, with the
// entry to add; "" when it is.
func (v *Vector) imageOf(name string, r calicoversion.Release, k8s string) string {
	opts := ShootOptions(k8s)
	opts.Calico = r
	i, err := v.best(name, opts)
	if err != nil {
		return err.Error()
	}
	s := v.Sources[i]
	ref, err := s.reference(opts)
	if err != nil {
		return err.Error()
	}
	_, tag := calicoversion.SplitImage(ref)
	got, named := calicoversion.ReleaseOfTag(tag)
	switch {
	case named && got == r.Version():
		return ""
	case !named && s.ofRelease():
		// A digest (or another tag) of an entry made for the release.
		return ""
	}
	of := "of no Calico release"
	if named {
		of = "of release " + got.String()
	}
	return fmt.Sprintf("%s is %s (%s); add the image vector entry %s", name, ref, of, entryFor(s, name, ref, r))
}

// entryFor is the entry to add for image name of release r, in the image vector's YAML flow form:
// the repository of ref (the landscape's mirror), the release's tag, and the constraints of the entry
// that wins now (s), so that the new one takes its place for r.
func entryFor(s Source, name, ref string, r calicoversion.Release) string {
	repo, _ := calicoversion.SplitImage(ref)
	_, tag := r.ImageRepositoryTag(name)
	fields := []string{"name: " + name, "version: " + r.Name(), "repository: " + repo, "tag: " + tag}
	if s.RuntimeVersion != nil {
		fields = append(fields, fmt.Sprintf("runtimeVersion: %q", *s.RuntimeVersion))
	}
	if s.TargetVersion != nil {
		fields = append(fields, fmt.Sprintf("targetVersion: %q", *s.TargetVersion))
	}
	if len(s.Architectures) > 0 {
		fields = append(fields, "architectures: ["+strings.Join(s.Architectures, ", ")+"]")
	}
	return "{" + strings.Join(fields, ", ") + "}"
}

// Check is nil when release r is available, else why not, naming the entries to add
// (calicoversion.Available).
func (a Availability) Check(r calicoversion.Release) error {
	if a.missing == nil {
		return nil
	}
	return a.missing[r]
}

// Func is a as a calicoversion.Available for Decide.
func (a Availability) Func() calicoversion.Available { return a.Check }

// Releases are the available releases, oldest first.
func (a Availability) Releases() []calicoversion.Release {
	if a.cat == nil {
		return nil
	}
	return slices.DeleteFunc(a.cat.Releases(), func(r calicoversion.Release) bool { return a.missing[r] != nil })
}

// ReleaseNames are the names of Releases ("v3.31.6", ...).
func (a Availability) ReleaseNames() []string {
	var out []string
	for _, r := range a.Releases() {
		out = append(out, r.Name())
	}
	return out
}

// Missing are the errors of the releases that are not available, oldest release first.
func (a Availability) Missing() []error {
	var out []error
	if a.cat == nil {
		return nil
	}
	for _, r := range a.cat.Releases() {
		if err := a.missing[r]; err != nil {
			out = append(out, err)
		}
	}
	return out
}

// Summary is the one line that says which releases are available ("v3.31.6 (not v3.31.7, v3.32.1)").
func (a Availability) Summary() string {
	var not []string
	if a.cat != nil {
		for _, r := range a.cat.Releases() {
			if a.missing[r] != nil {
				not = append(not, r.Name())
			}
		}
	}
	have := strings.Join(a.ReleaseNames(), ", ")
	if have == "" {
		have = "none"
	}
	if len(not) == 0 {
		return have
	}
	return have + " (not " + strings.Join(not, ", ") + ")"
}

// KubernetesVersions are the Kubernetes versions a start-up report looks at: the first patch of each
// minor some line of the catalogue supports ("1.32.0" ... "1.36.0"). Constraints on patch versions are
// judged per shoot.
func KubernetesVersions(cat *calicoversion.Catalogue) []string {
	var minors []int
	for _, l := range cat.Lines() {
		var lo, hi int
		if _, err := fmt.Sscanf(l.KubernetesMin(), "1.%d", &lo); err != nil {
			continue
		}
		if _, err := fmt.Sscanf(l.KubernetesMax(), "1.%d", &hi); err != nil {
			continue
		}
		for m := lo; m <= hi; m++ {
			if !slices.Contains(minors, m) {
				minors = append(minors, m)
			}
		}
	}
	slices.Sort(minors)
	out := make([]string, len(minors))
	for i, m := range minors {
		out[i] = fmt.Sprintf("1.%d.0", m)
	}
	return out
}

// Availability returns the releases the resolver's vector can deploy into a shoot of Kubernetes
// version kubernetes, computed once per version.
func (r *Resolver) Availability(kubernetes string) Availability {
	r.mu.Lock()
	defer r.mu.Unlock()
	if a, ok := r.avail[kubernetes]; ok {
		return a
	}
	a := r.vector.Availability(kubernetes)
	r.avail[kubernetes] = a
	return a
}
