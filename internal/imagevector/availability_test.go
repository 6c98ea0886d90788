package imagevector_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/imagevector/imagevectortest"
)

func availability(t *testing.T, override, k8s string) imagevector.Availability {
	t.Helper()
	v, err := imagevector.LoadVector([]byte(override))
	if err != nil {
		t.Fatal(err)
	}
	return v.Availability(k8s)
}

// TestAvailability (issue 35): the images of a landscape decide which releases it runs, per
// Kubernetes version; the reason names the entry to add, with the mirror's repository and the
// constraints of the entry that wins now.
func TestAvailability(t *testing.T) {
	v, err := imagevector.LoadVector(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Availability("1.33.0").ReleaseNames(); !cmp.Equal(got, calicoversion.Default().ReleaseNames()) {
		t.Errorf("embedded vector: available %v, want every carried release", got)
	}

	a := availability(t, imagevectortest.MirroredLandscape, "1.33.0")
	if got := a.Summary(); got != "v3.31.6 (not v3.31.7, v3.32.1)" {
		t.Errorf("1.33 summary %q", got)
	}
	r317 := release(t, "v3.31.7")
	want := "Calico v3.31.7's images are not in the image vector for Kubernetes 1.33.0: calico-node is example.org/mirror/calico-node:v3.31.6 (of release v3.31.6); " +
		"add the image vector entry {name: calico-node, version: v3.31.7, repository: example.org/mirror/calico-node, tag: v3.31.7}"
	if err := a.Check(r317); err == nil || err.Error() != want {
		t.Errorf("1.33 v3.31.7:\n got %v\nwant %s", err, want)
	}
	want134 := "Calico v3.31.7's images are not in the image vector for Kubernetes 1.34.2: calico-node is example.org/mirror134/calico-node:v3.31.6 (of release v3.31.6); " +
		`add the image vector entry {name: calico-node, version: v3.31.7, repository: example.org/mirror134/calico-node, tag: v3.31.7, targetVersion: ">= 1.34"}`
	if err := availability(t, imagevectortest.MirroredLandscape, "1.34.2").Check(r317); err == nil || err.Error() != want134 {
		t.Errorf("1.34 v3.31.7:\n got %v\nwant %s", err, want134)
	}

	// The entries the errors name make v3.31.7 available, wherever they are in the file.
	added := "images:\n" + imagevectortest.MirroredV3317 + strings.TrimPrefix(imagevectortest.MirroredLandscape, "images:\n")
	for _, k8s := range []string{"1.33.0", "1.34.2"} {
		if got := availability(t, added, k8s).Summary(); got != "v3.31.6, v3.31.7 (not v3.32.1)" {
			t.Errorf("%s with v3.31.7 entries: %q", k8s, got)
		}
	}
	vAdded, err := imagevector.LoadVector([]byte(added))
	if err != nil {
		t.Fatal(err)
	}
	for k8s, wantNode := range map[string][2]string{
		"1.33.0": {"example.org/mirror/calico-node:v3.31.6", "example.org/mirror/calico-node:v3.31.7"},
		"1.34.2": {"example.org/mirror134/calico-node:v3.31.6", "example.org/mirror134/calico-node:v3.31.7"},
	} {
		for i, r := range []string{"v3.31.6", "v3.31.7"} {
			imgs, err := imagevector.NewResolver(vAdded).ForShoot(k8s, calicoversion.Steady(release(t, r)))
			if err != nil || imgs.CalicoNode != wantNode[i] {
				t.Errorf("%s %s: calico-node %q, %v; want %q", k8s, r, imgs.CalicoNode, err, wantNode[i])
			}
		}
	}

	// A repository alone mirrors every release; a versioned digest is of its release.
	a = availability(t, "images:\n- name: calico-node\n  repository: m.example/node\n- name: calico-typha\n  repository: m.example/typha\n  tag: \""+digest+"\"\n  version: v3.32.1\n", "1.34.0")
	if got := a.Summary(); got != "v3.31.6, v3.31.7, v3.32.1" {
		t.Errorf("repository-only and a versioned digest: %q", got)
	}
}

// TestAvailabilityRefusesAReleaseLessPin: an entry of a Calico image without `version` whose tag or
// ref names no release cannot say which release the landscape has: refused at load, naming it.
func TestAvailabilityRefusesAReleaseLessPin(t *testing.T) {
	for _, tt := range []struct{ override, want string }{
		{"images:\n- name: calico-node\n  repository: m.example/node\n  tag: \"" + digest + "\"\n",
			`image vector override: images[0] (calico-node): tag "` + digest + `" names no Calico release, and an entry without ` + "`version`" + ` applies to every release: add ` + "`version: vX.Y.Z`" + ` (the Calico release of this image), or a tag that starts with the release (vX.Y.Z@sha256:...)`},
		{"images:\n- name: pause-container\n  repository: p\n- name: calico-cni\n  ref: m.example/cni:latest\n",
			`image vector override: images[1] (calico-cni): ref "m.example/cni:latest" names no Calico release, and an entry without ` + "`version`" + ` applies to every release: add ` + "`version: vX.Y.Z`" + ` (the Calico release of this image), or a tag that starts with the release (vX.Y.Z@sha256:...)`},
	} {
		_, err := imagevector.LoadVector([]byte(tt.override))
		if err == nil || err.Error() != tt.want {
			t.Errorf("got %v\nwant %s", err, tt.want)
		}
	}
	for _, ok := range []string{
		"images:\n- name: calico-node\n  repository: m.example/node\n  tag: \"v3.31.6@" + digest + "\"\n",
		"images:\n- name: calico-node\n  repository: m.example/node\n  tag: \"" + digest + "\"\n  version: v3.31.6\n",
		"images:\n- name: calico-cpa\n  repository: m.example/cpa\n  tag: latest\n",
	} {
		if _, err := imagevector.LoadVector([]byte(ok)); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

func TestKubernetesVersions(t *testing.T) {
	if got, want := imagevector.KubernetesVersions(calicoversion.Default()), []string{"1.32.0", "1.33.0", "1.34.0", "1.35.0", "1.36.0"}; !cmp.Equal(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
}

func release(t *testing.T, name string) calicoversion.Release {
	t.Helper()
	r, ok := calicoversion.Default().Release(name)
	if !ok {
		t.Fatalf("no release %s", name)
	}
	return r
}
