package pipeline

import (
	"encoding/json"
	"fmt"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
)

// Deployed says who deployed what a Network has in the seed now.
type Deployed struct {
	// Previous is calico-pilot's provider status of the last successful reconcile; nil when the
	// status holds none of calico-pilot's fields (never reconciled, or last by the reference, whose
	// provider status is only apiVersion and kind).
	Previous *calicov1alpha1.NetworkStatus
	// ByOther is true when something else has reconciled the Network: a provider status without
	// calico-pilot's fields, or a deployed ManagedResource while Previous is nil.
	ByOther bool
	// StatusErr is why the provider status could not be read; such a status counts as someone
	// else's (ByOther).
	StatusErr error
}

// Compatibility is the one reading of a Network's status.providerStatus and the one choice of its
// compatibility mode (ChooseCompatibility), for the controller, `render --network` and swap-check.
// providerStatus is the raw JSON (nil when unset). managedResourceExists is asked only when the
// status is empty; nil means there is no ManagedResource to look at (offline), so a Network
// without a status counts as new. The error is managedResourceExists's.
func Compatibility(providerStatus []byte, managedResourceExists func() (bool, error), operator *configv1alpha1.ControllerConfiguration) (calicov1alpha1.CompatibilityMode, Deployed, error) {
	d, err := DeployedFrom(providerStatus, false)
	if err != nil {
		d = Deployed{ByOther: true, StatusErr: err}
	}
	if len(providerStatus) == 0 && managedResourceExists != nil {
		exists, err := managedResourceExists()
		if err != nil {
			return "", d, err
		}
		d.ByOther = exists
	}
	return ChooseCompatibility(d, operator), d, nil
}

// ChooseCompatibility decides how the fields the reference extension ignored are treated for a
// Network (docs/compatibility.md):
//
//   - the operator's compatibility.honourIgnoredFields: Native for every Network;
//   - otherwise the mode recorded in the provider status, so that it is stable across reconciles;
//   - otherwise, a Network calico-pilot reconciled before the mode was recorded: Native;
//   - a Network last reconciled by the reference extension: Reference (its data plane does not
//     change on the swap);
//   - a new Network: Native.
func ChooseCompatibility(d Deployed, operator *configv1alpha1.ControllerConfiguration) calicov1alpha1.CompatibilityMode {
	if operator != nil && operator.Compatibility != nil && operator.Compatibility.HonourIgnoredFields != nil && *operator.Compatibility.HonourIgnoredFields {
		return calicov1alpha1.CompatibilityNative
	}
	if d.Previous != nil {
		if m := d.Previous.Compatibility; m != nil && (*m == calicov1alpha1.CompatibilityReference || *m == calicov1alpha1.CompatibilityNative) {
			return *m
		}
		return calicov1alpha1.CompatibilityNative
	}
	if d.ByOther {
		return calicov1alpha1.CompatibilityReference
	}
	return calicov1alpha1.CompatibilityNative
}

// DeployedFrom tells from a Network's status.providerStatus (raw JSON; nil when unset) and
// whether its ManagedResource exists who deployed it, as ChooseCompatibility needs it.
func DeployedFrom(providerStatus []byte, managedResourceExists bool) (Deployed, error) {
	var d Deployed
	if len(providerStatus) > 0 {
		st := &calicov1alpha1.NetworkStatus{}
		if err := json.Unmarshal(providerStatus, st); err != nil {
			return d, fmt.Errorf("decoding status.providerStatus: %w", err)
		}
		if st.OverlayEnabled != nil || st.Backend != nil || len(st.IPFamilies) > 0 || st.Compatibility != nil {
			d.Previous = st
			return d, nil
		}
		d.ByOther = true
		return d, nil
	}
	d.ByOther = managedResourceExists
	return d, nil
}
