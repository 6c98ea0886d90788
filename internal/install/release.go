package install

import (
	"fmt"
	"strings"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// Running is the release every Calico component runs, read from their images.
type Running struct {
	// Release is the carried release they run (zero when nothing runs).
	Release calicoversion.Release
	// Images says what each component runs ("calico-node docker.io/calico/node:v3.31.6").
	Images []string
}

// NotCarriedError is a release the components run that the catalogue does not carry, or a read that
// does not name one release.
type NotCarriedError struct{ msg string }

func (e *NotCarriedError) Error() string { return e.msg }

// ReleaseOf reads the release of every component's main image. One release the catalogue carries
// is kept. A release it does not carry is refused naming it and the nearest carried line, with what
// to do; so is a mixed read (two components of different releases) and an image whose tag names no
// release. pin is the release asked for (--calico-version; nil: none): an uncarried patch release is
// taken over as a pinned carried release of the same line (a patch move, one step).
func (in *Install) ReleaseOf(cat *calicoversion.Catalogue, pin *calicoversion.Release) (Running, error) {
	var r Running
	if !in.Found() {
		return r, nil
	}
	var names []calicoversion.Name
	for _, w := range in.Workloads {
		r.Images = append(r.Images, fmt.Sprintf("%s %s", w.Name, w.Image))
		_, tag := calicoversion.SplitImage(w.Image)
		n, ok := calicoversion.ReleaseOfTag(tag)
		if !ok {
			return r, &NotCarriedError{fmt.Sprintf("%s %s/%s runs %s, whose tag names no Calico release: calico-pilot cannot tell which release runs; "+
				"tag the image with its release (vX.Y.Z), then adopt; nothing was changed", w.Kind, w.Namespace, w.Name, w.Image)}
		}
		names = append(names, n)
	}
	for i, n := range names[1:] {
		if n != names[0] {
			return r, &NotCarriedError{fmt.Sprintf("the components run different Calico releases (%s): a move is half done; "+
				"finish it with the tooling that started it, so that every component runs one release, then adopt; nothing was changed",
				strings.Join([]string{describeRun(in.Workloads[0], names[0]), describeRun(in.Workloads[i+1], n)}, ", "))}
		}
	}
	n := names[0]
	if rel, ok := cat.Release(n.String()); ok {
		r.Release = rel
		return r, nil
	}
	return r, notCarried(cat, n, r.Images, pin, &r)
}

func describeRun(w Workload, n calicoversion.Name) string {
	return fmt.Sprintf("%s %s", w.Name, n)
}

// notCarried explains a release the catalogue does not carry and what to do; with a pin of a carried
// release of the same line it is taken over as that release (r.Release set, nil error).
func notCarried(cat *calicoversion.Catalogue, n calicoversion.Name, images []string, pin *calicoversion.Release, r *Running) error {
	carried := describeCarried(cat)
	runs := fmt.Sprintf("Calico %s runs (%s), a release calico-pilot does not carry (it carries %s)", n, strings.Join(images, ", "), carried)
	if l, ok := cat.Line(n.Line()); ok {
		if pin != nil && pin.Line() == l {
			r.Release = *pin
			return nil
		}
		return &NotCarriedError{fmt.Sprintf("%s. Its line %s is carried: take it over as a carried release of that line with --calico-version %s "+
			"(a patch move, every component in one step), or move it first with the tooling that installed it; nothing was changed",
			runs, l.Name(), l.Newest())}
	}
	lines := cat.Lines()
	oldest, newest := lines[0], lines[len(lines)-1]
	first, _ := calicoversion.ParseName(oldest.Name())
	last, _ := calicoversion.ParseName(newest.Name())
	switch {
	case n.Compare(first) < 0:
		skipped := between(n, first)
		skip := ""
		if len(skipped) > 0 {
			skip = fmt.Sprintf(", skipping %s, which Calico does not support", strings.Join(skipped, " and "))
		}
		return &NotCarriedError{fmt.Sprintf("%s. Taking it over would move every component from %s to %s in one step%s. "+
			"Move it one line at a time with the tooling that installed it (upstream's manifests) to a %s release first, then adopt; nothing was changed",
			runs, n.Line(), oldest.Name(), skip, oldest.Name())}
	case n.Compare(last) > 0:
		return &NotCarriedError{fmt.Sprintf("%s. It is newer than every line calico-pilot carries: taking it over would move it down to %s; "+
			"use a calico-pilot that carries %s; nothing was changed", runs, newest.Name(), n.Line())}
	}
	return &NotCarriedError{fmt.Sprintf("%s. Its line %s lies between carried lines: move it with the tooling that installed it to a carried line first; nothing was changed", runs, n.Line())}
}

// describeCarried lists the carried lines with their releases: "v3.31 (v3.31.6, v3.31.7) and v3.32 (v3.32.1)".
func describeCarried(cat *calicoversion.Catalogue) string {
	var parts []string
	for _, l := range cat.Lines() {
		parts = append(parts, fmt.Sprintf("%s (%s)", l.Name(), strings.Join(l.ReleaseNames(), ", ")))
	}
	return strings.Join(parts, " and ")
}

// between are the line names strictly between a and b (same major; a before b).
func between(a, b calicoversion.Name) []string {
	var out []string
	if a.Major != b.Major {
		return out
	}
	for m := a.Minor + 1; m < b.Minor; m++ {
		out = append(out, fmt.Sprintf("v%d.%d", a.Major, m))
	}
	return out
}
