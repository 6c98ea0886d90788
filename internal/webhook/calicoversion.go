package webhook

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicofacts"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/rules"
)

// pinChange judges a change of the providerConfig's calicoVersion pin between the stored and the new
// Shoot. An unchanged pin is not judged again. A pin that goes down across a change of CRD storage is
// refused (rules.CalicoLineChange); any other change of line is allowed with the facts of the move as
// warnings (calicofacts: what breaks, what to check first), and so are the changes whose direction the
// webhook cannot know, because the line a shoot without a pin runs is the operator's choice: removing
// a pin, and a new pin to a line that is not the newest.
func pinChange(oldCfg, cfg *calicov1alpha1.NetworkConfig, path *field.Path) (field.ErrorList, []string) {
	oldPin, newPin := pinOf(oldCfg), pinOf(cfg)
	if oldPin == newPin {
		return nil, nil
	}
	p := path.Child("calicoVersion")
	// A pin that no longer parses (ratcheted) counts as none: nothing is known about it.
	from, _ := rules.CalicoVersion(oldCfg, path)
	to, _ := rules.CalicoVersion(cfg, path)
	switch {
	case !from.IsZero() && to.IsZero() && newPin == "":
		return nil, []string{fmt.Sprintf("%s: removing the pin to %s hands the shoot's Calico line to the operator (calico.defaultVersion, calico.rollout); "+
			"if that line is older than %s the shoot moves down: see docs/calico-downgrade.md, and preview it with calico-pilot plan --target-version", p, from, from.Line())}
	case from.IsZero() && !to.IsZero():
		releases := calicoversion.Default().Releases()
		if newest := releases[len(releases)-1]; !to.SameLine(newest) {
			return nil, []string{fmt.Sprintf("%s: pinning %s; if the shoot runs a newer line (its Network's providerStatus calicoVersion), this is a downgrade: "+
				"see docs/calico-downgrade.md, and preview it with calico-pilot plan --target-version %s", p, to, to)}
		}
		return nil, nil
	}
	if errs, _ := rules.CalicoLineChange(from, to, path); len(errs) > 0 {
		return errs, nil
	}
	return nil, calicofacts.Warnings(from, to, p.String())
}

func pinOf(cfg *calicov1alpha1.NetworkConfig) string {
	if cfg == nil || cfg.CalicoVersion == nil {
		return ""
	}
	return *cfg.CalicoVersion
}
