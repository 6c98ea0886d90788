// Package calicoversiontest builds Calico release catalogues for tests: the default catalogue plus a
// line or release calico-pilot does not carry, added through the same path a real entry takes
// (calicoversion.New over the catalogue's data).
package calicoversiontest

import (
	"strings"
	"testing"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// Line describes a line to add: its release (following Follows), Kubernetes range, CRD set and storage.
type Line struct {
	Name, Release, Follows       string
	KubernetesMin, KubernetesMax string
	CRDs, CRDStorage             string
}

// V3_33 is a synthetic v3.33 line: v3.33.0 follows v3.32.1, supports Kubernetes 1.35-1.37, and uses
// v3.32's CRD set under the same storage.
var V3_33 = Line{Name: "v3.33", Release: "v3.33.0", Follows: "v3.32.1", KubernetesMin: "1.35", KubernetesMax: "1.37", CRDs: "v3.32", CRDStorage: "crd.projectcalico.org/v1"}

// WithLines returns the default catalogue with the lines added (in order, each newer than the last).
func WithLines(t testing.TB, lines ...Line) *calicoversion.Catalogue {
	t.Helper()
	d := calicoversion.Default().Data()
	for _, l := range lines {
		d.Lines = append(d.Lines, calicoversion.LineData{Name: l.Name, Kubernetes: calicoversion.KubernetesData{Min: l.KubernetesMin, Max: l.KubernetesMax}, CRDs: l.CRDs, CRDStorage: l.CRDStorage})
		images := map[string]string{}
		for _, n := range calicoversion.AllImageNames() {
			images[n] = "quay.io/calico/" + strings.TrimPrefix(n, "calico-") + ":" + l.Release
		}
		d.Releases = append(d.Releases, calicoversion.ReleaseData{Name: l.Release, Line: l.Name, Follows: l.Follows, Images: images})
	}
	c, err := calicoversion.New(d)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Release is the release of c named exactly; the test fails when there is none.
func Release(t testing.TB, c *calicoversion.Catalogue, name string) calicoversion.Release {
	t.Helper()
	r, ok := c.Release(name)
	if !ok {
		t.Fatalf("no Calico release %s in the catalogue", name)
	}
	return r
}

// Default is Release in the default catalogue.
func Default(t testing.TB, name string) calicoversion.Release {
	t.Helper()
	return Release(t, calicoversion.Default(), name)
}

// Newest is the newest release of the default catalogue's line named exactly; the test fails when
// there is no such line.
func Newest(t testing.TB, line string) calicoversion.Release {
	t.Helper()
	l, ok := calicoversion.Default().Line(line)
	if !ok {
		t.Fatalf("no Calico line %s in the catalogue", line)
	}
	return l.Newest()
}
