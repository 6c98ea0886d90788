package features

import (
	"fmt"
	"sort"

	"k8s.io/component-base/featuregate"
)

const (
	// NonPrivilegedCalicoNode runs calico-node non-privileged and non-root (not with the eBPF dataplane).
	NonPrivilegedCalicoNode featuregate.Feature = "NonPrivilegedCalicoNode"
	// SeamlessOverlaySwitch checks node routes before the overlay is switched off.
	SeamlessOverlaySwitch featuregate.Feature = "SeamlessOverlaySwitch"
)

// specs returns a fresh map of calico-pilot's gates and their defaults.
func specs() map[featuregate.Feature]featuregate.FeatureSpec {
	return map[featuregate.Feature]featuregate.FeatureSpec{
		NonPrivilegedCalicoNode: {Default: false, PreRelease: featuregate.Alpha},
		SeamlessOverlaySwitch:   {Default: false, PreRelease: featuregate.Alpha},
	}
}

// Names returns the names of calico-pilot's feature gates, sorted.
func Names() []string {
	names := make([]string, 0, 2)
	for name := range specs() {
		names = append(names, string(name))
	}
	sort.Strings(names)
	return names
}

// New returns a new mutable feature gate that knows calico-pilot's gates, all at their defaults.
func New() (featuregate.MutableFeatureGate, error) {
	gate := featuregate.NewFeatureGate()
	if err := gate.Add(specs()); err != nil {
		return nil, fmt.Errorf("adding calico-pilot feature gates: %w", err)
	}
	return gate, nil
}

// FromMap returns a new feature gate with the given gates set (as in ControllerConfiguration.featureGates).
// An unknown gate name is an error.
func FromMap(gates map[string]bool) (featuregate.FeatureGate, error) {
	gate, err := New()
	if err != nil {
		return nil, err
	}
	if err := gate.SetFromMap(gates); err != nil {
		return nil, fmt.Errorf("setting feature gates: %w", err)
	}
	return gate, nil
}
