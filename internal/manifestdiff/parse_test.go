package manifestdiff

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/mrdata"
)

func ids(s *Set) []string {
	var out []string
	for _, o := range s.Objects() {
		out = append(out, o.ID.String())
	}
	return out
}

func problems(s *Set) []string {
	var out []string
	for _, p := range s.Problems {
		out = append(out, p.String())
	}
	return out
}

func TestManagedResourceData(t *testing.T) {
	p := newParser(t)
	cases := []struct {
		name         string
		data         map[string][]byte
		wantIDs      []string
		wantProblems []string
	}{
		{
			name: "keys in sorted order, namespaces as the resource manager sets them",
			data: map[string][]byte{
				"b.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: no-namespace}\n"),
				"a.json": []byte(`{"apiVersion":"crd.projectcalico.org/v1","kind":"IPPool","metadata":{"name":"p","namespace":"kube-system"}}` + "\n" +
					`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"calico-node"}}`),
			},
			wantIDs: []string{"ClusterRole.rbac.authorization.k8s.io calico-node", "ConfigMap default/no-namespace", "IPPool.crd.projectcalico.org p"},
		},
		{
			name:    "null and empty documents are skipped",
			data:    map[string][]byte{"config.yaml": []byte("---\n---\nnull\n---\n# only a comment\n---\n" + calicoConfig)},
			wantIDs: []string{"ConfigMap kube-system/calico-config"},
		},
		{
			name:    "a document that does not decode is skipped, the others are kept",
			data:    map[string][]byte{"config.yaml": stream(calicoConfig, "apiVersion: v1\nmetadata: {name: x}\n", "kind: ConfigMap\nmetadata: {name: y}\n", ipPool)},
			wantIDs: []string{"ConfigMap kube-system/calico-config", "IPPool.crd.projectcalico.org default-ipv4-ippool"},
			wantProblems: []string{
				`key "config.yaml" document 2: cannot be decoded (the resource manager skips it and reports DecodingFailed): error unmarshaling JSON: while decoding JSON: Object 'Kind' is missing in '{"apiVersion":"v1","metadata":{"name":"x"}}'`,
				`key "config.yaml" document 3: apiVersion and kind must be set (the resource manager cannot apply it)`,
			},
		},
		{
			name:    "a List is not expanded",
			data:    map[string][]byte{"config.json": []byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}]}`)},
			wantIDs: nil,
			wantProblems: []string{
				`key "config.json" document 1: is a List; the resource manager does not expand lists and fails to apply it: put each object in its own document`,
			},
		},
		{
			name:    "a later duplicate wins",
			data:    map[string][]byte{"a.yaml": []byte(calicoConfig), "b.yaml": []byte(replace(t, calicoConfig, "bird", "none"))},
			wantIDs: []string{"ConfigMap kube-system/calico-config"},
			wantProblems: []string{
				`key "b.yaml" document 1: ConfigMap kube-system/calico-config is also defined by key "a.yaml" document 1; the resource manager applies both in turn, so this later one is used`,
			},
		},
		{
			name: "a CRD in the same input decides the scope of its kind",
			data: map[string][]byte{"config.yaml": stream(
				"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\nspec: {group: example.com, scope: Cluster, names: {kind: Widget, plural: widgets}}\n",
				"apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: kube-system}\n",
				"apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\n")},
			wantIDs: []string{"CustomResourceDefinition.apiextensions.k8s.io widgets.example.com", "Gadget.example.com default/g", "Widget.example.com w"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := p.ManagedResourceData(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantIDs, ids(s)); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantProblems, problems(s)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// NewParser reads Brotli keys as the resource manager does: a calico-pilot secret (plain stream +
// compressed CRDs) and a Gardener registry secret (data.yaml.br) give their objects.
func TestBrotliKeys(t *testing.T) {
	p := newParser(t)
	compressed, err := mrdata.Compress([]byte(calicoConfig))
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.ManagedResourceData(map[string][]byte{"data.yaml.br": compressed})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ConfigMap kube-system/calico-config"}, ids(s)); diff != "" {
		t.Error(diff)
	}
	if _, err := p.ManagedResourceData(map[string][]byte{mrdata.CRDsKey: []byte("not brotli")}); err == nil || !strings.Contains(err.Error(), `decompressing secret data key "crds.yaml.br"`) {
		t.Errorf("corrupt key: %v", err)
	}
}

func TestBrotliKeyNeedsADecompressor(t *testing.T) {
	p := newParser(t)
	p.Decompressors = nil
	_, err := p.ManagedResourceData(map[string][]byte{"data.yaml.br": []byte("\x1b")})
	want := `secret data key "data.yaml.br" is Brotli-compressed (the resource manager decompresses keys ending in ".br"), and no decompressor for ".br" is registered in Parser.Decompressors`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	p.Decompressors = map[string]func([]byte) ([]byte, error){".br": func([]byte) ([]byte, error) { return []byte(calicoConfig), nil }}
	s, err := p.ManagedResourceData(map[string][]byte{"data.yaml.br": []byte("compressed")})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ConfigMap kube-system/calico-config"}, ids(s)); diff != "" {
		t.Error(diff)
	}
	p.Decompressors[".br"] = func([]byte) ([]byte, error) { return nil, errors.New("corrupt input") }
	if _, err := p.ManagedResourceData(map[string][]byte{"data.yaml.br": nil}); err == nil || err.Error() != `decompressing secret data key "data.yaml.br": corrupt input` {
		t.Errorf("got %v", err)
	}
}

func TestStreamRejectsBadDocuments(t *testing.T) {
	p := newParser(t)
	_, err := p.Stream("new.yaml", stream(calicoConfig, "apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: x}\n"))
	want := `1 problem(s): new.yaml document 2: v1 ConfigMap has no metadata.name (the resource manager cannot apply it)`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

// Typed objects (what render returns) and the YAML a person or the reference's Helm chart wrote
// compare equal when the API server would store the same object.
func TestTypedObjectsEqualTheirYAML(t *testing.T) {
	p := newParser(t)
	two := int32(2)
	ds := &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: "calico-node", Namespace: "kube-system"},
		Spec: appsv1.DaemonSetSpec{
			Selector:             &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "calico-node"}},
			RevisionHistoryLimit: &two,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"k8s-app": "calico-node"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "install", Image: "quay.io/calico/cni:v3.31.6",
					Env: []corev1.EnvVar{{Name: "SLEEP", Value: "false"}},
				}}},
			},
		},
	}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "calico-config", "namespace": "kube-system"}, "data": map[string]any{"veth_mtu": "0"}}}
	typed, err := p.Objects([]client.Object{ds, u})
	if err != nil {
		t.Fatal(err)
	}
	written := mrSet(t, p, `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: calico-node, namespace: kube-system}
spec:
  revisionHistoryLimit: 2
  selector: {matchLabels: {k8s-app: calico-node}}
  template:
    metadata: {labels: {k8s-app: calico-node}}
    spec:
      containers:
      - name: install
        image: quay.io/calico/cni:v3.31.6
        env: [{name: SLEEP, value: "false"}]
`, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: calico-config, namespace: kube-system}\ndata: {veth_mtu: \"0\"}\n")
	d := classified(typed, written)
	if len(d.Objects) != 0 || d.Unchanged != 2 {
		t.Errorf("want no differences, got:\n%s", textOf(t, d))
	}
}

func TestObjectsNeedTypeMeta(t *testing.T) {
	p := newParser(t)
	_, err := p.Objects([]client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}})
	if err == nil || !strings.Contains(err.Error(), `object 1 (*v1.ConfigMap "x"): apiVersion and kind must be set`) {
		t.Errorf("got %v", err)
	}
}
