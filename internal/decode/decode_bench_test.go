package decode

import (
	"encoding/json"
	"testing"

	"sigs.k8s.io/yaml"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
)

const benchYAML = `apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1
kind: NetworkConfig
ipam:
  type: host-local
  cidr: usePodCIDR
vethMTU: "1440"
typha:
  enabled: true
overlay:
  enabled: true
autoScaling:
  mode: static
  resources:
    node:
      cpu: 100m
      memory: 100Mi
kubeAPIServerGlobalNetworkSet:
  enabled: true
`

// BenchmarkNetworkConfigBaselineJSON is the baseline: encoding/json into the type, no checks.
func BenchmarkNetworkConfigBaselineJSON(b *testing.B) {
	js, err := yaml.YAMLToJSON([]byte(benchYAML))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		var cfg calicov1alpha1.NetworkConfig
		if err := json.Unmarshal(js, &cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNetworkConfigStrictJSON is strict decoding of the same document as JSON (the
// webhook's and controller's case: providerConfig arrives as JSON).
func BenchmarkNetworkConfigStrictJSON(b *testing.B) {
	js, err := yaml.YAMLToJSON([]byte(benchYAML))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, errs := NetworkConfig(js, nil); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}

// BenchmarkNetworkConfigStrictYAML is strict decoding from YAML (the CLI's case).
func BenchmarkNetworkConfigStrictYAML(b *testing.B) {
	data := []byte(benchYAML)
	for b.Loop() {
		if _, errs := NetworkConfig(data, nil); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}
