package imagevector_test

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calico-pilot/calico-pilot/internal/imagevector"
)

func TestDefault(t *testing.T) {
	got, err := imagevector.Default()
	if err != nil {
		t.Fatal(err)
	}
	want := imagevector.Images{
		CalicoNode:            "quay.io/calico/node:v3.31.6",
		CalicoCNI:             "quay.io/calico/cni:v3.31.6",
		CalicoTypha:           "quay.io/calico/typha:v3.31.6",
		CalicoKubeControllers: "quay.io/calico/kube-controllers:v3.31.6",
		CPA:                   "registry.k8s.io/cpa/cluster-proportional-autoscaler:v1.10.3",
		CPVA:                  "registry.k8s.io/cpa/cpvpa:v0.8.10",
		BirdExporter:          "ghcr.io/czerwonk/bird_exporter:v1.5.0",
		Multus:                "ghcr.io/k8snetworkplumbingwg/multus-cni:v4.3.0",
		CNIPlugins:            "europe-docker.pkg.dev/gardener-project/releases/gardener/extensions/cni-plugins:v1.9.0",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("images (-want +got):\n%s", diff)
	}
}

const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestOverride(t *testing.T) {
	override := []byte(`images:
- name: calico-node
  repository: mirror.example.com/calico/node
- name: calico-typha
  digest: ` + digest + `
- name: multus-cni
  repository: registry.local:5000/multus
  tag: v4.3.1
`)
	got, err := imagevector.Load(override)
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string][2]string{
		"calico-node (mirror, pinned tag kept)": {got.CalicoNode, "mirror.example.com/calico/node:v3.31.6"},
		"calico-typha (digest)":                 {got.CalicoTypha, "quay.io/calico/typha@" + digest},
		"multus (registry with port, new tag)":  {got.Multus, "registry.local:5000/multus:v4.3.1"},
		"calico-cni (untouched)":                {got.CalicoCNI, "quay.io/calico/cni:v3.31.6"},
	}
	for name, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s: got %q, want %q", name, c[0], c[1])
		}
	}
}

func TestOverrideErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"unknown image", "images:\n- name: calico-apiserver\n  tag: v1\n",
			`image vector override: images[0].name: unknown image "calico-apiserver", known images are [bird-exporter, calico-cni, calico-cpa, calico-cpva, calico-kube-controllers, calico-node, calico-typha, cni-plugins, multus-cni]`},
		{"bad digest", "images:\n- name: calico-node\n  digest: sha256:abc\n",
			`image vector override: images[0].digest: "sha256:abc" is not a digest, expected sha256:<64 hex digits>`},
		{"tag in repository", "images:\n- name: calico-node\n  repository: quay.io/calico/node@sha256\n",
			`image vector override: images[0].repository: "quay.io/calico/node@sha256" must be a repository without tag or digest`},
		{"duplicate", "images:\n- name: calico-node\n  tag: a\n- name: calico-node\n  tag: b\n",
			`image vector override: images[1].name: duplicate image "calico-node"`},
		{"unknown field", "images:\n- name: calico-node\n  version: v1\n",
			"decoding image vector override: error unmarshaling JSON: while decoding JSON: json: unknown field \"version\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := imagevector.Load([]byte(tt.data))
			if err == nil || err.Error() != tt.want {
				t.Errorf("error:\n got %v\nwant %s", err, tt.want)
			}
		})
	}
}

func TestFromEnv(t *testing.T) {
	files := map[string][]byte{"/etc/iv.yaml": []byte("images:\n- name: calico-node\n  tag: v3.31.7\n")}
	read := func(p string) ([]byte, error) {
		if b, ok := files[p]; ok {
			return b, nil
		}
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	env := func(v string) func(string) (string, bool) {
		return func(k string) (string, bool) { return v, k == "IMAGEVECTOR_OVERWRITE" && v != "" }
	}
	got, err := imagevector.FromEnv(env("/etc/iv.yaml"), read)
	if err != nil || got.CalicoNode != "quay.io/calico/node:v3.31.7" {
		t.Errorf("override from env: %q, %v", got.CalicoNode, err)
	}
	got, err = imagevector.FromEnv(env(""), read)
	if err != nil || got.CalicoNode != "quay.io/calico/node:v3.31.6" {
		t.Errorf("no override: %q, %v", got.CalicoNode, err)
	}
	_, err = imagevector.FromEnv(env("/missing.yaml"), read)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: error %v, want it to wrap fs.ErrNotExist", err)
	}
}
