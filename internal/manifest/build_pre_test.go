package manifest_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/internal/manifest"
	"github.com/calico-pilot/calico-pilot/internal/testcheck"
)

// TestBuildWithPreEncodedGroups checks that documents encoded once (Build's pre groups) land in
// the same places and bytes as encoding the same objects with the rest, in the stored stream and
// in the dynamic stream, and that a duplicate between a group and an object is rejected.
func TestBuildWithPreEncodedGroups(t *testing.T) {
	tests := []struct {
		name    string
		objs    []client.Object
		pre     [][]client.Object
		wantErr string
	}{
		{
			name: "groups interleaved with objects",
			objs: []client.Object{sa("n"), cm("kube-system", "c")},
			pre:  [][]client.Object{{sa("a"), cm("kube-system", "d")}, {sa("z"), ds("kube-system", "x")}},
		},
		{name: "groups only", pre: [][]client.Object{{sa("b"), sa("a")}}},
		{name: "no groups", objs: []client.Object{sa("b"), cm("kube-system", "a")}},
		{
			name:    "duplicate between group and object",
			objs:    []client.Object{sa("a")},
			pre:     [][]client.Object{{sa("a")}},
			wantErr: "building manifest: duplicate object ServiceAccount kube-system/a",
		},
	}
	static, err := manifest.NewStatic([]client.Object{cm("kube-system", "b"), sa("m")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var groups []*manifest.Static
			all := append([]client.Object(nil), tt.objs...)
			for _, g := range tt.pre {
				s, err := manifest.NewStatic(g)
				if err != nil {
					t.Fatal(err)
				}
				groups = append(groups, s)
				all = append(all, g...)
			}
			got, err := manifest.Build(static, tt.objs, groups...)
			if testcheck.Err(t, err, tt.wantErr) {
				return
			}
			want, err := manifest.Build(static, all)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(string(want.JSON()), string(got.JSON())); d != "" {
				t.Errorf("JSON (-all encoded +pre-encoded):\n%s", d)
			}
			if d := cmp.Diff(string(want.DynamicJSON()), string(got.DynamicJSON())); d != "" {
				t.Errorf("DynamicJSON (-all encoded +pre-encoded):\n%s", d)
			}
			if d := cmp.Diff(want.Docs(), got.Docs()); d != "" {
				t.Errorf("Docs (-all encoded +pre-encoded):\n%s", d)
			}
		})
	}
}
