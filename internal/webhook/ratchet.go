package webhook

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/decode"
	"github.com/calico-pilot/calico-pilot/internal/pipeline"
	"github.com/calico-pilot/calico-pilot/internal/rules"
)

// ratchet drops, from the errors of an updated Shoot, those of rules beyond the reference extension
// that the stored Shoot has too, for the same field and value: the value is not new (the reference
// admitted it, or it predates the rule), and the controller deploys it as the reference did. Each
// dropped error becomes a warning that says so. Errors of the reference's own rules, and errors
// whose field changed, stay.
func ratchet(req admission.Request, errs field.ErrorList) (field.ErrorList, []string) {
	old, decodeErrs := decode.Shoot(req.OldObject.Raw)
	if len(decodeErrs) > 0 || !isCalico(old) {
		return errs, nil
	}
	_, oldErrs := pipeline.ShootConfig(old)
	existing := map[string]bool{}
	for _, e := range oldErrs {
		if rules.BeyondReference(e) {
			existing[ratchetKey(e)] = true
		}
	}
	var keep field.ErrorList
	var warnings []string
	for _, e := range errs {
		if e.Origin == string(rules.RuleCalicoVersionKubernetes) && !existing[ratchetKey(e)] && samePin(old, e.BadValue) {
			// The pin did not change, the Kubernetes version did: refusing it would block the
			// Kubernetes upgrade (Gardener forces one when a version expires), not a new pin.
			warnings = append(warnings, fmt.Sprintf("%s: %v %s; allowed because the pin is unchanged (a new or changed pin is refused); deployed: %s",
				e.Field, e.BadValue, e.Detail, rules.RatchetAction(rules.ID(e.Origin))))
			continue
		}
		if !rules.BeyondReference(e) || !existing[ratchetKey(e)] {
			keep = append(keep, e)
			continue
		}
		warnings = append(warnings, fmt.Sprintf("%s: %v %s; allowed because the stored Shoot already has this value (a new Shoot or a changed value is refused); deployed: %s",
			e.Field, e.BadValue, e.Detail, rules.RatchetAction(rules.ID(e.Origin))))
	}
	return keep, warnings
}

// ratchetKey identifies an error by rule, field and value: the same key in the old and the new
// Shoot means the field did not change.
func ratchetKey(e *field.Error) string {
	return fmt.Sprintf("%s\x00%s\x00%v", e.Origin, e.Field, e.BadValue)
}

// samePin says whether the stored Shoot pins the same calicoVersion.
func samePin(old *gardencorev1beta1.Shoot, pin any) bool {
	cfg, errs := decode.ShootNetworkConfig(old)
	return len(errs) == 0 && cfg != nil && cfg.CalicoVersion != nil && *cfg.CalicoVersion == pin
}
