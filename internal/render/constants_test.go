package render_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/api/projectcalico/crds"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/manifest"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/render"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// TestEachConstantGroupHasOneComponent checks that every constant group is selected, over all
// golden scenarios, by exactly one component, so the per-component golden files hold each object
// once, and that every group is selected by some scenario.
func TestEachConstantGroupHasOneComponent(t *testing.T) {
	owners := map[render.ConstantGroup]map[string]bool{}
	selectable := map[render.Constant]bool{}
	for _, c := range render.Constants(calicoversion.Default()) {
		selectable[c] = true
	}
	for _, sc := range everyRelease {
		opts := scenarioOptions(t, sc)
		comps, err := render.ShootComponents(&opts)
		if err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		for _, c := range comps {
			for _, g := range c.Groups {
				if owners[g.Group] == nil {
					owners[g.Group] = map[string]bool{}
				}
				owners[g.Group][c.Name] = true
				if !selectable[g] {
					t.Errorf("%s: component %s selects %+v, which render.Constants does not list (the encoder has no bytes for it)", sc.Name, c.Name, g)
				}
			}
		}
	}
	for c := range selectable {
		if len(owners[c.Group]) != 1 {
			t.Errorf("constant group %d is selected by components %v, want exactly one", c.Group, owners[c.Group])
		}
	}
}

// TestShootPartsMatchShoot checks, for every golden scenario, that ShootParts' objects plus its
// groups' objects are exactly Shoot's objects, that the groups are listed in order without
// repeats, and that the scenarios cover both values of every option that selects a group.
func TestShootPartsMatchShoot(t *testing.T) {
	seen := map[string]map[bool]bool{"KubeControllers": {}, "Typha": {}, "TyphaCPA": {}, "TyphaCPVA": {}, "NodeCPVA": {}}
	for _, sc := range everyRelease {
		t.Run(sc.Name, func(t *testing.T) {
			opts := scenarioOptions(t, sc)
			seen["KubeControllers"][opts.KubeControllers] = true
			seen["Typha"][opts.Typha] = true
			seen["TyphaCPA"][opts.AutoScaling.TyphaCPA] = true
			seen["TyphaCPVA"][opts.AutoScaling.TyphaCPVA] = true
			seen["NodeCPVA"][opts.AutoScaling.NodeCPVA] = true
			all, err := rendertest.Shoot(&opts)
			if err != nil {
				t.Fatal(err)
			}
			objs, groups, err := render.ShootParts(&opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(groups) == 0 || groups[0].Group != render.GroupAlways {
				t.Errorf("groups = %v, want GroupAlways first", groups)
			}
			for i := 1; i < len(groups); i++ {
				if groups[i].Group <= groups[i-1].Group {
					t.Errorf("groups = %v, want increasing", groups)
				}
			}
			for _, g := range groups {
				objs = append(objs, g.Objects()...)
			}
			if d := cmp.Diff(encodeEach(t, all), encodeEach(t, objs)); d != "" {
				t.Errorf("objects differ (-Shoot +ShootParts):\n%s", shortDiff(d))
			}
		})
	}
	for opt, vals := range seen {
		if !vals[true] || !vals[false] {
			t.Errorf("scenarios cover %s %v only; both values must be checked", opt, vals)
		}
	}
}

// TestEncoderMatchesShoot checks, for every golden scenario, that the pipeline's Encoder (CRDs and
// constant groups encoded once) gives exactly the bytes of encoding everything Shoot renders, as
// the stored stream, as its dynamic part and without CRDs, with the same documents.
func TestEncoderMatchesShoot(t *testing.T) {
	statics := map[string]*manifest.Static{} // by CRD set
	for _, line := range calicoversion.Default().Lines() {
		defs, err := crds.CustomResourceDefinitionsFor(line.CRDSet())
		if err != nil {
			t.Fatal(err)
		}
		crdObjs, err := render.CRDs(defs)
		if err != nil {
			t.Fatal(err)
		}
		if statics[line.CRDSet()], err = manifest.NewStatic(crdObjs); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := pipeline.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range everyRelease {
		t.Run(sc.Name, func(t *testing.T) {
			opts := scenarioOptions(t, sc)
			all := renderScenario(t, sc)
			// build encodes all the scenario's objects after the CRDs of static (nil: none);
			// encode is the Encoder's manifest, with or without the CRDs.
			build := func(static *manifest.Static) *manifest.Manifest {
				m, err := manifest.Build(static, all)
				if err != nil {
					t.Fatal(err)
				}
				return m
			}
			encode := func(withCRDs bool) *manifest.Manifest {
				m, err := enc.Shoot(&opts, withCRDs)
				if err != nil {
					t.Fatal(err)
				}
				return m
			}
			want, got := build(statics[opts.Calico.CRDs.CRDSet()]), encode(true)
			if d := cmp.Diff(string(want.JSON()), string(got.JSON())); d != "" {
				t.Errorf("stored stream differs (-Shoot +Encoder):\n%s", shortDiff(d))
			}
			if d := cmp.Diff(string(want.DynamicJSON()), string(got.DynamicJSON())); d != "" {
				t.Errorf("dynamic stream differs (-Shoot +Encoder):\n%s", shortDiff(d))
			}
			if d := cmp.Diff(docIDs(want), docIDs(got)); d != "" {
				t.Errorf("documents differ (-Shoot +Encoder):\n%s", d)
			}
			if d := cmp.Diff(string(build(nil).JSON()), string(encode(false).JSON())); d != "" {
				t.Errorf("stream without CRDs differs (-Shoot +Encoder):\n%s", shortDiff(d))
			}
		})
	}
}

// TestShootPartsErrors checks that ShootParts rejects invalid Options like Shoot does, instead
// of panicking or returning a partial set.
func TestShootPartsErrors(t *testing.T) {
	good := values.Options{Backend: "bird", Calico: calicoversion.Steady(calicoversion.Default().DefaultRelease())}
	good.Images.CalicoNode, good.Images.CalicoCNI = "node:v1", "cni:v1"
	objs, groups, err := render.ShootParts(&good)
	const wantErr = "rendering shoot objects: no IP family is enabled"
	if err == nil || err.Error() != wantErr {
		t.Fatalf("error = %v, want %q", err, wantErr)
	}
	if objs != nil || groups != nil {
		t.Errorf("got %d objects and %d groups with an error, want none", len(objs), len(groups))
	}
}

func encodeEach(t *testing.T, objs []client.Object) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, o := range objs {
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		key := o.GetObjectKind().GroupVersionKind().Kind + "/" + o.GetNamespace() + "/" + o.GetName()
		if _, dup := out[key]; dup {
			t.Errorf("%s rendered twice", key)
		}
		out[key] = string(b)
	}
	return out
}

func docIDs(m *manifest.Manifest) []string {
	var ids []string
	for _, d := range m.Docs() {
		ids = append(ids, d.ID())
	}
	return ids
}
