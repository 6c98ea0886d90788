package network

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/calico-pilot/calico-pilot/internal/imagevector"
	"github.com/calico-pilot/calico-pilot/internal/imagevector/imagevectortest"
)

// gauge reads AvailabilityMetric from reg as "kubernetes release value" lines.
func gauge(t *testing.T, reg *prometheus.Registry) []string {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range families {
		if f.GetName() != AvailabilityMetric {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			v := "0"
			if m.GetGauge().GetValue() == 1 {
				v = "1"
			}
			out = append(out, labels["kubernetes"]+" "+labels["release"]+" "+v)
		}
	}
	sort.Strings(out)
	return out
}

// TestRegisterAvailability: the gauge says per Kubernetes minor which releases the image vector
// makes available; registering again (a second manager) replaces the values, not the metric.
func TestRegisterAvailability(t *testing.T) {
	mirrored, err := imagevector.LoadVector([]byte(imagevectortest.MirroredLandscape))
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	if err := RegisterAvailability(reg, mirrored); err != nil {
		t.Fatal(err)
	}
	got := gauge(t, reg)
	for _, want := range []string{"1.33 v3.31.6 1", "1.33 v3.31.7 0", "1.34 v3.31.6 1", "1.34 v3.32.1 0"} {
		found := false
		for _, g := range got {
			found = found || g == want
		}
		if !found {
			t.Errorf("gauge lacks %q: %v", want, got)
		}
	}
	everything, err := imagevector.LoadVector(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := RegisterAvailability(reg, everything); err != nil {
		t.Fatal(err)
	}
	for _, g := range gauge(t, reg) {
		if g[len(g)-1] != '1' {
			t.Errorf("with the embedded vector %q is not available", g)
		}
	}
	if d := cmp.Diff(len(got), len(gauge(t, reg))); d != "" {
		t.Errorf("series (-first +second):\n%s", d)
	}
}
