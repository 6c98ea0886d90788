package webhook

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/decode"
	"github.com/calico-pilot/calico-pilot/internal/manifest"
	"github.com/calico-pilot/calico-pilot/internal/overlayswitch"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/render/rendertest"
	"github.com/calico-pilot/calico-pilot/internal/validation"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// TestOverlayAnswersAgree is the regression test for the three overlay answers that once
// disagreed: the webhook's transition rules (resolveNetworking), the provider status the controller
// records (pipeline.AppliedStatus) and the overlay read back from a deployed manifest
// (overlayswitch.OverlayFromManifests). For every family mix and overlay setting that validation
// accepts, all three must say the same, and some cases pin the expected answer.
func TestOverlayAnswersAgree(t *testing.T) {
	images := rendertest.DefaultImages()
	enc, err := pipeline.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	mixes := map[string][]gardencorev1beta1.IPFamily{
		"IPv4":       {"IPv4"},
		"IPv6":       {"IPv6"},
		"dual-stack": {"IPv4", "IPv6"},
	}
	configs := []string{
		"",
		`{}`,
		`{"overlay":{"enabled":true}}`,
		`{"overlay":{"enabled":false}}`,
		`{"overlay":{"enabled":false,"createPodRoutes":true}}`,
		`{"overlay":{"enabled":true},"vxlan":{"enabled":true}}`,
		`{"vxlan":{"enabled":true}}`,
		`{"ipv4":{"mode":"Never"}}`,
		`{"ipv4":{"mode":"CrossSubnet"}}`,
		`{"ipip":"Off"}`,
		`{"backend":"none"}`,
		`{"ipv6":{"mode":"Always"}}`,
		`{"ipv6":{"mode":"Never"}}`,
		`{"overlay":{"enabled":true},"ipv6":{"mode":"Always"}}`,
		`{"overlay":{"enabled":false},"ipv6":{"mode":"Never"}}`,
		`{"overlay":{"enabled":true},"ipv4":{"mode":"CrossSubnet"}}`,
	}
	// want pins the answer where a mistake was made or is easy to make.
	want := map[string]bool{
		`IPv4 ` + configs[0]:                                         true,
		`IPv4 {"overlay":{"enabled":false}}`:                         false,
		`IPv4 {"overlay":{"enabled":true},"vxlan":{"enabled":true}}`: true,
		`IPv6 `: false,
		`IPv6 {"overlay":{"enabled":true},"ipv6":{"mode":"Always"}}`:       true,
		`IPv6 {"ipv6":{"mode":"Always"}}`:                                  true,
		`dual-stack {"overlay":{"enabled":true},"ipv6":{"mode":"Always"}}`: true,
		`dual-stack {"overlay":{"enabled":false},"ipv6":{"mode":"Never"}}`: false,
	}
	checked := map[string]int{}
	for mix, families := range mixes {
		for _, config := range configs {
			name := mix + " " + config
			t.Run(name, func(t *testing.T) {
				shoot := shootWithFamilies(families)
				cfg := decodeConfig(t, config)
				if errs := validation.ValidateNetworkConfig(cfg, families, decode.ProviderConfigPath()); len(errs) > 0 {
					t.Skipf("not valid for %s: %v", mix, errs.ToAggregate())
				}
				webhook, errs := resolveNetworking(shoot, cfg)
				if len(errs) > 0 {
					t.Fatalf("webhook derivation: %v", errs.ToAggregate())
				}
				res, errs, err := enc.Render(pipeline.Source{Shoot: shoot, SeedNamespace: "shoot--dev--x"}, cfg, values.Settings{Images: images})
				if err != nil || len(errs) > 0 {
					t.Fatalf("render: %v %v", err, errs.ToAggregate())
				}
				status := *res.Status.OverlayEnabled
				deployed, err := overlayswitch.OverlayFromManifests(map[string][]byte{"config.yaml": res.Manifest.JSON()})
				if err != nil || deployed == nil {
					t.Fatalf("reading the overlay back from the manifest: %v (found: %v)", err, deployed != nil)
				}
				if webhook.Overlay != status || *deployed != status {
					t.Errorf("overlay answers disagree: webhook %v, provider status %v, deployed manifest %v", webhook.Overlay, status, *deployed)
				}
				if w, ok := want[name]; ok && status != w {
					t.Errorf("overlay = %v, want %v", status, w)
				}
				// The same matrix checks the typed pools the controller syncs (pipeline.Result.Pools)
				// against the pools in the manifest it stores.
				if diff := cmp.Diff(poolsInManifest(t, res.Manifest.Docs()), res.Pools); diff != "" {
					t.Errorf("Result.Pools differ from the manifest's IP pools (-manifest +pools):\n%s", diff)
				}
				checked[mix]++
			})
		}
	}
	for mix := range mixes {
		if checked[mix] < 5 {
			t.Errorf("only %d configs checked for %s", checked[mix], mix)
		}
	}
	for name := range want {
		found := false
		for mix := range mixes {
			for _, c := range configs {
				found = found || mix+" "+c == name
			}
		}
		if !found {
			t.Errorf("pinned case %q is not in the matrix", name)
		}
	}
}

// poolsInManifest decodes the IP pools of a manifest, without the resources.gardener.cloud/mode
// annotation (the shoot gets them without it).
func poolsInManifest(t *testing.T, docs []manifest.Doc) []calicov1.IPPool {
	t.Helper()
	var out []calicov1.IPPool
	for _, d := range docs {
		if d.Kind != "IPPool" {
			continue
		}
		var p calicov1.IPPool
		if err := json.Unmarshal(d.JSON, &p); err != nil {
			t.Fatal(err)
		}
		delete(p.Annotations, "resources.gardener.cloud/mode")
		if len(p.Annotations) == 0 {
			p.Annotations = nil
		}
		out = append(out, p)
	}
	return out
}
