package rules

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// CalicoVersion returns the release a shoot pins (providerConfig calicoVersion: a release of the
// catalogue, or a line meaning its newest release; zero when it pins none) and the error of the
// calicoVersion.supported rule. Under ratcheting (a pin admitted by an earlier calico-pilot that this
// one no longer carries) the returned release is zero: the pin is not used, and the shoot keeps the
// release it runs, so it keeps reconciling.
func CalicoVersion(cfg *calicov1alpha1.NetworkConfig, path *field.Path) (calicoversion.Release, field.ErrorList) {
	if cfg == nil || cfg.CalicoVersion == nil {
		return calicoversion.Release{}, nil
	}
	p := path.Child("calicoVersion")
	pin := *cfg.CalicoVersion
	r, err := calicoversion.Default().Resolve(pin)
	if err == nil {
		return r, nil
	}
	if strings.TrimSpace(pin) == "" {
		return calicoversion.Release{}, field.ErrorList{RuleCalicoVersionSupported.invalid(p, pin,
			"empty; remove the field to follow the operator's release, or name "+calicoversion.Default().Accepted())}
	}
	return calicoversion.Release{}, field.ErrorList{RuleCalicoVersionSupported.invalid(p, pin, err.Error())}
}

// CalicoVersionKubernetes returns the error of the calicoVersion.kubernetes rule: a pinned release
// must support the shoot's Kubernetes version (its line's range, docs/calico-lines.md).
// kubernetesVersion is spec.kubernetes.version (an empty or unparsable one is not judged); path is
// where the NetworkConfig sits. An unsupported pin is the other rule's error, not this one's.
func CalicoVersionKubernetes(cfg *calicov1alpha1.NetworkConfig, kubernetesVersion string, path *field.Path) field.ErrorList {
	r, errs := CalicoVersion(cfg, path)
	if len(errs) > 0 {
		return nil
	}
	return pinKubernetes(cfg, r, kubernetesVersion, path)
}

// pinKubernetes is the calicoVersion.kubernetes rule for the release r that cfg pins, resolved
// (CalicoVersion); a zero r (no pin, or an unsupported one) is not judged.
func pinKubernetes(cfg *calicov1alpha1.NetworkConfig, r calicoversion.Release, kubernetesVersion string, path *field.Path) field.ErrorList {
	if r.IsZero() || r.SupportsKubernetes(kubernetesVersion) {
		return nil
	}
	var fit []string
	for _, l := range calicoversion.Default().Lines() {
		if l.SupportsKubernetes(kubernetesVersion) {
			fit = append(fit, l.Name())
		}
	}
	instead := "no line calico-pilot deploys supports it"
	if len(fit) > 0 {
		instead = "pin " + strings.Join(fit, " or ") + ", or remove the pin"
	}
	return field.ErrorList{RuleCalicoVersionKubernetes.invalid(path.Child("calicoVersion"), *cfg.CalicoVersion,
		fmt.Sprintf("Calico %s supports Kubernetes %s, the shoot runs %s (spec.kubernetes.version); %s",
			r, r.Line().KubernetesRange(), kubernetesVersion, instead))}
}

// CalicoLineChange judges a shoot's move from one Calico release to another (a changed pin): going
// down across a change of CRD storage (Line.CRDStorage) is forbidden, since the objects the newer line
// stored cannot be read by the older one and re-applying the older CRDs would lose them; a move that
// skips a line is forbidden (a move goes one line at a time, in Calico's order). It reports whether
// the change goes down across lines at all (every such downgrade gets the downgrade facts as
// warnings). A zero release on either side (no pin: the operator's choice, unknown here) is not judged.
func CalicoLineChange(from, to calicoversion.Release, path *field.Path) (field.ErrorList, bool) {
	return CalicoLineChangeIn(calicoversion.Default(), from, to, path)
}

// CalicoLineChangeIn is CalicoLineChange in catalogue cat.
func CalicoLineChangeIn(cat *calicoversion.Catalogue, from, to calicoversion.Release, path *field.Path) (field.ErrorList, bool) {
	if from.IsZero() || to.IsZero() || from.SameLine(to) {
		return nil, false
	}
	if _, err := cat.Plan(from, to); err != nil {
		return field.ErrorList{field.Forbidden(path.Child("calicoVersion"), err.Error())}, to.Compare(from) < 0
	}
	if to.Compare(from) > 0 {
		return nil, false
	}
	if from.CRDStorage() == to.CRDStorage() {
		return nil, true
	}
	return field.ErrorList{field.Forbidden(path.Child("calicoVersion"), fmt.Sprintf(
		"going back from Calico %s to %s crosses a change of the CRD storage (%s -> %s): %s cannot read the objects %s stored, "+
			"and re-applying its CRDs would lose them; keep %s (docs/calico-downgrade.md)",
		from.Line(), to.Line(), from.CRDStorage(), to.CRDStorage(), to.Line(), from.Line(), from.Line()))}, true
}

// CalicoVersionAvailable is the error of a pin (providerConfig calicoVersion) whose release the
// landscape's image vector cannot deploy into the shoot (avail: the vector's releases for the
// shoot's Kubernetes version; nil: every release): a pinned release that is not available, or a line
// none of whose releases is. The message names the image vector entry to add. It is no rule of the
// catalogue, since it judges the landscape rather than the config: admission applies it to a new or
// changed pin, validate when $IMAGEVECTOR_OVERWRITE names the landscape's override, and the
// controller keeps a shoot whose pin is not available on its release (docs/calico-lines.md).
func CalicoVersionAvailable(cfg *calicov1alpha1.NetworkConfig, avail calicoversion.Available, path *field.Path) field.ErrorList {
	if cfg == nil || cfg.CalicoVersion == nil || avail == nil {
		return nil
	}
	if _, err := calicoversion.Default().ResolveAvailable(*cfg.CalicoVersion, avail); calicoversion.IsUnavailable(err) {
		return field.ErrorList{field.Invalid(path.Child("calicoVersion"), *cfg.CalicoVersion, err.Error())}
	}
	return nil
}
