package manifest_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/manifest"
	"github.com/calico-pilot/calico-pilot/internal/testcheck"
)

// TestBuildMergesStaticAtEveryPosition checks that Build, which sorts only the rendered objects
// and merges the pre-sorted static documents in, gives the full sort order wherever the static
// documents fall (first, last, in between, all of one side) and still rejects duplicates.
func TestBuildMergesStaticAtEveryPosition(t *testing.T) {
	tests := []struct {
		name    string
		static  []client.Object
		objs    []client.Object
		want    []string
		wantErr string
	}{
		{
			name:   "static interleaved",
			static: []client.Object{sa("m"), cm("kube-system", "b"), sa("z")},
			objs:   []client.Object{sa("n"), cm("kube-system", "c"), cm("kube-system", "a"), sa("a")},
			want: []string{
				"ConfigMap kube-system/a", "ConfigMap kube-system/b", "ConfigMap kube-system/c",
				"ServiceAccount kube-system/a", "ServiceAccount kube-system/m", "ServiceAccount kube-system/n",
				"ServiceAccount kube-system/z",
			},
		},
		{
			name:   "static all first",
			static: []client.Object{cm("kube-system", "y"), cm("kube-system", "x")},
			objs:   []client.Object{sa("b"), sa("a")},
			want:   []string{"ConfigMap kube-system/x", "ConfigMap kube-system/y", "ServiceAccount kube-system/a", "ServiceAccount kube-system/b"},
		},
		{
			name:   "static all last",
			static: []client.Object{sa("b"), sa("a")},
			objs:   []client.Object{cm("kube-system", "y"), cm("kube-system", "x")},
			want:   []string{"ConfigMap kube-system/x", "ConfigMap kube-system/y", "ServiceAccount kube-system/a", "ServiceAccount kube-system/b"},
		},
		{
			name:   "no rendered objects",
			static: []client.Object{sa("b"), sa("a")},
			want:   []string{"ServiceAccount kube-system/a", "ServiceAccount kube-system/b"},
		},
		{
			name:    "duplicate among rendered objects",
			static:  []client.Object{sa("a")},
			objs:    []client.Object{cm("kube-system", "x"), sa("b"), cm("kube-system", "x")},
			wantErr: "building manifest: duplicate object ConfigMap kube-system/x",
		},
		{
			name:    "rendered object duplicates the last static one",
			static:  []client.Object{cm("kube-system", "a"), sa("z")},
			objs:    []client.Object{sa("z"), cm("kube-system", "b")},
			wantErr: "building manifest: duplicate object ServiceAccount kube-system/z",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			static, err := manifest.NewStatic(tt.static)
			if err != nil {
				t.Fatal(err)
			}
			m, err := manifest.Build(static, tt.objs)
			if testcheck.Err(t, err, tt.wantErr) {
				return
			}
			var got []string
			for _, d := range m.Docs() {
				got = append(got, d.ID())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNewStaticRejectsDuplicates: the static documents are sorted and checked like a manifest.
func TestNewStaticRejectsDuplicates(t *testing.T) {
	_, err := manifest.NewStatic([]client.Object{sa("a"), cm("kube-system", "x"), sa("a")})
	if err == nil || err.Error() != "building manifest: duplicate object ServiceAccount kube-system/a" {
		t.Errorf("error %v", err)
	}
}

// TestDynamicJSONIsTheRenderedDocumentsInOrder: the stream of the rendered objects is exactly
// their documents, sorted, one per line, whatever order they were passed in.
func TestDynamicJSONIsTheRenderedDocumentsInOrder(t *testing.T) {
	static, err := manifest.NewStatic([]client.Object{sa("m")})
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Build(static, []client.Object{sa("z"), ds("kube-system", "n"), sa("a")})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"DaemonSet","apiVersion":"apps/v1","metadata":{"name":"n","namespace":"kube-system"},"spec":{"selector":null,"template":{"metadata":{},"spec":{"containers":null}},"updateStrategy":{}}}
{"kind":"ServiceAccount","apiVersion":"v1","metadata":{"name":"a","namespace":"kube-system"}}
{"kind":"ServiceAccount","apiVersion":"v1","metadata":{"name":"z","namespace":"kube-system"}}
`
	if diff := cmp.Diff(want, string(m.DynamicJSON())); diff != "" {
		t.Errorf("dynamic (-want +got):\n%s", diff)
	}
	wantAll := `{"kind":"DaemonSet","apiVersion":"apps/v1","metadata":{"name":"n","namespace":"kube-system"},"spec":{"selector":null,"template":{"metadata":{},"spec":{"containers":null}},"updateStrategy":{}}}
{"kind":"ServiceAccount","apiVersion":"v1","metadata":{"name":"a","namespace":"kube-system"}}
{"kind":"ServiceAccount","apiVersion":"v1","metadata":{"name":"m","namespace":"kube-system"}}
{"kind":"ServiceAccount","apiVersion":"v1","metadata":{"name":"z","namespace":"kube-system"}}
`
	if diff := cmp.Diff(wantAll, string(m.JSON())); diff != "" {
		t.Errorf("whole (-want +got):\n%s", diff)
	}
}

// TestBuildBufferGrowth: documents larger than the initial buffer (1 kB per object) still come
// out whole, each equal to its own Encode, and the stream is them in order.
func TestBuildBufferGrowth(t *testing.T) {
	big := cm("kube-system", "big")
	big.Data = map[string]string{"blob": strings.Repeat("x", 5000)}
	objs := []client.Object{sa("b"), big, sa("a"), ds("kube-system", "n")}
	m, err := manifest.Build(nil, objs)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, o := range []client.Object{big, ds("kube-system", "n"), sa("a"), sa("b")} {
		d, err := manifest.Encode(o)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, string(d.JSON))
	}
	var got []string
	for _, d := range m.Docs() {
		got = append(got, string(d.JSON))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(strings.Join(want, "\n")+"\n", string(m.DynamicJSON())); diff != "" {
		t.Errorf("stream (-want +got):\n%s", diff)
	}
}
