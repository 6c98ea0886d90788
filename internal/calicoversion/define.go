package calicoversion

import (
	"fmt"
	"strconv"
	"strings"
)

// Define builds a Version that is not (yet) in the supported list: a line a later calico-pilot may
// add, for the rules that must already cover it (a change of CRD storage between two lines) and their
// tests. minor is "vMAJOR.MINOR"; Parse never returns such a Version.
func Define(minor, release, kubernetesMin, kubernetesMax, crdStorage string) (Version, error) {
	major, min, ok := strings.Cut(strings.TrimPrefix(minor, "v"), ".")
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(min)
	if !ok || err1 != nil || err2 != nil || !strings.HasPrefix(minor, "v") {
		return Version{}, fmt.Errorf("line %q: want vMAJOR.MINOR, e.g. v3.33", minor)
	}
	return Version{Minor: minor, Release: release, KubernetesMin: kubernetesMin, KubernetesMax: kubernetesMax,
		CRDStorage: crdStorage, major: ma, minor: mi}, nil
}
