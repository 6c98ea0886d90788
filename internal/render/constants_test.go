package render_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/calico-pilot/calico-pilot/api/projectcalico/crds"
	"github.com/calico-pilot/calico-pilot/internal/manifest"
	"github.com/calico-pilot/calico-pilot/internal/render"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// TestShootWithConstantsMatchesShoot checks, for every golden scenario, that the constant
// objects encoded once (ShootWith + manifest.Build's pre groups) give exactly the bytes of
// encoding everything Shoot renders, both as the stored stream and as its dynamic part, and
// that the document identities are the same.
func TestShootWithConstantsMatchesShoot(t *testing.T) {
	defs, err := crds.CustomResourceDefinitions()
	if err != nil {
		t.Fatal(err)
	}
	crdObjs, err := render.CRDs(defs)
	if err != nil {
		t.Fatal(err)
	}
	static, err := manifest.NewStatic(crdObjs)
	if err != nil {
		t.Fatal(err)
	}
	c, err := render.NewConstants()
	if err != nil {
		t.Fatal(err)
	}
	// Which values of the options that select constant objects the scenarios cover.
	seen := map[string]map[bool]bool{"KubeControllers": {}, "Typha": {}, "TyphaCPA": {}, "TyphaCPVA": {}, "NodeCPVA": {}}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			opts, v, r := resolve(shootOf(sc), sc.nonPrivileged, sc.addresses)
			if len(v)+len(r) > 0 {
				t.Fatalf("invalid scenario: %v %v", v, r)
			}
			seen["KubeControllers"][opts.KubeControllers] = true
			seen["Typha"][opts.Typha] = true
			seen["TyphaCPA"][opts.AutoScaling.TyphaCPA] = true
			seen["TyphaCPVA"][opts.AutoScaling.TyphaCPVA] = true
			seen["NodeCPVA"][opts.AutoScaling.NodeCPVA] = true
			all, err := render.Shoot(&opts)
			if err != nil {
				t.Fatal(err)
			}
			want, err := manifest.Build(static, all)
			if err != nil {
				t.Fatal(err)
			}
			objs, groups, err := render.ShootWith(&opts, c)
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) >= len(all) {
				t.Errorf("ShootWith returned %d objects, Shoot %d: nothing was taken from the constants", len(objs), len(all))
			}
			got, err := manifest.Build(static, objs, groups...)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(string(want.JSON()), string(got.JSON())); d != "" {
				t.Errorf("stored stream differs (-Shoot +ShootWith):\n%s", shortDiff(d))
			}
			if d := cmp.Diff(string(want.DynamicJSON()), string(got.DynamicJSON())); d != "" {
				t.Errorf("dynamic stream differs (-Shoot +ShootWith):\n%s", shortDiff(d))
			}
			var wantIDs, gotIDs []string
			for _, d := range want.Docs() {
				wantIDs = append(wantIDs, d.ID())
			}
			for _, d := range got.Docs() {
				gotIDs = append(gotIDs, d.ID())
			}
			if d := cmp.Diff(wantIDs, gotIDs); d != "" {
				t.Errorf("documents differ (-Shoot +ShootWith):\n%s", d)
			}
		})
	}
	for opt, vals := range seen {
		if !vals[true] || !vals[false] {
			t.Errorf("scenarios cover %s %v only; both values must be checked", opt, vals)
		}
	}
}

// TestShootWithErrors checks that ShootWith rejects a missing Constants and invalid Options
// like Shoot does, instead of panicking or rendering a partial manifest.
func TestShootWithErrors(t *testing.T) {
	c, err := render.NewConstants()
	if err != nil {
		t.Fatal(err)
	}
	good := values.Options{IPv4: true, PodCIDRv4: "100.96.0.0/11", Backend: values.BackendBird}
	good.Images.CalicoNode, good.Images.CalicoCNI = "node:v1", "cni:v1"
	tests := []struct {
		name    string
		opts    values.Options
		c       *render.Constants
		wantErr string
	}{
		{name: "no constants", opts: good, c: nil, wantErr: "rendering shoot objects: no constants (see NewConstants)"},
		{name: "no IP family", opts: values.Options{Backend: values.BackendBird, Images: good.Images}, c: c,
			wantErr: "rendering shoot objects: no IP family is enabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, groups, err := render.ShootWith(&tt.opts, tt.c)
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
			if objs != nil || groups != nil {
				t.Errorf("got %d objects and %d groups with an error, want none", len(objs), len(groups))
			}
		})
	}
}
