package validation

import (
	"sort"

	"k8s.io/apimachinery/pkg/util/validation/field"

	configv1alpha1 "github.com/calico-pilot/calico-pilot/api/config/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/features"
	"github.com/calico-pilot/calico-pilot/internal/rollout"
)

// ValidateControllerConfiguration validates the operator configuration: every feature gate must be
// one the controller knows (checked with a fresh gate, exactly as the controller sets them), and the
// client connection's qps and burst must not be negative, the Calico default (calico.defaultVersion)
// must name a release or line of the catalogue and the rollout must be valid.
func ValidateControllerConfiguration(cfg *configv1alpha1.ControllerConfiguration) field.ErrorList {
	if cfg == nil {
		return nil
	}
	var allErrs field.ErrorList
	names := make([]string, 0, len(cfg.FeatureGates))
	for name := range cfg.FeatureGates {
		names = append(names, name)
	}
	sort.Strings(names)
	gatesPath := field.NewPath("featureGates")
	for _, name := range names {
		gate, err := features.New()
		if err != nil {
			allErrs = append(allErrs, field.InternalError(gatesPath, err))
			break
		}
		if err := gate.SetFromMap(map[string]bool{name: cfg.FeatureGates[name]}); err != nil {
			allErrs = append(allErrs, field.NotSupported(gatesPath.Key(name), name, features.Names()))
		}
	}
	if cc := cfg.ClientConnection; cc != nil {
		ccPath := field.NewPath("clientConnection")
		if cc.QPS < 0 {
			allErrs = append(allErrs, field.Invalid(ccPath.Child("qps"), cc.QPS, "must not be negative"))
		}
		if cc.Burst < 0 {
			allErrs = append(allErrs, field.Invalid(ccPath.Child("burst"), cc.Burst, "must not be negative"))
		}
	}
	if c := cfg.Calico; c != nil {
		// The Calico releases (docs/upgrades.md): the default must name a release or line of the
		// catalogue, the rollout a valid one (internal/rollout owns its rules). Every command that reads a
		// ControllerConfiguration refuses the same values the controller refuses.
		if c.DefaultVersion != nil {
			if _, err := calicoversion.Default().Resolve(*c.DefaultVersion); err != nil {
				allErrs = append(allErrs, field.Invalid(field.NewPath("calico", "defaultVersion"), *c.DefaultVersion, err.Error()))
			}
		}
		_, errs := rollout.ParseSpec(c.Rollout)
		allErrs = append(allErrs, errs...)
	}
	return allErrs
}
