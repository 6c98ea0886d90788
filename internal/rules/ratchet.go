package rules

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// FindingKind says why a field of an accepted config is reported.
type FindingKind string

// Finding kinds.
const (
	// FindingContradictory is a field that contradicts another one (or the shoot): a rule that goes
	// beyond the reference extension refuses it for new configs.
	FindingContradictory FindingKind = "Contradictory"
	// FindingIgnored is a field the reference extension ignored and that calico-pilot, for a Network
	// last reconciled by the reference, ignores too (compatibility mode Reference).
	FindingIgnored FindingKind = "Ignored"
)

// Finding is a field of a config calico-pilot deploys anyway, and what it does with it.
type Finding struct {
	// Kind is Contradictory or Ignored.
	Kind FindingKind `json:"kind"`
	// Rule is the rule that reports it ("" for an ignored field without a rule).
	Rule ID `json:"rule,omitempty"`
	// Field is the path of the field.
	Field string `json:"field"`
	// Value is the field's value as written.
	Value string `json:"value,omitempty"`
	// Detail says what is wrong with it.
	Detail string `json:"detail"`
	// Action says what calico-pilot deploys instead.
	Action string `json:"action"`
}

// String is the finding in one line: field, detail, action.
func (f Finding) String() string {
	v := ""
	if f.Value != "" {
		v = fmt.Sprintf(" %q", f.Value)
	}
	return fmt.Sprintf("%s%s: %s; %s", f.Field, v, f.Detail, f.Action)
}

// ratchetActions says, for every rule that goes beyond the reference, what calico-pilot deploys
// when an existing config breaks it: what the reference extension deployed (the rules return that
// value with their error), so that an existing shoot keeps its data plane.
var ratchetActions = map[ID]string{
	RuleBackendOverlay:          "the backend the overlay setting implies is deployed, as the reference did",
	RuleBackendVXLANDisabled:    `backend "vxlan" is deployed, as the reference did`,
	RuleVXLANOverlayDisabled:    `the overlay stays off (backend "none"); the IPAM is "calico-ipam" and the IPv4 pool VXLAN/Never, as the reference deployed`,
	RuleIPAMTypeVXLANHostLocal:  `"calico-ipam" is deployed (vxlan.enabled forces it on IPv4 single-stack), as the reference did`,
	RuleIPAMCIDRFamily:          "the cidr is written to the CNI configuration as given on single-stack shoots and not used on dual-stack ones, as the reference did",
	RuleIPAMCIDRCalicoIPAM:      "the cidr is not used (calico-ipam allocates from the IP pools), as the reference did",
	RuleIPAMCIDRSubnet:          "the cidr is written to the CNI configuration as given, as the reference did (host-local then allocates from the subnet it denotes, or from none)",
	RuleAutoScalingAmountRange:  "the amount is rendered as given, as the reference did (an amount beyond int64 becomes the largest int64)",
	RuleIPAMCIDRVXLAN:           "the cidr is not used (the IPAM is calico-ipam), as the reference did",
	RuleIPv4PoolVXLANEnabled:    "the explicit ipv4.pool names calico-node's pool variable, as in the reference",
	RuleIPv4PoolVXLANDisabled:   "the explicit ipv4.pool names calico-node's pool variable, as in the reference",
	RuleIPIPIPv4Mode:            "ipv4.mode is used and the deprecated ipip ignored, as the reference did",
	RuleIPv4ModeVXLANDerived:    "the mode is passed to calico-node as written, as the reference did",
	RuleIPv4ModeOverlay:         "the mode the overlay setting implies (Always when on, Never when off) is deployed, as the reference did",
	RuleIPv4ModeBackendNone:     `mode "Never" is deployed (backend none does not encapsulate), as the reference did`,
	RuleIPv6ModeCrossSubnet:     "the mode the overlay setting implies (Always when on, otherwise Never) is deployed, as the reference did",
	RuleIPv6ModeOverlay:         "the mode the overlay setting implies (Always when on, Never when off) is deployed, as the reference did",
	RuleAutodetectionFamily:     "the method is passed to calico-node as written, as the reference did",
	RuleAutodetectionDeprecated: "ipv4.autoDetectionMethod is used and the deprecated field ignored, as the reference did",
	RuleVethMTUPlain:            "the MTU is written as given, as the reference did",
	RuleVethMTURange:            "the MTU is written as given, as the reference did",
	RuleAutoScalingVPA:          "calico-node and typha are sized as in cluster-proportional mode (no VPA), as the reference did",
	RuleCalicoVersionSupported:  "the pin is not used: a running shoot keeps the release it runs, a new one gets the operator's default (calico.defaultVersion) or calico-pilot's",
	RuleCalicoVersionKubernetes: "no move starts to a release outside the Kubernetes versions Calico supports for it: a running shoot keeps the release it runs, a new one gets a release whose line supports its Kubernetes version",
}

// RatchetAction says what calico-pilot deploys when an accepted config breaks the rule; "" for the
// reference's own rules, which are errors everywhere.
func RatchetAction(id ID) string { return ratchetActions[id] }

// Ratchet splits errors into those that stay errors (the reference's own rules, decoding, cluster
// facts) and findings: errors of rules that go beyond the reference, which an existing config may
// break and still be deployed (a config the reference accepted never becomes an error in
// the controller). Findings keep the order of errs.
func Ratchet(errs field.ErrorList) (field.ErrorList, []Finding) {
	var hard field.ErrorList
	var findings []Finding
	for _, e := range errs {
		r, ok := Of(e)
		if !ok || r.Reference {
			hard = append(hard, e)
			continue
		}
		findings = append(findings, Finding{
			Kind:   FindingContradictory,
			Rule:   r.ID,
			Field:  e.Field,
			Value:  valueString(e.BadValue),
			Detail: e.Detail,
			Action: RatchetAction(r.ID),
		})
	}
	return hard, findings
}

// BeyondReference says whether the error comes from a rule that goes beyond the reference.
func BeyondReference(e *field.Error) bool {
	r, ok := Of(e)
	return ok && !r.Reference
}

func valueString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case *string:
		if x == nil {
			return ""
		}
		return *x
	default:
		return fmt.Sprint(x)
	}
}
