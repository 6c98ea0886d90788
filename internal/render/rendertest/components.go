package rendertest

import (
	"github.com/calico-pilot/calico-pilot/internal/layout"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// CABundle is a stand-in for the APIService's CA bundle: render only carries it.
const CABundle = "-----BEGIN CERTIFICATE-----\nMIIBcalicopilottest\n-----END CERTIFICATE-----\n"

// GoldmaneIP is the ClusterIP the tests give goldmane's Service (calico-node's hostAliases entry).
const GoldmaneIP = "10.0.0.85"

// WithComponents is o in layout l with every optional component on (calico-apiserver, goldmane,
// whisker, the CSI driver), the tigera operator's Typha TLS (goldmane needs Felix's client key pair)
// and stand-ins for what the caller of a real render supplies (CA bundle, goldmane's IP).
func WithComponents(o values.Options, l layout.Layout) values.Options {
	o.Layout = l
	tls := layout.TigeraOperatorTyphaTLS()
	o.TyphaTLS = &tls
	o.Typha = true
	o.Components = values.Components{
		APIServer: true, Goldmane: true, Whisker: true, CSIDriver: true,
		GoldmaneServiceIP: GoldmaneIP, APIServiceCABundle: CABundle,
	}
	return o
}
