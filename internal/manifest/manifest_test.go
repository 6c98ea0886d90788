package manifest_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/manifest"
)

func cm(ns, name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{"b": "2", "a": "1"}}
}

func ds(ns, name string) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"}, ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}

func sa(name string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"}, ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name}}
}

func TestBuildSortsAndMergesStatic(t *testing.T) {
	static, err := manifest.NewStatic([]client.Object{cm("kube-system", "static")})
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Build(static, []client.Object{sa("b"), ds("kube-system", "calico-node"), cm("kube-system", "z"), cm("default", "a"), sa("a")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range m.Docs() {
		got = append(got, d.ID())
	}
	want := []string{
		"ConfigMap default/a", "ConfigMap kube-system/static", "ConfigMap kube-system/z",
		"DaemonSet.apps kube-system/calico-node", "ServiceAccount kube-system/a", "ServiceAccount kube-system/b",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestBuildRejectsDuplicates(t *testing.T) {
	static, err := manifest.NewStatic([]client.Object{cm("kube-system", "x")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = manifest.Build(static, []client.Object{cm("kube-system", "x")})
	if err == nil || err.Error() != "building manifest: duplicate object ConfigMap kube-system/x" {
		t.Errorf("error %v", err)
	}
}

func TestEncodeRequiresTypeMeta(t *testing.T) {
	_, err := manifest.Encode(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}})
	if err == nil || err.Error() != `encoding *v1.ConfigMap "x": apiVersion and kind are not set` {
		t.Errorf("error %v", err)
	}
}

func TestFormats(t *testing.T) {
	m, err := manifest.Build(nil, []client.Object{ds("kube-system", "node"), cm("kube-system", "c")})
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c","namespace":"kube-system"},"data":{"a":"1","b":"2"}}
{"kind":"DaemonSet","apiVersion":"apps/v1","metadata":{"name":"node","namespace":"kube-system"},"spec":{"selector":null,"template":{"metadata":{},"spec":{"containers":null}},"updateStrategy":{}}}
`
	if diff := cmp.Diff(wantJSON, string(m.JSON())); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
	y, err := m.YAML()
	if err != nil {
		t.Fatal(err)
	}
	wantYAML := `---
apiVersion: v1
data:
  a: "1"
  b: "2"
kind: ConfigMap
metadata:
  name: c
  namespace: kube-system
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: node
  namespace: kube-system
spec:
  selector: null
  template:
    metadata: {}
    spec:
      containers: null
  updateStrategy: {}
`
	if diff := cmp.Diff(wantYAML, string(y)); diff != "" {
		t.Errorf("YAML (-want +got):\n%s", diff)
	}
	l, err := m.List()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(l), "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": [\n") {
		t.Errorf("List output starts with %q", string(l[:40]))
	}
}

func TestFileName(t *testing.T) {
	m, err := manifest.Build(nil, []client.Object{ds("kube-system", "calico-node"), cm("", "x")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range m.Docs() {
		got = append(got, manifest.FileName(d))
	}
	if diff := cmp.Diff([]string{"configmap_x.yaml", "daemonset.apps_kube-system_calico-node.yaml"}, got); diff != "" {
		t.Errorf("file names (-want +got):\n%s", diff)
	}
}

func TestStatusStripping(t *testing.T) {
	// Only the top-level status goes; the word elsewhere in the object stays.
	d := ds("kube-system", "node")
	d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "status"}}
	d.Status.NumberReady = 3
	doc, err := manifest.Encode(d)
	if err != nil {
		t.Fatal(err)
	}
	got := string(doc.JSON)
	if strings.Contains(got, `"numberReady"`) {
		t.Errorf("top-level status kept: %s", got)
	}
	if !strings.Contains(got, `"name":"status"`) || !strings.HasSuffix(got, `"updateStrategy":{}}}`) {
		t.Errorf("unexpected encoding: %s", got)
	}
	u := map[string]any{}
	if err := json.Unmarshal(doc.JSON, &u); err != nil {
		t.Errorf("stripped document is not JSON: %v", err)
	}
}

// TestSharedBufferDocsIndependent: documents encoded into one buffer stay intact and valid,
// including after status stripping, and scripts are not HTML-escaped.
func TestSharedBufferDocsIndependent(t *testing.T) {
	c := cm("kube-system", "script")
	c.Data = map[string]string{"run": "a && b > /dev/null"}
	objs := []client.Object{ds("kube-system", "one"), c, ds("kube-system", "two"), sa("three")}
	m, err := manifest.Build(nil, objs)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range m.Docs() {
		if !json.Valid(d.JSON) {
			t.Errorf("%s: invalid JSON %s", d.ID(), d.JSON)
		}
		single, err := manifest.Encode(objs[indexOf(objs, d.Name)])
		if err != nil {
			t.Fatal(err)
		}
		if string(single.JSON) != string(d.JSON) {
			t.Errorf("%s: shared-buffer encoding %s differs from single encoding %s", d.ID(), d.JSON, single.JSON)
		}
	}
	if !strings.Contains(string(m.JSON()), `"run":"a && b > /dev/null"`) {
		t.Errorf("script was escaped: %s", m.JSON())
	}
}

func indexOf(objs []client.Object, name string) int {
	for i, o := range objs {
		if o.GetName() == name {
			return i
		}
	}
	return -1
}

func TestStaticAndDynamicJSON(t *testing.T) {
	static, err := manifest.NewStatic([]client.Object{cm("kube-system", "s2"), cm("kube-system", "s1")})
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Build(static, []client.Object{sa("d")})
	if err != nil {
		t.Fatal(err)
	}
	wantStatic := `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"s1","namespace":"kube-system"},"data":{"a":"1","b":"2"}}
{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"s2","namespace":"kube-system"},"data":{"a":"1","b":"2"}}
`
	wantDynamic := `{"kind":"ServiceAccount","apiVersion":"v1","metadata":{"name":"d","namespace":"kube-system"}}
`
	if diff := cmp.Diff(wantStatic, string(static.JSON())); diff != "" {
		t.Errorf("static (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantDynamic, string(m.DynamicJSON())); diff != "" {
		t.Errorf("dynamic (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantStatic+wantDynamic, string(m.JSON())); diff != "" {
		t.Errorf("whole (-want +got):\n%s", diff)
	}
}
