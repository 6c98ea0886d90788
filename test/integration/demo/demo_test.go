// Package demo_test runs `make demo`'s program in-process and checks its summary.
package demo_test

import (
	"bytes"
	"context"
	"regexp"
	"testing"

	"github.com/calico-pilot/calico-pilot/internal/demo"
)

func TestDemoSummary(t *testing.T) {
	var out bytes.Buffer
	opts := demo.DefaultOptions(&out)
	if err := demo.Run(context.Background(), opts); err != nil {
		t.Fatalf("demo failed: %v\noutput:\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^Network shoot--dev--johndoe-azure/johndoe-azure: Create Succeeded in .*: "Successfully reconciled Network"$`),
		regexp.MustCompile(`(?m)^ManagedResource extension-networking-calico-config -> immutable Secret managedresource-extension-networking-calico-config-[0-9a-f]{8} \(\d+ objects, \d+ bytes of JSON stored as \d+: the CRDs Brotli-compressed\)$`),
		regexp.MustCompile(`(?m)^DaemonSet +1$`),
		regexp.MustCompile(`(?m)^CustomResourceDefinition +24$`),
		regexp.MustCompile(`(?m)^GlobalNetworkSet +1$`),
		regexp.MustCompile(`(?m)^Key settings: Calico v3.31.7 \(CRDs of v3.31.7; providerStatus\), backend bird, overlay on, veth MTU 1440, typha off, `),
		regexp.MustCompile(`(?m)^GlobalNetworkSet gardener-kube-apiserver: nets \[192\.0\.2\.34/32 198\.51\.100\.7/32\], labels map\[networking\.gardener\.cloud/endpoint:kube-apiserver\]$`),
		regexp.MustCompile(`(?m)^Seed ManagedResource extension-networking-calico-monitoring \(class seed, for the seed's resource manager\): ConfigMap calico-dashboards, ScrapeConfig shoot-calico-bird, ScrapeConfig shoot-calico-felix, ScrapeConfig shoot-calico-typha$`),
		regexp.MustCompile(`(?m)^Reconciled again unchanged \(gardener\.cloud/operation=reconcile\): writes networks 1, networks/status 1; no Secret, no ManagedResource$`),
	} {
		if !want.MatchString(got) {
			t.Errorf("summary does not match %s\nsummary:\n%s", want, got)
		}
	}
}
