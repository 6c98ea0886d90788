package decode

import (
	"os"
	"testing"
)

// FuzzShoot feeds arbitrary documents to the Shoot decoder (render --shoot, validate, the webhook)
// and then its providerConfig decoder. They must never panic, return nothing half-decoded, and
// report at most MaxErrors errors plus the summary.
func FuzzShoot(f *testing.F) {
	example, err := os.ReadFile("../../examples/shoot.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example)
	f.Add([]byte(`{"apiVersion":"core.gardener.cloud/v1beta1","kind":"Shoot","spec":{"provider":{"workers":[{"name":"a","maximum":2147483648}]}}}`))
	f.Add([]byte("apiVersion: core.gardener.cloud/v1beta1\nkind: Shoot\nspec:\n  networking:\n    type: calico\n    providerConfig: {a: 1, b: 2}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		shoot, errs := Shoot(data)
		if (shoot == nil) == (len(errs) == 0) {
			t.Fatalf("Shoot returned %v and %d errors", shoot != nil, len(errs))
		}
		if len(errs) > MaxErrors+1 {
			t.Fatalf("%d errors, more than %d", len(errs), MaxErrors+1)
		}
		if shoot == nil {
			return
		}
		cfg, errs := ShootNetworkConfig(shoot)
		if cfg != nil && len(errs) > 0 || len(errs) > MaxErrors+1 {
			t.Fatalf("ShootNetworkConfig returned a config with %d errors", len(errs))
		}
	})
}

// FuzzControllerConfiguration feeds arbitrary documents to the --controller-config / --config-file
// decoder: no panic, nothing half-decoded.
func FuzzControllerConfiguration(f *testing.F) {
	f.Add([]byte("apiVersion: calico.networking.extensions.config.gardener.cloud/v1alpha1\nkind: ControllerConfiguration\nclientConnection: {qps: -1}\nfeatureGates: {SeamlessOverlaySwitch: true}\n"))
	f.Add([]byte("apiVersion: calico.networking.extensions.config.gardener.cloud/v1alpha1\nkind: ControllerConfiguration\nclientConnection: {burst: 99999999999}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, errs := ControllerConfiguration(data)
		if (cfg == nil) == (len(errs) == 0) || len(errs) > MaxErrors+1 {
			t.Fatalf("ControllerConfiguration returned %v and %d errors", cfg != nil, len(errs))
		}
	})
}

// FuzzSplitDocuments feeds arbitrary streams to the document splitter of validate, render and lint:
// no panic, and every document it returns is a JSON object.
func FuzzSplitDocuments(f *testing.F) {
	f.Add(manyDocuments(3))
	f.Add([]byte("a: 1\n---\nb: [\n"))
	f.Add([]byte("---\n---\n# c\n---\n{\"kind\": \"X\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, err := SplitDocuments(data)
		if err != nil {
			return
		}
		for _, d := range docs {
			if len(d.JSON) == 0 || d.JSON[0] != '{' {
				t.Fatalf("document %d is not an object: %q", d.Index, d.JSON)
			}
		}
	})
}
