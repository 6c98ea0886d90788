package rules

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
)

// supportedBackends are the values of backend (CALICO_NETWORKING_BACKEND): the API's enum.
func supportedBackends() []string {
	var out []string
	for _, b := range calicov1alpha1.Backends() {
		out = append(out, string(b))
	}
	return out
}

// Backend returns the networking backend and the errors of the backend rules. An explicit overlay
// decides it (as in the reference): on means bird, or vxlan with vxlan.enabled on a shoot with
// IPv4; off means none, or bird with overlay.createPodRoutes. Without an overlay setting an
// explicit backend wins; otherwise IPv6 and dual-stack shoots route natively (none) and IPv4
// shoots use bird. An explicit backend that contradicts the overlay is an error, not overwritten;
// the value returned with that error is the one the overlay implies (the reference's choice).
func Backend(cfg *calicov1alpha1.NetworkConfig, fam Families, path *field.Path) (calicov1alpha1.Backend, field.ErrorList) {
	var errs field.ErrorList
	vxlanPath := path.Child("vxlan", "enabled")
	overlayPath := path.Child("overlay", "enabled")
	vxlanOn := cfg.VXLAN != nil && cfg.VXLAN.Enabled
	if vxlanOn && cfg.Overlay != nil && !cfg.Overlay.Enabled {
		errs = append(errs, RuleVXLANOverlayDisabled.invalid(vxlanPath, true, fmt.Sprintf("contradicts %s: false; VXLAN is an overlay encapsulation", overlayPath)))
	}

	var implied calicov1alpha1.Backend
	switch {
	case cfg.Overlay != nil:
		var why string
		implied, why = overlayBackend(cfg, fam, path)
		if cfg.Backend == nil {
			return implied, errs
		}
		b := *cfg.Backend
		switch {
		case !contains(supportedBackends(), b):
			errs = append(errs, RuleBackendSupported.notSupported(path.Child("backend"), string(b), supportedBackends()))
		case b != implied:
			errs = append(errs, RuleBackendOverlay.invalid(path.Child("backend"), string(b), fmt.Sprintf("contradicts %s, which implies backend %q; remove backend", why, implied)))
		}
		return implied, errs
	case cfg.Backend != nil:
		b := *cfg.Backend
		switch {
		case !contains(supportedBackends(), b):
			errs = append(errs, RuleBackendSupported.notSupported(path.Child("backend"), string(b), supportedBackends()))
		case b == calicov1alpha1.BackendVXLAN && cfg.VXLAN != nil && !cfg.VXLAN.Enabled:
			errs = append(errs, RuleBackendVXLANDisabled.invalid(path.Child("backend"), string(b), fmt.Sprintf("contradicts %s: false", vxlanPath)))
		}
		return b, errs
	case fam.Active.IPv6:
		// IPv6 and dual-stack shoots without an overlay setting route natively.
		return calicov1alpha1.BackendNone, errs
	default:
		return calicov1alpha1.BackendBird, errs
	}
}

// overlayBackend is the backend an explicit overlay setting implies, and the settings that imply
// it (for messages). vxlan.enabled is IPv4 configuration, judged on the requested families: on an
// IPv6 single-stack shoot the overlay implies bird.
func overlayBackend(cfg *calicov1alpha1.NetworkConfig, fam Families, path *field.Path) (calicov1alpha1.Backend, string) {
	overlayPath := path.Child("overlay", "enabled")
	if cfg.Overlay.Enabled {
		if cfg.VXLAN != nil && cfg.VXLAN.Enabled && fam.Requested.IPv4 {
			return calicov1alpha1.BackendVXLAN, fmt.Sprintf("%s: true with %s: true", overlayPath, path.Child("vxlan", "enabled"))
		}
		return calicov1alpha1.BackendBird, fmt.Sprintf("%s: true", overlayPath)
	}
	if cfg.Overlay.CreatePodRoutes != nil && *cfg.Overlay.CreatePodRoutes {
		return calicov1alpha1.BackendBird, fmt.Sprintf("%s: false with %s: true", overlayPath, path.Child("overlay", "createPodRoutes"))
	}
	return calicov1alpha1.BackendNone, fmt.Sprintf("%s: false", overlayPath)
}
