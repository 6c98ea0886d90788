package imagevector_test

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion/calicoversiontest"
	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/version"
)

// TestDefault: without a release, the Calico images are the catalogue's default release's (the newest of
// its default line).
func TestDefault(t *testing.T) {
	got, err := imagevector.Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := imagevector.Images{
		CalicoNode:            "quay.io/calico/node:v3.31.7",
		CalicoCNI:             "quay.io/calico/cni:v3.31.7",
		CalicoTypha:           "quay.io/calico/typha:v3.31.7",
		CalicoKubeControllers: "quay.io/calico/kube-controllers:v3.31.7",
		CPA:                   "registry.k8s.io/cpa/cluster-proportional-autoscaler:v1.10.3",
		CPVA:                  "registry.k8s.io/cpa/cpvpa:v0.8.10",
		BirdExporter:          "ghcr.io/czerwonk/bird_exporter:v1.5.0",
		Multus:                "ghcr.io/k8snetworkplumbingwg/multus-cni:v4.3.0",
		CNIPlugins:            "ghcr.io/calico-pilot/cni-plugins:" + version.Version,
		// The optional components' images come from the catalogue like the core ones.
		CalicoAPIServer:           "quay.io/calico/apiserver:v3.31.7",
		CalicoGoldmane:            "quay.io/calico/goldmane:v3.31.7",
		CalicoWhisker:             "quay.io/calico/whisker:v3.31.7",
		CalicoWhiskerBackend:      "quay.io/calico/whisker-backend:v3.31.7",
		CalicoCSI:                 "quay.io/calico/csi:v3.31.7",
		CalicoNodeDriverRegistrar: "quay.io/calico/node-driver-registrar:v3.31.7",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("images (-want +got):\n%s", diff)
	}
	// The embedded pins hold for every shoot version.
	v, err := imagevector.LoadVector(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, version := range []string{"1.30.0", "1.37.2"} {
		got, err := v.Images(imagevector.ShootOptions(version))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("images for %s (-want +got):\n%s", version, diff)
		}
	}
	// Find without a release looks a Calico image up for the default release too.
	if got, err := v.Find(imagevector.NameCalicoNode, imagevector.FindOptions{}); err != nil || got != want.CalicoNode {
		t.Errorf("Find(calico-node) without a release = %q, %v; want %q", got, err, want.CalicoNode)
	}
}

const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// landscapeOverride is an override file as a landscape that mirrors images writes it in Gardener's format,
// with the informational fields Gardener's own vectors carry.
const landscapeOverride = `images:
- name: calico-node
  sourceRepository: github.com/projectcalico/calico
  repository: mirror.example.com/calico/node
  labels:
  - name: gardener.cloud/cve-categorisation
    value:
      network_exposure: protected
- name: calico-typha
  repository: mirror.example.com/calico/typha
  tag: "v3.31.6@` + digest + `"
# A bare digest says no release: its entry names it in version.
- name: calico-cni
  ref: mirror.example.com/calico/cni@` + digest + `
  version: v3.31.6
- name: multus-cni
  repository: registry.local:5000/multus
  tag: ` + digest + `
# Does not match this shoot: only for shoots below 1.20.
- name: calico-kube-controllers
  repository: old.example.com/calico/kube-controllers
  tag: v3.20.0
  targetVersion: "< 1.20"
# Another key (architectures) than the base entry: appended; it scores the same as the base entry
# (multi-architecture, no constraint) and loses the tie to it, as in Gardener.
- name: calico-cpa
  repository: other.example.com/cpa
  tag: v9.9.9
  architectures: [amd64, arm64]
`

// imagesAt316 loads the embedded vector with override merged onto it and looks its images up for
// a shoot of Kubernetes version k8s that runs Calico v3.31.6: the vector and the images.
func imagesAt316(t *testing.T, override []byte, k8s string) (*imagevector.Vector, imagevector.Images) {
	t.Helper()
	v, err := imagevector.LoadVector(override)
	if err != nil {
		t.Fatal(err)
	}
	opts := imagevector.ShootOptions(k8s)
	opts.Calico = calicoversiontest.Default(t, "v3.31.6")
	imgs, err := v.Images(opts)
	if err != nil {
		t.Fatal(err)
	}
	return v, imgs
}

func TestOverrideGardenerFormat(t *testing.T) {
	// The landscape's override pins v3.31.6 tags without `version`: looked up for that release.
	v, got := imagesAt316(t, []byte(landscapeOverride), "1.33.4")
	want := imagevector.Images{
		CalicoNode:            "mirror.example.com/calico/node:v3.31.6", // mirrored repository, pinned tag kept
		CalicoCNI:             "mirror.example.com/calico/cni@" + digest,
		CalicoTypha:           "mirror.example.com/calico/typha:v3.31.6@" + digest,
		CalicoKubeControllers: "quay.io/calico/kube-controllers:v3.31.6", // targetVersion < 1.20 does not match 1.33
		CPA:                   "registry.k8s.io/cpa/cluster-proportional-autoscaler:v1.10.3",
		CPVA:                  "registry.k8s.io/cpa/cpvpa:v0.8.10",
		BirdExporter:          "ghcr.io/czerwonk/bird_exporter:v1.5.0",
		Multus:                "registry.local:5000/multus@" + digest,
		CNIPlugins:            "ghcr.io/calico-pilot/cni-plugins:" + version.Version,
		// The override pins no optional image: the catalogue's entries of the release.
		CalicoAPIServer:           "quay.io/calico/apiserver:v3.31.6",
		CalicoGoldmane:            "quay.io/calico/goldmane:v3.31.6",
		CalicoWhisker:             "quay.io/calico/whisker:v3.31.6",
		CalicoWhiskerBackend:      "quay.io/calico/whisker-backend:v3.31.6",
		CalicoCSI:                 "quay.io/calico/csi:v3.31.6",
		CalicoNodeDriverRegistrar: "quay.io/calico/node-driver-registrar:v3.31.6",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("images for a 1.33 shoot (-want +got):\n%s", diff)
	}
	// For a shoot the constrained entry matches, it scores higher than the unconstrained base.
	old, err := v.Find(imagevector.NameCalicoKubeControllers, imagevector.ShootOptions("1.19.4"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "old.example.com/calico/kube-controllers:v3.20.0"; old != want {
		t.Errorf("kube-controllers for 1.19 = %q, want %q", old, want)
	}
}

func TestFindScoring(t *testing.T) {
	vector := `images:
- name: calico-node
  repository: base.example/node
  tag: v1
- name: calico-node
  repository: range.example/node
  tag: v2
  targetVersion: ">= 1.30"
- name: calico-node
  repository: exact.example/node
  tag: v3
  targetVersion: "= 1.33.4"
- name: calico-node
  repository: arm.example/node
  tag: v4
  architectures: [arm64]
- name: calico-node
  repository: multi.example/node
  tag: v5
  architectures: [arm64, amd64]
- name: calico-typha
  repository: untagged.example/typha
`
	v, err := imagevector.Parse([]byte(vector), "test vector")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts imagevector.FindOptions
		want string
	}{
		{"no version: first of the equal scores", imagevector.FindOptions{}, "base.example/node:v1"},
		{"range constraint +1 beats none", imagevector.ShootOptions("1.31.0"), "range.example/node:v2"},
		{"exact constraint +2 beats range", imagevector.ShootOptions("1.33.4"), "exact.example/node:v3"},
		{"constraint not met", imagevector.ShootOptions("1.29.0"), "base.example/node:v1"},
		{"single architecture +2", imagevector.FindOptions{Architecture: "arm64"}, "arm.example/node:v4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Find(imagevector.NameCalicoNode, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Find = %q, want %q", got, tt.want)
			}
		})
	}
	// A missing tag becomes v<target version>, and is an error without one.
	if got, err := v.Find(imagevector.NameCalicoTypha, imagevector.ShootOptions("1.33.4")); err != nil || got != "untagged.example/typha:v1.33.4" {
		t.Errorf("untagged image for 1.33.4 = %q, %v; want untagged.example/typha:v1.33.4", got, err)
	}
	if _, err := v.Find(imagevector.NameCalicoTypha, imagevector.FindOptions{}); err == nil || !strings.Contains(err.Error(), "no tag and no target version") {
		t.Errorf("untagged image without version: error %v", err)
	}
	if _, err := v.Find(imagevector.NameCPA, imagevector.FindOptions{}); err == nil || !strings.Contains(err.Error(), `no image "calico-cpa"`) {
		t.Errorf("missing image: error %v", err)
	}
}

func TestMergeByKey(t *testing.T) {
	base, err := imagevector.Parse([]byte(`images:
- name: calico-node
  repository: a.example/node
  tag: v1
  architectures: [amd64, arm64]
- name: calico-typha
  ref: a.example/typha:v1
`), "base")
	if err != nil {
		t.Fatal(err)
	}
	over, err := imagevector.Parse([]byte(`images:
- name: calico-node
  tag: v2
  repository: b.example/node
  architectures: [arm64, amd64]
- name: calico-typha
  repository: b.example/typha
  tag: v2
`), "override")
	if err != nil {
		t.Fatal(err)
	}
	merged := base.Merge(over)
	if len(merged.Sources) != 2 {
		t.Fatalf("merged vector has %d entries, want 2 (both overrides match by key): %+v", len(merged.Sources), merged.Sources)
	}
	for name, want := range map[string]string{
		imagevector.NameCalicoNode:  "b.example/node:v2",
		imagevector.NameCalicoTypha: "b.example/typha:v2", // repository without ref drops the old ref
	} {
		if got, err := merged.Find(name, imagevector.FindOptions{}); err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	if got, _ := base.Find(imagevector.NameCalicoTypha, imagevector.FindOptions{}); got != "a.example/typha:v1" {
		t.Errorf("Merge changed its input: base typha = %q", got)
	}
}

func TestOverrideErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"unknown image, malformed (the reference fails on it too)", "images:\n- name: pause-container\n  tag: \"3.10\"\n",
			`image vector override: images[0].repository: required unless ref is given (an entry with only a tag cannot be resolved)`},
		{"no name", "images:\n- repository: x.example/a\n",
			`image vector override: images[0].name: required`},
		{"only a tag", "images:\n- name: calico-node\n  tag: v3.31.7\n",
			`image vector override: images[0].repository: required unless ref is given (an entry with only a tag cannot be resolved)`},
		{"ref and repository", "images:\n- name: calico-node\n  ref: a.example/n:v1\n  repository: a.example/n\n",
			`image vector override: images[0].ref: excludes repository and tag; give either ref or repository (and tag)`},
		{"empty repository", "images:\n- name: calico-node\n  repository: \"\"\n",
			`image vector override: images[0].repository: must not be empty (leave it out instead)`},
		{"bad digest", "images:\n- name: calico-node\n  repository: a.example/n\n  tag: sha256:abc\n",
			`image vector override: images[0].tag: "sha256:abc" is not a digest, expected sha256:<64 hex digits>`},
		{"tag with a space (issue 15)", "images:\n- name: calico-node\n  repository: a.example/n\n  tag: v3.28 rc1\n",
			`image vector override: images[0].tag: "v3.28 rc1" is not an image tag: up to 128 letters, digits, _, . and -, not starting with . or -`},
		{"tag starting with a dot", "images:\n- name: calico-node\n  repository: a.example/n\n  tag: .v1\n",
			`image vector override: images[0].tag: ".v1" is not an image tag: up to 128 letters, digits, _, . and -, not starting with . or -`},
		{"tag in repository", "images:\n- name: calico-node\n  repository: quay.io/calico/node@sha256\n",
			`image vector override: images[0].repository: "quay.io/calico/node@sha256" must be a repository without tag or digest`},
		{"bad constraint", "images:\n- name: calico-node\n  repository: a.example/n\n  targetVersion: \">= one\"\n",
			`image vector override: images[0].targetVersion: ">= one" is not a semver constraint`},
		{"bad architecture", "images:\n- name: calico-node\n  repository: a.example/n\n  architectures: [s390x]\n",
			`image vector override: images[0].architectures[0]: "s390x" is not supported, expected amd64 or arm64`},
		{"calico-pilot's old digest field", "images:\n- name: calico-node\n  repository: a.example/n\n  digest: " + digest + "\n",
			`image vector override: images[0].digest: not a field of Gardener's image vector format; put the digest in tag`},
		{"misspelt field", "images:\n- name: calico-node\n  repositry: a.example/n\n",
			`decoding image vector override: error unmarshaling JSON: while decoding JSON: json: unknown field "repositry"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := imagevector.Load([]byte(tt.data))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error:\n got %v\nwant prefix %s", err, tt.want)
			}
		})
	}
}

// TestVectorFromEnv: the override named by $IMAGEVECTOR_OVERWRITE is merged, none without it, and a
// missing file is an error wrapping fs.ErrNotExist.
func TestVectorFromEnv(t *testing.T) {
	files := map[string][]byte{"/etc/iv.yaml": []byte("images:\n- name: calico-node\n  repository: quay.io/calico/node\n  tag: v3.31.7\n")}
	read := func(p string) ([]byte, error) {
		if b, ok := files[p]; ok {
			return b, nil
		}
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	env := func(v string) func(string) (string, bool) {
		return func(k string) (string, bool) { return v, k == "IMAGEVECTOR_OVERWRITE" && v != "" }
	}
	images := func(v *imagevector.Vector, err error) (imagevector.Images, error) {
		if err != nil {
			return imagevector.Images{}, err
		}
		return v.Images(imagevector.FindOptions{})
	}
	got, err := images(imagevector.VectorFromEnv(env("/etc/iv.yaml"), read))
	if err != nil || got.CalicoNode != "quay.io/calico/node:v3.31.7" {
		t.Errorf("override from env: %q, %v", got.CalicoNode, err)
	}
	got, err = images(imagevector.VectorFromEnv(env(""), read))
	if err != nil || got.CalicoNode != "quay.io/calico/node:v3.31.7" {
		t.Errorf("no override: %q, %v", got.CalicoNode, err)
	}
	_, err = imagevector.VectorFromEnv(env("/missing.yaml"), read)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: error %v, want it to wrap fs.ErrNotExist", err)
	}
}

// TestCNIPluginsTaggedWithOwnVersion: cni-plugins is calico-pilot's own image. Without a tag it gets
// calico-pilot's version, never the shoot's Kubernetes version; an override without a tag keeps
// that;
// an override that sets a tag wins.
func TestCNIPluginsTaggedWithOwnVersion(t *testing.T) {
	_, imgs := imagesAt316(t, nil, "1.33.2")
	if want := "ghcr.io/calico-pilot/cni-plugins:" + version.Version; imgs.CNIPlugins != want {
		t.Errorf("cni-plugins for a 1.33.2 shoot = %q, want %q", imgs.CNIPlugins, want)
	}
	mirror, err := imagevector.Load([]byte("images:\n- name: cni-plugins\n  repository: mirror.local/cni-plugins\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "mirror.local/cni-plugins:" + version.Version; mirror.CNIPlugins != want {
		t.Errorf("mirrored without tag = %q, want %q", mirror.CNIPlugins, want)
	}
	pinned, err := imagevector.Load([]byte("images:\n- name: cni-plugins\n  repository: mirror.local/cni-plugins\n  tag: v1.2.3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "mirror.local/cni-plugins:v1.2.3"; pinned.CNIPlugins != want {
		t.Errorf("pinned = %q, want %q", pinned.CNIPlugins, want)
	}
}

// TestUnknownNamesIgnored: entries for images calico-pilot does not deploy (the reference's own values
// example carries pause-container; a landscape's file shared between extensions carries more) are
// ignored, as Gardener's image vector ignores them, and reported once each, with the image a near
// miss probably meant. The images calico-pilot deploys are unchanged by them.
func TestUnknownNamesIgnored(t *testing.T) {
	override := `images:
- name: pause-container
  sourceRepository: github.com/kubernetes/kubernetes/blob/master/build/pause/Dockerfile
  repository: registry.k8s.io/pause
  tag: "3.10"
- name: calico-nodes
  repository: mirror.example/calico/node
- name: pause-container
  repository: registry.k8s.io/pause
  tag: "3.10"
  targetVersion: ">= 1.33"
- name: calico-typha
  repository: mirror.example/calico/typha
  tag: v3.31.6
`
	v, err := imagevector.LoadVector([]byte(override))
	if err != nil {
		t.Fatalf("an override with names calico-pilot does not use must load: %v", err)
	}
	want := []imagevector.IgnoredName{{Name: "pause-container"}, {Name: "calico-nodes", DidYouMean: "calico-node"}}
	if diff := cmp.Diff(want, v.Ignored()); diff != "" {
		t.Errorf("ignored names (-want +got):\n%s", diff)
	}
	// The override pins a v3.31.6 tag without `version`: looked up for that release.
	v316 := calicoversiontest.Default(t, "v3.31.6")
	opts := imagevector.ShootOptions("1.33.2")
	opts.Calico = v316
	imgs, err := v.Images(opts)
	if err != nil {
		t.Fatal(err)
	}
	base, err := imagevector.LoadVector(nil)
	if err != nil {
		t.Fatal(err)
	}
	def, err := base.Images(imagevector.FindOptions{Calico: v316})
	if err != nil {
		t.Fatal(err)
	}
	wantImgs := def
	wantImgs.CalicoTypha = "mirror.example/calico/typha:v3.31.6"
	if diff := cmp.Diff(wantImgs, imgs); diff != "" {
		t.Errorf("images (-want +got):\n%s", diff)
	}
}

// TestPerShootVersion: entries constrained by targetVersion and runtimeVersion are chosen per shoot
// Kubernetes version, as Gardener's image vector finds them for an extension (runtime = target = the
// shoot's version): an air-gapped landscape pinning images per Kubernetes version gets each shoot's
// own, and the result for a version is the same however often and in whatever order it is asked.
func TestPerShootVersion(t *testing.T) {
	override := `images:
- name: calico-node
  repository: old.example/calico/node
  tag: v3.30.4
  targetVersion: "< 1.33"
- name: calico-node
  repository: new.example/calico/node
  tag: v3.31.6
  targetVersion: ">= 1.33"
- name: calico-typha
  repository: rt.example/calico/typha
  tag: v3.31.6
  runtimeVersion: ">= 1.34.0"
`
	v, err := imagevector.LoadVector([]byte(override))
	if err != nil {
		t.Fatal(err)
	}
	r := imagevector.NewResolver(v)
	tests := []struct {
		version, node, typha string
	}{
		{"1.32.5", "old.example/calico/node:v3.30.4", "quay.io/calico/typha:v3.31.6"},
		{"1.33.0", "new.example/calico/node:v3.31.6", "quay.io/calico/typha:v3.31.6"},
		{"1.34.1", "new.example/calico/node:v3.31.6", "rt.example/calico/typha:v3.31.6"},
		{"1.32.5", "old.example/calico/node:v3.30.4", "quay.io/calico/typha:v3.31.6"},
		// Unknown version: every constraint holds without scoring; the first entry of the name wins
		// (the embedded one).
		{"", "quay.io/calico/node:v3.31.6", "quay.io/calico/typha:v3.31.6"},
	}
	for _, tt := range tests {
		imgs, err := r.ForShoot(tt.version, calicoversion.Steady(calicoversiontest.Default(t, "v3.31.6")))
		if err != nil {
			t.Fatalf("%s: %v", tt.version, err)
		}
		if imgs.CalicoNode != tt.node || imgs.CalicoTypha != tt.typha {
			t.Errorf("Kubernetes %q: calico-node %q, typha %q; want %q, %q", tt.version, imgs.CalicoNode, imgs.CalicoTypha, tt.node, tt.typha)
		}
	}
	if _, err := r.ForShoot("not-a-version", calicoversion.Steady(calicoversiontest.Default(t, "v3.31.6"))); err == nil || !strings.Contains(err.Error(), `image vector for Kubernetes "not-a-version"`) {
		t.Errorf("bad version: error %v", err)
	}
}

// TestCalicoReleases: each Calico image is looked up for the release its component runs; an override
// without `version` (a mirror) applies to every release, one with `version` only to that release (or,
// naming a line, to every release of the line), and a tag pinned by a version-less override is refused
// for a release it does not belong to, except the release unrecorded shoots run (what an operator
// pinned before releases were recorded keeps deploying).
func TestCalicoReleases(t *testing.T) {
	v316, v317, v321 := calicoversiontest.Default(t, "v3.31.6"), calicoversiontest.Default(t, "v3.31.7"), calicoversiontest.Default(t, "v3.32.1")
	v, err := imagevector.LoadVector(nil)
	if err != nil {
		t.Fatal(err)
	}
	// Every release of the catalogue has its own four images.
	for _, r := range calicoversion.Default().Releases() {
		imgs, err := imagevector.NewResolver(v).ForShoot("1.34.2", calicoversion.Steady(r))
		if err != nil {
			t.Fatal(err)
		}
		want := [4]string{"quay.io/calico/node:" + r.Name(), "quay.io/calico/cni:" + r.Name(), "quay.io/calico/typha:" + r.Name(), "quay.io/calico/kube-controllers:" + r.Name()}
		if got := [4]string{imgs.CalicoNode, imgs.CalicoCNI, imgs.CalicoTypha, imgs.CalicoKubeControllers}; got != want {
			t.Errorf("%s: %v, want %v", r, got, want)
		}
	}
	move, err := calicoversion.Default().Plan(v316, v321)
	if err != nil {
		t.Fatal(err)
	}
	imgs, err := imagevector.NewResolver(v).ForShoot("1.34.2", move.Deployment(calicoversion.PhaseFirst, calicoversion.Release{}))
	if err != nil {
		t.Fatal(err)
	}
	want := [4]string{"quay.io/calico/node:v3.32.1", "quay.io/calico/cni:v3.32.1", "quay.io/calico/typha:v3.31.6", "quay.io/calico/kube-controllers:v3.31.6"}
	if got := [4]string{imgs.CalicoNode, imgs.CalicoCNI, imgs.CalicoTypha, imgs.CalicoKubeControllers}; got != want {
		t.Errorf("calico-node first: %v, want %v", got, want)
	}

	mirror := `images:
- name: calico-node
  repository: mirror.example/calico/node
- name: calico-typha
  repository: mirror.example/calico/typha
  tag: v3.32.1-fix
  version: v3.32.1
- name: calico-kube-controllers
  repository: mirror.example/calico/kube-controllers
  version: v3.31
`
	v, err = imagevector.LoadVector([]byte(mirror))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		release         calicoversion.Release
		node, typha, kc string
	}{
		{v316, "mirror.example/calico/node:v3.31.6", "quay.io/calico/typha:v3.31.6", "mirror.example/calico/kube-controllers:v3.31.6"},
		{v317, "mirror.example/calico/node:v3.31.7", "quay.io/calico/typha:v3.31.7", "mirror.example/calico/kube-controllers:v3.31.7"},
		{v321, "mirror.example/calico/node:v3.32.1", "mirror.example/calico/typha:v3.32.1-fix", "quay.io/calico/kube-controllers:v3.32.1"},
	} {
		imgs, err := imagevector.NewResolver(v).ForShoot("1.34.2", calicoversion.Steady(tt.release))
		if err != nil {
			t.Fatalf("%s: %v", tt.release, err)
		}
		if imgs.CalicoNode != tt.node || imgs.CalicoTypha != tt.typha || imgs.CalicoKubeControllers != tt.kc {
			t.Errorf("%s: calico-node %q, typha %q, kube-controllers %q; want %q, %q, %q", tt.release, imgs.CalicoNode, imgs.CalicoTypha, imgs.CalicoKubeControllers, tt.node, tt.typha, tt.kc)
		}
	}

	pinned := `images:
- name: calico-node
  repository: mirror.example/calico/node
  tag: v3.31.6
`
	v, err = imagevector.LoadVector([]byte(pinned))
	if err != nil {
		t.Fatal(err)
	}
	if imgs, err := imagevector.NewResolver(v).ForShoot("1.33.1", calicoversion.Steady(v316)); err != nil || imgs.CalicoNode != "mirror.example/calico/node:v3.31.6" {
		t.Errorf("the unrecorded release with a version-less pin: %q, %v; want the pin, as before releases were recorded", imgs.CalicoNode, err)
	}
	for _, r := range []calicoversion.Release{v317, v321} {
		_, err = imagevector.NewResolver(v).ForShoot("1.34.2", calicoversion.Steady(r))
		if err == nil || !strings.Contains(err.Error(), "calico-node for Calico "+r.Name()+" is mirror.example/calico/node:v3.31.6, of release v3.31.6") ||
			!strings.Contains(err.Error(), "version: "+r.Name()) {
			t.Errorf("%s with a v3.31.6 pin: error %v, want a refusal naming the entry to add", r, err)
		}
	}
}

// TestSyntheticReleaseImages: a release added to the catalogue gets its images in the vector through
// the catalogue alone.
func TestSyntheticReleaseImages(t *testing.T) {
	cat := calicoversiontest.WithLines(t, calicoversiontest.V3_33)
	v, err := imagevector.LoadVectorFor(cat, nil)
	if err != nil {
		t.Fatal(err)
	}
	imgs, err := imagevector.NewResolver(v).ForShoot("1.36.0", calicoversion.Steady(calicoversiontest.Release(t, cat, "v3.33.0")))
	if err != nil || imgs.CalicoTypha != "quay.io/calico/typha:v3.33.0" {
		t.Errorf("v3.33.0: typha %q, %v", imgs.CalicoTypha, err)
	}
}
