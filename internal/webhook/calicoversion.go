package webhook

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicofacts"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/plan"
	"github.com/calico-pilot/calico-pilot/internal/rules"
)

// pinChange judges a change of the providerConfig's calicoVersion pin between the stored and the new
// Shoot. An unchanged pin is not judged again. A pin that goes down across a change of CRD storage or
// skips a line is refused (rules.CalicoLineChange); any other change of line is allowed with the facts
// of the move as warnings (calicofacts: what breaks, what to check first), and so are the changes whose
// direction the webhook cannot know, because the release a shoot without a pin runs is the operator's
// choice: removing a pin, and a new pin to a line that is not the newest. A new or changed pin warns of
// the known issues of its release that the old pin's release does not have (docs/calico-lines.md).
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
		return nil, []string{fmt.Sprintf("%s: removing the pin to %s hands the shoot's Calico release to the operator (calico.defaultVersion, calico.rollout); "+
			"if that is a line older than %s the shoot moves down: see docs/calico-downgrade.md, and preview it with calico-pilot plan --target-version", p, oldPin, from.Line())}
	case from.IsZero() && !to.IsZero():
		var warnings []string
		releases := calicoversion.Default().Releases()
		if newest := releases[len(releases)-1]; !to.SameLine(newest) {
			warnings = append(warnings, fmt.Sprintf("%s: pinning %s; if the shoot runs a newer line (its Network's providerStatus calicoVersion), this is a downgrade: "+
				"see docs/calico-downgrade.md, and preview it with calico-pilot plan --target-version %s", p, newPin, newPin))
		}
		return nil, append(warnings, knownIssueWarnings(calicoversion.Release{}, to, p)...)
	}
	if errs, _ := rules.CalicoLineChange(from, to, path); len(errs) > 0 {
		return errs, nil
	}
	return nil, append(calicofacts.Warnings(from, to, p.String()), knownIssueWarnings(from, to, p)...)
}

// knownIssueWarnings are the known issues of the pinned release that the release of the old pin does
// not have (every one of them when there was no old pin: a zero from is no deployment), as validate
// prints them.
func knownIssueWarnings(from, to calicoversion.Release, p *field.Path) []string {
	var out []string
	for _, k := range plan.NewKnownIssues(calicoversion.Steady(from), calicoversion.Steady(to)) {
		out = append(out, p.String()+": "+k.Warning())
	}
	return out
}

// createWarnings are the warnings of a new Shoot's pin: its release's known issues.
func createWarnings(cfg *calicov1alpha1.NetworkConfig, path *field.Path) []string {
	to, errs := rules.CalicoVersion(cfg, path)
	if len(errs) > 0 || to.IsZero() {
		return nil
	}
	return knownIssueWarnings(calicoversion.Release{}, to, path.Child("calicoVersion"))
}

func pinOf(cfg *calicov1alpha1.NetworkConfig) string {
	if cfg == nil || cfg.CalicoVersion == nil {
		return ""
	}
	return *cfg.CalicoVersion
}
