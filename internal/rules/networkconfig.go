package rules

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// Settings is what a NetworkConfig decides for a shoot with given families and node networks.
type Settings struct {
	Backend               calicov1alpha1.Backend
	IPAM                  IPAMSettings
	IPv4Pool, IPv6Pool    Pool
	Autodetection         AutodetectionMethods
	VethMTU               string
	AutoScaling           AutoScalingSettings
	ServiceLoopPrevention string
}

// NetworkConfig applies every NetworkConfig rule: it returns the settings the config decides and
// every error, with paths below path (where the NetworkConfig sits: nil for a file of its own,
// spec.networking.providerConfig in a Shoot, spec.providerConfig in a Network). nodes are only
// needed for the autodetection default; validation passes none. A nil cfg is an empty config.
//
// Validation reports these errors and values.Resolve derives from these settings, so a config is
// valid exactly when the derivation succeeds. The rules that need other parts of the Shoot
// (KubeProxy, ShootVPA, CalicoVersionKubernetes) are separate; Shoot applies all of them.
func NetworkConfig(cfg *calicov1alpha1.NetworkConfig, fam Families, nodes NodeNetworks, path *field.Path) (Settings, field.ErrorList) {
	s, _, errs := networkConfig(cfg, fam, nodes, path)
	return s, errs
}

// networkConfig is NetworkConfig that also returns the pinned release (CalicoVersion), so Shoot
// resolves the pin once for the calicoVersion rules.
func networkConfig(cfg *calicov1alpha1.NetworkConfig, fam Families, nodes NodeNetworks, path *field.Path) (Settings, calicoversion.Release, field.ErrorList) {
	if cfg == nil {
		cfg = &calicov1alpha1.NetworkConfig{}
	}
	var s Settings
	var all, errs field.ErrorList
	collect := func(e field.ErrorList) { all = append(all, e...) }

	s.Backend, errs = Backend(cfg, fam, path)
	collect(errs)
	s.IPAM, errs = IPAM(cfg, fam, path)
	collect(errs)
	collect(FamilyBlocks(cfg, fam, path))
	s.IPv4Pool, errs = IPv4Pool(cfg, fam, s.Backend, path)
	collect(errs)
	s.IPv6Pool, errs = IPv6Pool(cfg, fam, path)
	collect(errs)
	s.Autodetection, errs = Autodetection(cfg, fam, nodes, path)
	collect(errs)
	s.VethMTU, errs = VethMTU(cfg, path)
	collect(errs)
	s.AutoScaling, errs = AutoScaling(cfg, path)
	collect(errs)
	s.ServiceLoopPrevention, errs = ServiceLoopPrevention(cfg, path)
	collect(errs)
	pin, errs := CalicoVersion(cfg, path)
	// policyValidation's and calicoVersion's errors come after the sorted ones (they always did).
	all = append(inReportOrder(all, path), PolicyValidation(cfg, path)...)
	return s, pin, append(all, errs...)
}

// fieldOrder is the order in which errors of single fields are reported: the NetworkConfig's
// fields as docs/validation.md lists them.
var fieldOrder = []string{"backend", "ipam", "ipv4", "ipv6", "vethMTU", "autoScaling", "serviceLoopPrevention"}

// reportedLast are the contradictions between the overlay, VXLAN, backend, pool and IPAM
// settings, reported after the errors of single fields, in this order.
var reportedLast = []ID{
	RuleIPv4ModeOverlay, RuleIPv6ModeOverlay, RuleVXLANOverlayDisabled, RuleBackendOverlay, RuleIPv4ModeBackendNone,
	RuleBackendVXLANDisabled, RuleIPv4PoolVXLANEnabled, RuleIPv4PoolVXLANDisabled, RuleIPAMTypeVXLANHostLocal,
}

// inReportOrder sorts errors for people (stable, so equal keys keep the order the rules produced
// them in): errors of single fields by field, then the contradictions. The ipv4 block and the
// deprecated IPv4 fields are one group.
func inReportOrder(errs field.ErrorList, path *field.Path) field.ErrorList {
	prefix := ""
	if path != nil {
		prefix = path.String() + "."
	}
	rank := func(e *field.Error) int {
		if i := slices.Index(reportedLast, ID(e.Origin)); i >= 0 {
			return len(fieldOrder) + i
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(e.Field, prefix), ".")
		name, _, _ = strings.Cut(name, "[")
		switch name {
		case "ipip", "ipAutodetectionMethod":
			name = "ipv4"
		}
		return slices.Index(fieldOrder, name)
	}
	slices.SortStableFunc(errs, func(a, b *field.Error) int { return rank(a) - rank(b) })
	return errs
}
