package cmd

import (
	"testing"

	"github.com/spf13/pflag"
)

// The controller and the admission server take the endpoint flags alike: the same defaults, and
// --health-bind-address sets the health endpoint in both.
func TestEndpointFlags(t *testing.T) {
	for _, tc := range []struct {
		name     string
		addFlags func(*pflag.FlagSet) *EndpointFlags
	}{
		{"controller", func(fs *pflag.FlagSet) *EndpointFlags {
			o := NewControllerOptions()
			o.AddFlags(fs)
			return &o.EndpointFlags
		}},
		{"admission", func(fs *pflag.FlagSet) *EndpointFlags {
			o := NewAdmissionOptions()
			o.AddFlags(fs)
			return &o.EndpointFlags
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, c := range []struct {
				args []string
				want EndpointFlags
			}{
				{nil, EndpointFlags{MetricsBindAddress: ":8080", HealthProbeBindAddress: ":8081"}},
				{[]string{"--metrics-bind-address=0", "--health-probe-bind-address=:9"}, EndpointFlags{MetricsBindAddress: "0", HealthProbeBindAddress: ":9"}},
				{[]string{"--health-bind-address=127.0.0.1:9"}, EndpointFlags{MetricsBindAddress: ":8080", HealthProbeBindAddress: "127.0.0.1:9"}},
			} {
				fs := pflag.NewFlagSet(tc.name, pflag.ContinueOnError)
				got := tc.addFlags(fs)
				if err := fs.Parse(c.args); err != nil {
					t.Fatal(err)
				}
				if *got != c.want {
					t.Errorf("%v: %+v; want %+v", c.args, *got, c.want)
				}
			}
		})
	}
}
