package decode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// FuzzNetworkConfig feeds arbitrary documents to the strict decoder. It must never panic; it
// returns either a config and no errors, or errors and no config (nothing half-decoded); every
// error path is below the path the document sits at; and a decoded config, encoded as JSON and
// decoded again, is the same config (nothing the decoder accepted is lost or invented).
func FuzzNetworkConfig(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("..", "..", "examples", "*networkconfig*.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	invalid, err := filepath.Glob(filepath.Join("..", "..", "examples", "invalid", "networkconfig*.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range append(seeds, invalid...) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	const header = "apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\nkind: NetworkConfig\n"
	for _, s := range []string{
		header,
		header + "overlay: {enabled: true}\nipv4: {mode: Always, pool: vxlan}\n",
		header + "overlya: {enabled: true}\n",
		header + "autoScaling: {mode: vpa, resources: {node: {cpu: 100m, memory: 1Gi}}}\n",
		header + "vethMTU: \"1440\"\nwireguardEncryption: true\n",
		`{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkConfig","typha":{"enabled":false}}`,
		`{"kind":"NetworkConfig"}`,
		"- a\n- b\n",
		"",
	} {
		f.Add([]byte(s))
	}
	root := field.NewPath("spec", "networking", "providerConfig")
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, errs := NetworkConfig(data, root)
		if (cfg == nil) == (len(errs) == 0) {
			t.Fatalf("config %v with %d errors: want exactly one of them", cfg != nil, len(errs))
		}
		for _, e := range errs {
			if e.Field != root.String() && !strings.HasPrefix(e.Field, root.String()+".") && !strings.HasPrefix(e.Field, root.String()+"[") {
				t.Errorf("error path %q is not below %s: %v", e.Field, root, e)
			}
		}
		if cfg == nil {
			return
		}
		encoded, err := json.Marshal(cfg)
		if err != nil {
			t.Fatalf("encoding the decoded config: %v", err)
		}
		again, errs := NetworkConfig(encoded, root)
		if len(errs) > 0 {
			t.Fatalf("the decoded config, encoded again, does not decode: %v\n%s", errs.ToAggregate(), encoded)
		}
		if d := cmp.Diff(cfg, again); d != "" {
			t.Errorf("round trip changed the config (-first +second):\n%s", d)
		}
	})
}
