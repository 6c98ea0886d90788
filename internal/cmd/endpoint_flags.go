package cmd

import "github.com/spf13/pflag"

// EndpointFlags are the metrics and health endpoints that the controller and the admission server
// both serve, with the same flags, defaults and Gardener alias, so that the charts configure both
// alike (docs/admission.md, docs/controller.md).
type EndpointFlags struct {
	// MetricsBindAddress serves Prometheus metrics; "0" switches them off.
	MetricsBindAddress string
	// HealthProbeBindAddress serves /healthz and /readyz; "0" switches them off.
	HealthProbeBindAddress string
}

// NewEndpointFlags returns the defaults the charts use: metrics on :8080, health on :8081.
func NewEndpointFlags() EndpointFlags {
	return EndpointFlags{MetricsBindAddress: ":8080", HealthProbeBindAddress: ":8081"}
}

// AddFlags registers --metrics-bind-address and --health-probe-bind-address, and
// --health-bind-address, the Gardener extensions' name of the latter (the charts use it).
func (f *EndpointFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.MetricsBindAddress, "metrics-bind-address", f.MetricsBindAddress, `address of the Prometheus metrics endpoint ("0" disables it)`)
	fs.StringVar(&f.HealthProbeBindAddress, "health-probe-bind-address", f.HealthProbeBindAddress, `address of the /healthz and /readyz endpoints ("0" disables them)`)
	fs.StringVar(&f.HealthProbeBindAddress, "health-bind-address", f.HealthProbeBindAddress, "the Gardener extensions' name of --health-probe-bind-address")
}
