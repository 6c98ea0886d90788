package rules

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ID identifies a rule. Errors carry it in field.Error.Origin.
type ID string

// Rule describes one rule of the catalogue.
type Rule struct {
	// ID is the rule's identity, stable across releases (it may be matched by ratcheting).
	ID ID
	// Reference is true when the reference extension refused such a config too, at admission, at
	// reconcile or at chart generation. A config that breaks only rules with Reference false was
	// reconciled by the reference (which ignored or overwrote a field).
	Reference bool
	// Field is the path of the field the error sits on, relative to the NetworkConfig (or the Shoot
	// for Shoot rules).
	Field string
	// Summary says in a few words what the rule requires.
	Summary string
}

// Rule identities. The prefix names the field (or group of fields) the rule is about.
const (
	RuleBackendSupported               ID = "backend.supported"
	RuleBackendOverlay                 ID = "backend.overlay"
	RuleBackendVXLANDisabled           ID = "backend.vxlan-disabled"
	RuleVXLANOverlayDisabled           ID = "vxlan.overlay-disabled"
	RuleIPAMTypeSupported              ID = "ipam.type.supported"
	RuleIPAMTypeCalicoIPAMIPv4         ID = "ipam.type.calico-ipam-ipv4-only"
	RuleIPAMTypeVXLANHostLocal         ID = "ipam.type.vxlan-host-local"
	RuleIPAMCIDRFormat                 ID = "ipam.cidr.format"
	RuleIPAMCIDRFamily                 ID = "ipam.cidr.family"
	RuleIPAMCIDRSubnet                 ID = "ipam.cidr.subnet"
	RuleIPAMCIDRCalicoIPAM             ID = "ipam.cidr.calico-ipam"
	RuleIPAMCIDRVXLAN                  ID = "ipam.cidr.vxlan-calico-ipam"
	RuleIPv4Family                     ID = "ipv4.family"
	RuleIPv6Family                     ID = "ipv6.family"
	RuleIPv4PoolSupported              ID = "ipv4.pool.supported"
	RuleIPv4PoolVXLANEnabled           ID = "ipv4.pool.vxlan-enabled"
	RuleIPv4PoolVXLANDisabled          ID = "ipv4.pool.vxlan-disabled"
	RuleIPv4ModeSupported              ID = "ipv4.mode.supported"
	RuleIPIPSupported                  ID = "ipip.supported"
	RuleIPIPIPv4Mode                   ID = "ipip.ipv4-mode"
	RuleIPv4ModeVXLANPool              ID = "ipv4.mode.vxlan-pool"
	RuleIPv4ModeVXLANDerived           ID = "ipv4.mode.vxlan-pool-derived"
	RuleIPv4ModeOverlay                ID = "ipv4.mode.overlay"
	RuleIPv4ModeBackendNone            ID = "ipv4.mode.backend-none"
	RuleIPv6PoolSupported              ID = "ipv6.pool.supported"
	RuleIPv6ModeSupported              ID = "ipv6.mode.supported"
	RuleIPv6ModeCrossSubnet            ID = "ipv6.mode.cross-subnet"
	RuleIPv6ModeOverlay                ID = "ipv6.mode.overlay"
	RuleAutodetectionMethod            ID = "autodetection.method"
	RuleAutodetectionFamily            ID = "autodetection.method-family"
	RuleAutodetectionDeprecated        ID = "ipAutodetectionMethod.ipv4-method"
	RuleVethMTUFormat                  ID = "vethMTU.format"
	RuleVethMTUPlain                   ID = "vethMTU.plain"
	RuleVethMTURange                   ID = "vethMTU.range"
	RuleAutoScalingMode                ID = "autoScaling.mode.supported"
	RuleAutoScalingResource            ID = "autoScaling.resources.name"
	RuleAutoScalingAmount              ID = "autoScaling.resources.amount"
	RuleAutoScalingAmountRange         ID = "autoScaling.resources.range"
	RuleAutoScalingVPA                 ID = "autoScaling.mode.shoot-vpa"
	RuleServiceLoopPreventionSupported ID = "serviceLoopPrevention.supported"
	RulePolicyValidationMode           ID = "policyValidation.mode.supported"
	RuleKubeProxyEBPF                  ID = "kubeProxy.ebpf"
	RuleCalicoVersionSupported         ID = "calicoVersion.supported"
	RuleCalicoVersionKubernetes        ID = "calicoVersion.kubernetes"
)

// catalogue lists every rule once, in the order of docs/validation.md.
var catalogue = []Rule{
	{RuleBackendSupported, true, "backend", `one of "bird", "none", "vxlan"`},
	{RuleBackendOverlay, false, "backend", "equal to the backend an explicit overlay implies (the reference overwrote it)"},
	{RuleBackendVXLANDisabled, false, "backend", `"vxlan" not with vxlan.enabled: false`},
	{RuleVXLANOverlayDisabled, false, "vxlan.enabled", "true not with overlay.enabled: false"},
	{RuleIPAMTypeSupported, true, "ipam.type", `empty, "calico-ipam" or "host-local"`},
	{RuleIPAMTypeCalicoIPAMIPv4, true, "ipam.type", `"calico-ipam" only on IPv4 single-stack shoots`},
	{RuleIPAMTypeVXLANHostLocal, false, "ipam.type", `"host-local" not with vxlan.enabled: true on IPv4 single-stack (the reference overwrote it)`},
	{RuleIPAMCIDRFormat, true, "ipam.cidr", `"usePodCidr", "usePodCidrIPv6" or a CIDR`},
	{RuleIPAMCIDRFamily, false, "ipam.cidr", "of a family the shoot uses"},
	{RuleIPAMCIDRSubnet, false, "ipam.cidr", "a subnet address (no host bits), not IPv4-mapped IPv6, at most /30 (IPv4) or /126 (IPv6): room for pods"},
	{RuleIPAMCIDRCalicoIPAM, false, "ipam.cidr", `not with ipam.type: "calico-ipam" (the reference ignored the cidr)`},
	{RuleIPAMCIDRVXLAN, false, "ipam.cidr", "not with vxlan.enabled: true on IPv4 single-stack without ipam.type (the reference ignored the cidr)"},
	{RuleIPv4Family, true, "ipv4, ipip, ipAutodetectionMethod", "only on shoots with IPv4 (the reference failed at chart generation)"},
	{RuleIPv6Family, true, "ipv6", "only on shoots with IPv6 (the reference failed at chart generation)"},
	{RuleIPv4PoolSupported, true, "ipv4.pool", `"ipip" or "vxlan"`},
	{RuleIPv4PoolVXLANEnabled, false, "ipv4.pool", `"ipip" not with vxlan.enabled: true`},
	{RuleIPv4PoolVXLANDisabled, false, "ipv4.pool", `"vxlan" not with vxlan.enabled: false`},
	{RuleIPv4ModeSupported, true, "ipv4.mode", `"Always", "Never", "CrossSubnet" or "Off"`},
	{RuleIPIPSupported, true, "ipip", `"Always", "Never", "CrossSubnet" or "Off"`},
	{RuleIPIPIPv4Mode, false, "ipip", "equal to ipv4.mode when both are set (the reference ignored ipip)"},
	{RuleIPv4ModeVXLANPool, true, "ipv4.mode", `"Always" or "Never" with ipv4.pool: "vxlan"`},
	{RuleIPv4ModeVXLANDerived, false, "ipv4.mode, ipip", `"Always" or "Never" with a VXLAN pool from vxlan.enabled, or when the mode comes from the deprecated ipip`},
	{RuleIPv4ModeOverlay, false, "ipv4.mode, ipip", "not contradicting overlay.enabled (the reference overwrote the mode)"},
	{RuleIPv4ModeBackendNone, false, "ipv4.mode, ipip", `not encapsulating with backend: "none" and no overlay setting`},
	{RuleIPv6PoolSupported, true, "ipv6.pool", `only "vxlan" (the reference failed at chart generation)`},
	{RuleIPv6ModeSupported, true, "ipv6.mode", `"Always" or "Never" ("Off" failed at the reference's chart generation)`},
	{RuleIPv6ModeCrossSubnet, false, "ipv6.mode", `not "CrossSubnet": IPv6 pools are VXLAN (the reference overwrote the mode)`},
	{RuleIPv6ModeOverlay, false, "ipv6.mode", "not contradicting overlay.enabled (the reference overwrote the mode)"},
	{RuleAutodetectionMethod, true, "ipv4.autoDetectionMethod, ipv6.autoDetectionMethod, ipAutodetectionMethod", "a calico-node autodetection method"},
	{RuleAutodetectionFamily, false, "ipv4.autoDetectionMethod, ipv6.autoDetectionMethod, ipAutodetectionMethod", "cidr and can-reach parameters of the field's family"},
	{RuleAutodetectionDeprecated, false, "ipAutodetectionMethod", "equal to a non-empty ipv4.autoDetectionMethod (the reference ignored the deprecated field)"},
	{RuleVethMTUFormat, true, "vethMTU", "a non-negative integer"},
	{RuleVethMTUPlain, false, "vethMTU", "written as a plain integer"},
	{RuleVethMTURange, false, "vethMTU", "0 or between 68 and 65535"},
	{RuleAutoScalingMode, true, "autoScaling.mode", `"cluster-proportional", "vpa" or "static"`},
	{RuleAutoScalingResource, true, "autoScaling.resources.{node,typha}", `only "cpu" and "memory"`},
	{RuleAutoScalingAmount, true, "autoScaling.resources.{node,typha}", "greater than zero"},
	{RuleAutoScalingAmountRange, false, "autoScaling.resources.{node,typha}", "less than 2^63-1 millicores (cpu) or bytes (memory): larger values are silently cut to it"},
	{RuleAutoScalingVPA, false, "autoScaling.mode", `"vpa" needs the shoot's VPA (the reference fell back to cluster-proportional)`},
	{RuleServiceLoopPreventionSupported, true, "serviceLoopPrevention", `"Disabled", "Drop" or "Reject"`},
	// calico-pilot's own field: no config the reference deployed has it, so there is nothing to ratchet.
	{RulePolicyValidationMode, true, "policyValidation.mode", `"Deny" or "Warn"`},
	{RuleKubeProxyEBPF, true, "spec.kubernetes.kubeProxy.enabled", "false only with ebpfDataplane.enabled: true"},
	// calico-pilot's own field, ratcheted all the same: a release a later calico-pilot no longer
	// carries must not stop a shoot that pinned it from reconciling.
	{RuleCalicoVersionSupported, false, "calicoVersion", "a release of the Calico catalogue, or a line (its newest release) (docs/calico-lines.md)"},
	{RuleCalicoVersionKubernetes, false, "calicoVersion", "a release whose line supports the shoot's Kubernetes version (spec.kubernetes.version)"},
}

// Catalogue returns every rule, in the order of docs/validation.md.
func Catalogue() []Rule {
	return append([]Rule(nil), catalogue...)
}

// Lookup returns the rule with the given identity.
func Lookup(id ID) (Rule, bool) {
	for _, r := range catalogue {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

// Of returns the rule that produced an error, by its Origin; false for errors that no rule of
// this package produced (decoding, cluster facts).
func Of(err *field.Error) (Rule, bool) {
	if err == nil || err.Origin == "" {
		return Rule{}, false
	}
	return Lookup(ID(err.Origin))
}

// The constructors below are field's, with the rule identity as Origin.

func (id ID) invalid(p *field.Path, value any, detail string) *field.Error {
	return field.Invalid(p, value, detail).WithOrigin(string(id))
}

func (id ID) forbidden(p *field.Path, detail string) *field.Error {
	return field.Forbidden(p, detail).WithOrigin(string(id))
}

func (id ID) notSupported(p *field.Path, value string, supported []string) *field.Error {
	return field.NotSupported(p, value, supported).WithOrigin(string(id))
}
