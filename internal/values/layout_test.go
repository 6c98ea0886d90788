package values_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// TestResolveLayoutAndTyphaTLS: the layout and the Typha TLS of the settings reach the options
// unchanged (the zero layout stays zero: kube-system), the TLS as a copy and only while Typha runs.
func TestResolveLayoutAndTyphaTLS(t *testing.T) {
	tls := layout.TigeraOperatorTyphaTLS()
	for _, tc := range []struct {
		name       string
		settings   values.Settings
		typhaOff   bool
		wantLayout layout.Layout
		wantTLS    *layout.TyphaTLS
	}{
		{name: "default", wantLayout: layout.Layout{}},
		{name: "operator layout with TLS", settings: values.Settings{Layout: layout.TigeraOperator(), TyphaTLS: &tls},
			wantLayout: layout.TigeraOperator(), wantTLS: &tls},
		{name: "TLS without typha", settings: values.Settings{Layout: layout.TigeraOperator(), TyphaTLS: &tls}, typhaOff: true,
			wantLayout: layout.TigeraOperator()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &calicov1alpha1.NetworkConfig{}
			if tc.typhaOff {
				cfg.Typha = &calicov1alpha1.Typha{Enabled: false}
			}
			o, errs := values.Resolve(values.Inputs{Config: cfg, Cluster: ipv4Facts(), Settings: tc.settings})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if d := cmp.Diff(tc.wantLayout, o.Layout); d != "" {
				t.Errorf("Layout (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantTLS, o.TyphaTLS); d != "" {
				t.Errorf("TyphaTLS (-want +got):\n%s", d)
			}
			if o.TyphaTLS != nil && o.TyphaTLS == tc.settings.TyphaTLS {
				t.Error("Options share the settings' TyphaTLS")
			}
		})
	}
}
