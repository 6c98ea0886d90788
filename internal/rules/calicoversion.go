package rules

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// CalicoVersion returns the line a shoot pins (providerConfig calicoVersion; zero when it pins none)
// and the error of the calicoVersion.supported rule: the pin names a line calico-pilot deploys, or
// that line's exact release. Under ratcheting (a pin admitted by an earlier calico-pilot whose line
// this one no longer deploys) the returned line is zero: the pin is not used, and the shoot gets the
// line the operator chooses, so it keeps reconciling.
func CalicoVersion(cfg *calicov1alpha1.NetworkConfig, path *field.Path) (calicoversion.Version, field.ErrorList) {
	if cfg == nil || cfg.CalicoVersion == nil {
		return calicoversion.Version{}, nil
	}
	p := path.Child("calicoVersion")
	pin := *cfg.CalicoVersion
	v, err := calicoversion.Parse(pin)
	if err == nil {
		return v, nil
	}
	return calicoversion.Version{}, field.ErrorList{RuleCalicoVersionSupported.invalid(p, pin, calicoVersionUnsupported(pin))}
}

// calicoVersionUnsupported says why a pin is refused and what is accepted.
func calicoVersionUnsupported(pin string) string {
	var releases []string
	for _, v := range calicoversion.Supported() {
		releases = append(releases, v.Release)
	}
	accepted := fmt.Sprintf("accepted: %s (or the exact release: %s)", strings.Join(calicoversion.SupportedNames(), ", "), strings.Join(releases, ", "))
	t := strings.TrimPrefix(strings.TrimSpace(pin), "v")
	for _, v := range calicoversion.Supported() {
		if strings.HasPrefix(t, strings.TrimPrefix(v.Minor, "v")+".") {
			return fmt.Sprintf("calico-pilot deploys release %s of the %s line, not another patch release; name the line (%q); %s", v.Release, v.Minor, v.Minor, accepted)
		}
	}
	if strings.TrimSpace(pin) == "" {
		return "empty; remove the field to follow the operator's line, or " + accepted
	}
	return "not a Calico line calico-pilot deploys; " + accepted
}

// CalicoVersionKubernetes returns the error of the calicoVersion.kubernetes rule: a pinned line must
// support the shoot's Kubernetes version (calico-v3.32-delta.md §0 row 10). kubernetesVersion is
// spec.kubernetes.version (an empty or unparsable one is not judged); path is where the
// NetworkConfig sits. An unsupported pin is the other rule's error, not this one's.
func CalicoVersionKubernetes(cfg *calicov1alpha1.NetworkConfig, kubernetesVersion string, path *field.Path) field.ErrorList {
	v, errs := CalicoVersion(cfg, path)
	if len(errs) > 0 || v.IsZero() || v.SupportsKubernetes(kubernetesVersion) {
		return nil
	}
	var fit []string
	for _, s := range calicoversion.Supported() {
		if s.SupportsKubernetes(kubernetesVersion) {
			fit = append(fit, s.Minor)
		}
	}
	instead := "no line calico-pilot deploys supports it"
	if len(fit) > 0 {
		instead = "pin " + strings.Join(fit, " or ") + ", or remove the pin"
	}
	return field.ErrorList{RuleCalicoVersionKubernetes.invalid(path.Child("calicoVersion"), *cfg.CalicoVersion,
		fmt.Sprintf("Calico %s supports Kubernetes %s to %s, the shoot runs %s (spec.kubernetes.version); %s",
			v.Minor, v.KubernetesMin, v.KubernetesMax, kubernetesVersion, instead))}
}

// CalicoLineChange judges a shoot's move from one Calico line to another (a changed pin): going down
// across a change of CRD storage (Version.CRDStorage) is forbidden, since the objects the newer line
// stored cannot be read by the older one and re-applying the older CRDs would lose them. It reports
// whether the change goes down at all (every downgrade gets the downgrade facts as warnings). A zero
// line on either side (no pin: the operator's choice, unknown here) is not judged.
func CalicoLineChange(from, to calicoversion.Version, path *field.Path) (field.ErrorList, bool) {
	if from.IsZero() || to.IsZero() || to.Compare(from) >= 0 {
		return nil, false
	}
	if from.CRDStorage == to.CRDStorage {
		return nil, true
	}
	return field.ErrorList{field.Forbidden(path.Child("calicoVersion"), fmt.Sprintf(
		"going back from Calico %s to %s crosses a change of the CRD storage (%s -> %s): %s cannot read the objects %s stored, "+
			"and re-applying its CRDs would lose them; keep %s (docs/calico-downgrade.md)",
		from.Minor, to.Minor, from.CRDStorage, to.CRDStorage, to.Minor, from.Minor, from.Minor))}, true
}
