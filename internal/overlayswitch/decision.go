package overlayswitch

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/version"
)

// mapGAVersion is the first Kubernetes minor in which the MutatingAdmissionPolicy API is GA and always on.
func mapGAVersion() *version.Version { return version.MajorMinor(1, 36) }

// MutatingAdmissionPolicyAvailable reports whether a shoot's kube-apiserver serves the
// MutatingAdmissionPolicy API: always from Kubernetes 1.36, before that only with the
// MutatingAdmissionPolicy feature gate and the admissionregistration.k8s.io/v1alpha1 or v1beta1
// runtimeConfig entry both switched on.
func MutatingAdmissionPolicyAvailable(kubernetesVersion string, featureGates, runtimeConfig map[string]bool) (bool, error) {
	v, err := version.ParseGeneric(kubernetesVersion)
	if err != nil {
		return false, fmt.Errorf("parsing shoot kubernetes version %q: %w", kubernetesVersion, err)
	}
	if v.AtLeast(mapGAVersion()) {
		return true, nil
	}
	if !featureGates["MutatingAdmissionPolicy"] {
		return false, nil
	}
	return runtimeConfig["admissionregistration.k8s.io/v1alpha1"] || runtimeConfig["admissionregistration.k8s.io/v1beta1"], nil
}

// Inputs are the facts NeedsRouteCheck decides from.
type Inputs struct {
	// GateEnabled is the SeamlessOverlaySwitch feature gate.
	GateEnabled bool
	// MAPAvailable is the result of MutatingAdmissionPolicyAvailable for the shoot.
	MAPAvailable bool
	// OverlayDeployed says whether the currently deployed manifest has the overlay on. Nil means
	// nothing is deployed yet (first reconcile), which is never a switch.
	OverlayDeployed *bool
	// OverlayDesired says whether the manifest about to be deployed has the overlay on.
	OverlayDesired bool
	// Hibernated shoots have no nodes to check and no pods to disrupt.
	Hibernated bool
}

// NeedsRouteCheck reports whether the node routes must be confirmed before the new manifest may be
// stored: only when the gate is on, the MAP API is available, the shoot is awake and the overlay
// goes from on to off.
func NeedsRouteCheck(in Inputs) bool {
	if !in.GateEnabled || !in.MAPAvailable || in.Hibernated || in.OverlayDeployed == nil {
		return false
	}
	return *in.OverlayDeployed && !in.OverlayDesired
}
