package rules_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/decode"
	"github.com/calico-pilot/calico-pilot/internal/rules"
)

func TestCatalogue(t *testing.T) {
	seen := map[rules.ID]bool{}
	for _, r := range rules.Catalogue() {
		if seen[r.ID] {
			t.Errorf("rule %s listed twice", r.ID)
		}
		seen[r.ID] = true
		if r.Field == "" || r.Summary == "" {
			t.Errorf("rule %s has no field or summary", r.ID)
		}
		if got, ok := rules.Lookup(r.ID); !ok || got != r {
			t.Errorf("Lookup(%s) = %v, %t", r.ID, got, ok)
		}
	}
	if _, ok := rules.Of(field.Invalid(field.NewPath("x"), "y", "decoding, not a rule")); ok {
		t.Error("Of found a rule for an error without origin")
	}
	if r, ok := rules.Of(field.Invalid(nil, "", "").WithOrigin("backend.overlay")); !ok || r.Reference {
		t.Errorf(`Of(origin "backend.overlay") = %v, %t; want the non-reference rule`, r, ok)
	}
}

type ruleError struct {
	Rule      rules.ID
	Field     string
	Reference bool
}

func ruleErrors(t *testing.T, errs field.ErrorList) []ruleError {
	t.Helper()
	var out []ruleError
	for _, e := range errs {
		r, ok := rules.Of(e)
		if !ok {
			t.Errorf("error without a catalogued rule: %v (origin %q)", e, e.Origin)
		}
		out = append(out, ruleError{r.ID, e.Field, r.Reference})
	}
	return out
}

func config(t *testing.T, body string) *calicov1alpha1.NetworkConfig {
	t.Helper()
	cfg, errs := decode.NetworkConfig([]byte("apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\nkind: NetworkConfig\n"+body), nil)
	if len(errs) > 0 {
		t.Fatalf("test input does not decode: %v", errs)
	}
	return cfg
}

var (
	ipv4 = rules.FamiliesOf(nil)
	ipv6 = rules.FamiliesOf([]gardencorev1beta1.IPFamily{"IPv6"})
	dual = rules.FamiliesOf([]gardencorev1beta1.IPFamily{"IPv4", "IPv6"})
)

// TestRuleIdentities checks which rule reports which error, and so whether the reference
// extension refused the config too: where one check covers both (a value the reference rejected
// and a stricter case of ours), the error names the rule that applies.
func TestRuleIdentities(t *testing.T) {
	tests := []struct {
		name string
		fam  rules.Families
		body string
		want []ruleError
	}{
		{"the reference's issue 10 examples: calico-ipam with a cidr", ipv4, "ipam: {type: calico-ipam, cidr: usePodCidr}",
			[]ruleError{{rules.RuleIPAMCIDRCalicoIPAM, "ipam.cidr", false}}},
		{"overlay off with backend bird", ipv4, "overlay: {enabled: false}\nbackend: bird",
			[]ruleError{{rules.RuleBackendOverlay, "backend", false}}},
		{"overlay on with ipv4 mode Never", ipv4, "overlay: {enabled: true}\nipv4: {mode: Never}",
			[]ruleError{{rules.RuleIPv4ModeOverlay, "ipv4.mode", false}}},
		{"vxlan with host-local", ipv4, "vxlan: {enabled: true}\nipam: {type: host-local}",
			[]ruleError{{rules.RuleIPAMTypeVXLANHostLocal, "ipam.type", false}}},
		{"ipip disagreeing with ipv4.mode", ipv4, "ipip: Always\nipv4: {mode: Never}",
			[]ruleError{{rules.RuleIPIPIPv4Mode, "ipip", false}}},
		{"vxlan pool with CrossSubnet is a reference rule", ipv4, "ipv4: {pool: vxlan, mode: CrossSubnet}",
			[]ruleError{{rules.RuleIPv4ModeVXLANPool, "ipv4.mode", true}}},
		{"the same mode from the deprecated ipip is ours", ipv4, "ipip: CrossSubnet\nipv4: {pool: vxlan}",
			[]ruleError{{rules.RuleIPv4ModeVXLANDerived, "ipip", false}}},
		{"the same mode with a pool from vxlan.enabled is ours", ipv4, "vxlan: {enabled: true}\nipv4: {mode: CrossSubnet}",
			[]ruleError{{rules.RuleIPv4ModeVXLANDerived, "ipv4.mode", false}}},
		{"ipv6 mode Off failed at the reference's chart generation", ipv6, "ipv6: {mode: \"Off\"}",
			[]ruleError{{rules.RuleIPv6ModeSupported, "ipv6.mode", true}}},
		{"ipv6 mode CrossSubnet without a pool was overwritten by the reference", ipv6, "ipv6: {mode: CrossSubnet}",
			[]ruleError{{rules.RuleIPv6ModeCrossSubnet, "ipv6.mode", false}}},
		{"ipv6 mode CrossSubnet with pool vxlan is the reference's vxlan rule", ipv6, "ipv6: {pool: vxlan, mode: CrossSubnet}",
			[]ruleError{{rules.RuleIPv6ModeSupported, "ipv6.mode", true}}},
		{"autodetection syntax is a reference rule, the family of its parameter ours", dual,
			"ipv4: {autoDetectionMethod: nearest}\nipv6: {autoDetectionMethod: \"cidr=10.0.0.0/8\"}",
			[]ruleError{{rules.RuleAutodetectionMethod, "ipv4.autoDetectionMethod", true}, {rules.RuleAutodetectionFamily, "ipv6.autoDetectionMethod", false}}},
		{"family blocks", ipv6, "ipv4: {}\nipip: Always\nipAutodetectionMethod: first-found",
			[]ruleError{{rules.RuleIPv4Family, "ipv4", true}, {rules.RuleIPv4Family, "ipip", true}, {rules.RuleIPv4Family, "ipAutodetectionMethod", true}}},
		{"host-local subnet with host bits set (issue 15)", ipv4, "ipam: {type: host-local, cidr: 10.0.0.1/8}",
			[]ruleError{{rules.RuleIPAMCIDRSubnet, "ipam.cidr", false}}},
		{"host-local /31", ipv4, "ipam: {type: host-local, cidr: 10.0.0.0/31}",
			[]ruleError{{rules.RuleIPAMCIDRSubnet, "ipam.cidr", false}}},
		{"host-local /32", ipv4, "ipam: {type: host-local, cidr: 10.0.0.0/32}",
			[]ruleError{{rules.RuleIPAMCIDRSubnet, "ipam.cidr", false}}},
		{"host-local /128", ipv6, "ipam: {type: host-local, cidr: \"fd00::/128\"}",
			[]ruleError{{rules.RuleIPAMCIDRSubnet, "ipam.cidr", false}}},
		{"IPv4-mapped IPv6 CIDR on an IPv4 shoot", ipv4, "ipam: {type: host-local, cidr: \"::ffff:10.0.0.0/104\"}",
			[]ruleError{{rules.RuleIPAMCIDRSubnet, "ipam.cidr", false}}},
		{"cpu beyond int64 millicores", ipv4, "autoScaling: {mode: static, resources: {node: {cpu: \"1e999999\", memory: 100Mi}}}",
			[]ruleError{{rules.RuleAutoScalingAmountRange, "autoScaling.resources.node[cpu]", false}}},
		{"memory beyond int64 bytes", ipv4, "autoScaling: {mode: static, resources: {node: {cpu: 100m, memory: 9Ei}}}",
			[]ruleError{{rules.RuleAutoScalingAmountRange, "autoScaling.resources.node[memory]", false}}},
		{"the largest amounts are accepted", ipv4, "autoScaling: {mode: static, resources: {node: {cpu: 9223372036854775806m, memory: \"9223372036854775806\"}}}",
			nil},
		{"single-field errors first, contradictions last", ipv4, "overlay: {enabled: true}\nipv4: {mode: Never}\nvethMTU: \"+1440\"\nbackend: flannel",
			[]ruleError{{rules.RuleBackendSupported, "backend", true}, {rules.RuleVethMTUPlain, "vethMTU", false}, {rules.RuleIPv4ModeOverlay, "ipv4.mode", false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs := rules.NetworkConfig(config(t, tt.body), tt.fam, rules.NodeNetworks{}, nil)
			if diff := cmp.Diff(tt.want, ruleErrors(t, errs)); diff != "" {
				t.Errorf("errors (-want +got):\n%s\nall: %v", diff, errs)
			}
		})
	}
}

// TestBeyondReferenceValues: with an error of a rule the reference did not enforce, Backend returns
// what the reference rendered (the overlay decides), so that a caller that reports such an error
// as a warning (issue 10) still gets the reference's value.
func TestBeyondReferenceValues(t *testing.T) {
	b, errs := rules.Backend(config(t, "overlay: {enabled: false}\nbackend: bird"), ipv4, nil)
	if len(errs) != 1 || b != calicov1alpha1.BackendNone {
		t.Errorf("Backend = %q, %v; want none with one error", b, errs)
	}
}

// TestMigrationPending: while the dual-stack migration is pending the rules judge the requested
// families and derive for the active one.
func TestMigrationPending(t *testing.T) {
	fam := rules.Families{Requested: rules.FamilySet{IPv4: true, IPv6: true}, Active: rules.FamilySet{IPv4: true}}
	cfg := config(t, "ipv6: {mode: Never}\nipam: {cidr: usePodCidrIPv6}\nipv4: {autoDetectionMethod: first-found}")
	s, errs := rules.NetworkConfig(cfg, fam, rules.NodeNetworks{IPv4: []string{"10.250.0.0/16"}, IPv6: []string{"2001:db8::/64"}}, nil)
	if len(errs) > 0 {
		t.Fatalf("unexpected errors: %v", errs)
	}
	want := rules.Settings{
		Backend:       "bird",
		IPAM:          rules.IPAMSettings{Type: "host-local", Subnet: "usePodCidr"},
		IPv4Pool:      rules.Pool{Encapsulation: "ipip", Mode: "Always"},
		IPv6Pool:      rules.Pool{Encapsulation: "vxlan", Mode: "Never"},
		Autodetection: rules.AutodetectionMethods{IPv4: "first-found"},
		VethMTU:       "0",
		AutoScaling:   rules.AutoScalingSettings{Mode: "cluster-proportional"},
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
	// calico-ipam is judged on the requested families: it would break the shoot after the migration.
	_, errs = rules.NetworkConfig(config(t, "ipam: {type: calico-ipam}"), fam, rules.NodeNetworks{}, nil)
	if diff := cmp.Diff([]ruleError{{rules.RuleIPAMTypeCalicoIPAMIPv4, "ipam.type", true}}, ruleErrors(t, errs)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// Every rule beyond the reference says what is deployed when an existing config breaks it.
func TestRatchetActions(t *testing.T) {
	for _, r := range rules.Catalogue() {
		if got := rules.RatchetAction(r.ID); (got == "") != r.Reference {
			t.Errorf("rule %s (reference %t) has ratchet action %q", r.ID, r.Reference, got)
		}
	}
}

// TestCatalogueDocumented keeps docs/validation.md's rule catalogue in step with the code.
func TestCatalogueDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/validation.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules.Catalogue() {
		ref := "—"
		if r.Reference {
			ref = "ref"
		}
		row := fmt.Sprintf("| `%s` | %s |", r.ID, ref)
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/validation.md has no catalogue row starting %q", row)
		}
	}
}
