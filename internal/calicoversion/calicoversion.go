// Package calicoversion is the one list of the Calico releases calico-pilot deploys, and the one rule
// of which release each Calico component runs while a shoot moves from one release to another.
//
// The facts per release (images, Kubernetes range, CRD storage, what changes between them) come from
// ../shared/reference/calico-v3.32-delta.md; the render component that owns a difference selects it
// by the Version it is given (render, the Calico oracle, the image vector).
package calicoversion

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Version is one supported Calico release line.
type Version struct {
	// Minor is the release line, as shoots pin it and operators name it ("v3.31").
	Minor string
	// Release is the patch release calico-pilot deploys for the line ("v3.31.6"): the images' tag.
	Release string
	// KubernetesMin and KubernetesMax are the Kubernetes minors the line is supported on ("1.32").
	KubernetesMin, KubernetesMax string
	// CRDStorage is the API group/version Calico stores its objects under with this release's CRDs.
	// Going back across a change of it loses every stored object, so admission refuses that.
	CRDStorage string
	// major, minor are Minor's numbers, for ordering.
	major, minor int
}

// The supported releases.
var (
	// V3_31 is Calico v3.31.6, the release the reference extension deploys. Calico's docs list
	// Kubernetes 1.32–1.34; 1.35 was added later (projectcalico discussion #11717).
	V3_31 = Version{Minor: "v3.31", Release: "v3.31.6", KubernetesMin: "1.32", KubernetesMax: "1.35",
		CRDStorage: "crd.projectcalico.org/v1", major: 3, minor: 31}
	// V3_32 is Calico v3.32.1: Kubernetes 1.34–1.36.
	V3_32 = Version{Minor: "v3.32", Release: "v3.32.1", KubernetesMin: "1.34", KubernetesMax: "1.36",
		CRDStorage: "crd.projectcalico.org/v1", major: 3, minor: 32}
)

// supported is every release line, oldest first.
var supported = []Version{V3_31, V3_32}

// Supported returns the supported release lines, oldest first.
func Supported() []Version { return slices.Clone(supported) }

// SupportedNames returns the supported lines' names ("v3.31", ...), for error messages.
func SupportedNames() []string {
	out := make([]string, len(supported))
	for i, v := range supported {
		out[i] = v.Minor
	}
	return out
}

// Default is the line a new shoot gets when neither the operator nor the shoot says otherwise, and
// the line every shoot deployed before versions were recorded runs (the reference's v3.31.6).
func Default() Version { return V3_31 }

// Parse returns the supported line named by s: a line ("v3.31", "3.31") or its exact release
// ("v3.31.6"). Another patch release of a supported line is refused: calico-pilot deploys only the
// release it was checked with.
func Parse(s string) (Version, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "v")
	for _, v := range supported {
		if t == strings.TrimPrefix(v.Minor, "v") || t == strings.TrimPrefix(v.Release, "v") {
			return v, nil
		}
	}
	for _, v := range supported {
		if strings.HasPrefix(t, strings.TrimPrefix(v.Minor, "v")+".") {
			//lint:ignore ST1005 the message starts with the product's name
			return Version{}, fmt.Errorf("Calico %q is not supported: calico-pilot deploys %s of the %s line (name the line, %q)", s, v.Release, v.Minor, v.Minor)
		}
	}
	//lint:ignore ST1005 the message starts with the product's name
	return Version{}, fmt.Errorf("Calico %q is not supported, supported: %s", s, strings.Join(SupportedNames(), ", "))
}

// MustParse is Parse for constants and tests.
func MustParse(s string) Version {
	v, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return v
}

// String is the line's name.
func (v Version) String() string { return v.Minor }

// IsZero is true for the zero Version (no version known).
func (v Version) IsZero() bool { return v.Minor == "" }

// Compare orders lines: -1 when v is older than o, 0 when the same, +1 when newer.
func (v Version) Compare(o Version) int {
	if c := v.major - o.major; c != 0 {
		return sign(c)
	}
	return sign(v.minor - o.minor)
}

// Newer is the newer of two lines.
func Newer(a, b Version) Version {
	if a.Compare(b) >= 0 {
		return a
	}
	return b
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

// SupportsKubernetes says whether the line is supported on a Kubernetes version ("1.33.4", "v1.34");
// an unparsable or empty version is not judged (true).
func (v Version) SupportsKubernetes(k8s string) bool {
	minor, ok := kubernetesMinor(k8s)
	if !ok {
		return true
	}
	lo, _ := kubernetesMinor(v.KubernetesMin)
	hi, _ := kubernetesMinor(v.KubernetesMax)
	return minor >= lo && minor <= hi
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

// OrDefaultLine is v, or Default() when v is zero.
func (v Version) OrDefaultLine() Version {
	if v.IsZero() {
		return Default()
	}
	return v
}
