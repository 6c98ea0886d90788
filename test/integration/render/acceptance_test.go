package render

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/calico-pilot/calico-pilot/api/projectcalico/crds"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/manifest"
	"github.com/calico-pilot/calico-pilot/internal/render"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// goldenDir holds internal/render's golden files: shoot/<scenario>/<component>.yaml are the
// scenario's shoot objects, one file per component; seed-monitoring/<scenario>.yaml its
// seed-side objects.
var goldenDir = filepath.Join("..", "..", "..", "internal", "render", "testdata")

func newClient(t *testing.T) client.Client {
	t.Helper()
	c, err := controlPlane.NewClient(clientgoscheme.AddToScheme)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func decodeStream(t *testing.T, data []byte) []*unstructured.Unstructured {
	t.Helper()
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return out
			}
			t.Fatalf("decoding: %v", err)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

// dryRunApply server-side applies every object in dry-run mode: the API server runs defaulting,
// schema validation (strict for apply: an unknown field is an error) and admission, and stores nothing.
func dryRunApply(t *testing.T, c client.Client, objs []*unstructured.Unstructured) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, u := range objs {
		err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("calico-pilot"), client.ForceOwnership, client.DryRunAll)
		if err != nil {
			t.Errorf("%s %s/%s rejected: %v", u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
	}
}

// TestEveryReleaseAccepted applies, for every line of the catalogue (oldest first), that line's CRDs
// as a move up does (updated in place, none deleted), then every scenario rendered at every release
// of the line (rendertest.AtEveryRelease), the move scenarios whose CRDs are the line's, and the
// line's CRDs themselves in their stored form: the schemas of a release's line (enums, limits, CEL
// rules) accept what calico-pilot renders for that release. The base release's CRDs are put back
// afterwards, which the suite's other tests use.
func TestEveryReleaseAccepted(t *testing.T) {
	cat := calicoversion.Default()
	all := rendertest.AtEveryRelease()
	if want := 40 * len(cat.Releases()); len(all) < want {
		t.Fatalf("found %d render scenarios over every release, want at least %d", len(all), want)
	}
	t.Cleanup(func() {
		if err := controlPlane.InstallCalicoCRDs(context.Background(), rendertest.Base()); err != nil {
			t.Errorf("putting the base release's CRDs back: %v", err)
		}
	})
	c := newClient(t)
	applied := map[string]int{}
	for _, line := range cat.Lines() {
		t.Run(line.Name(), func(t *testing.T) {
			if err := controlPlane.InstallCalicoCRDs(context.Background(), line.Newest()); err != nil {
				t.Fatal(err)
			}
			for _, sc := range all {
				if sc.Deployment().CRDs.Line() != line {
					continue
				}
				t.Run(sc.Name, func(t *testing.T) {
					objs, err := sc.Unstructured()
					if err != nil {
						t.Fatal(err)
					}
					if len(objs) < 20 {
						t.Fatalf("only %d objects rendered for %s", len(objs), sc.Name)
					}
					dryRunApply(t, c, objs)
				})
				applied[sc.Deployment().Node.Name()]++
			}
			decoded := decodeStream(t, storedCRDs(t, line.Newest()).JSON())
			defs, err := crds.CustomResourceDefinitionsFor(line.CRDSet())
			if err != nil || len(decoded) != len(defs) {
				t.Fatalf("decoded %d %s CRDs from the stored form, want the set's %d (%v)", len(decoded), line.Name(), len(defs), err)
			}
			dryRunApply(t, c, decoded)
		})
	}
	for _, r := range cat.Releases() {
		if applied[r.Name()] < 40 {
			t.Errorf("release %s: %d scenarios applied, want every scenario", r, applied[r.Name()])
		}
	}
}

// storedCRDs are the CRDs of a Calico release's line as the stored manifest carries them (encoded once).
func storedCRDs(t *testing.T, r calicoversion.Release) *manifest.Static {
	t.Helper()
	defs, err := crds.CustomResourceDefinitionsFor(r.CRDSet())
	if err != nil {
		t.Fatal(err)
	}
	objs, err := render.CRDs(defs)
	if err != nil {
		t.Fatal(err)
	}
	static, err := manifest.NewStatic(objs)
	if err != nil {
		t.Fatal(err)
	}
	return static
}

// TestStoredFormAccepted applies the stored JSON form (what the ManagedResource secret holds),
// CRDs included, decoded with the same YAML-or-JSON stream decoder the resource manager uses.
func TestStoredFormAccepted(t *testing.T) {
	o := options(t, values.ClusterFacts{IPFamilies: []string{"IPv4"}, PodCIDR: "100.96.0.0/11", NodeCIDR: "10.250.0.0/16", VPAEnabled: true, SeedNamespace: "shoot--dev--test"})
	objs, err := rendertest.Shoot(&o)
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Build(storedCRDs(t, o.Calico.CRDs), objs)
	if err != nil {
		t.Fatal(err)
	}
	decoded := decodeStream(t, m.JSON())
	if len(decoded) != m.Len() {
		t.Fatalf("decoded %d objects from the stored form, rendered %d", len(decoded), m.Len())
	}
	dryRunApply(t, newClient(t), decoded)
}

// TestSeedMonitoringAccepted applies the seed-side objects (dashboards ConfigMap, ScrapeConfigs).
func TestSeedMonitoringAccepted(t *testing.T) {
	c := newClient(t)
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "shoot--dev--test"}}}
	if err := c.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	cfg := values.ClusterFacts{IPFamilies: []string{"IPv4"}, PodCIDR: "100.96.0.0/11", VPAEnabled: true, SeedNamespace: "shoot--dev--test"}
	o := options(t, cfg)
	o.BirdExporter = true // all three ScrapeConfigs
	objs, err := render.SeedMonitoring(&o)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 4 {
		t.Fatalf("got %d seed objects, want the dashboards ConfigMap and 3 ScrapeConfigs", len(objs))
	}
	m, err := manifest.Build(nil, objs)
	if err != nil {
		t.Fatal(err)
	}
	dryRunApply(t, c, decodeStream(t, m.JSON()))

	// And the seed-side golden files of internal/render.
	files, err := filepath.Glob(filepath.Join(goldenDir, "seed-monitoring", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no seed-monitoring golden files: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dryRunApply(t, c, decodeStream(t, data))
	}
}

func options(t *testing.T, facts values.ClusterFacts) values.Options {
	t.Helper()
	imgs := rendertest.DefaultImages()
	facts.Paths = values.ShootFactPaths()
	o, errs := values.Resolve(values.Inputs{Cluster: facts, Settings: values.Settings{Images: imgs}})
	if len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	return o
}

// TestDryRunRejectsBadObjects shows the acceptance check can fail: the API server refuses an
// unknown field of a Calico kind, an unknown field of a built-in kind and an invalid enum value.
func TestDryRunRejectsBadObjects(t *testing.T) {
	bad := []string{
		`{"apiVersion":"crd.projectcalico.org/v1","kind":"IPPool","metadata":{"name":"x"},"spec":{"cidr":"10.0.0.0/16","bogus":true}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"kube-system"},"bogus":{}}`,
		`{"apiVersion":"autoscaling.k8s.io/v1","kind":"VerticalPodAutoscaler","metadata":{"name":"x","namespace":"kube-system"},"spec":{"targetRef":{"apiVersion":"apps/v1","kind":"DaemonSet","name":"x"},"updatePolicy":{"updateMode":"Sometimes"}}}`,
	}
	c := newClient(t)
	for _, b := range bad {
		u := decodeStream(t, []byte(b))[0]
		err := c.Apply(context.Background(), client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("calico-pilot"), client.ForceOwnership, client.DryRunAll)
		if err == nil {
			t.Errorf("%s was accepted, want rejected", b)
		}
	}
}
