package rules_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/util/validation/field"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/rules"
)

// ignoreFieldErrorOrigin leaves the internal Origin of a field.Error out of comparisons.
var ignoreFieldErrorOrigin = cmpopts.IgnoreFields(field.Error{}, "Origin")

// TestAutoDetectionMethodMessages: the exact errors (path, value, detail) a shoot owner reads.
func TestAutoDetectionMethodMessages(t *testing.T) {
	path := field.NewPath("ipv4", "autoDetectionMethod")
	invalid := func(method, detail string) field.ErrorList {
		return field.ErrorList{field.Invalid(path, method, detail)}
	}
	tests := []struct {
		method string
		family gardencorev1beta1.IPFamily
		want   field.ErrorList
	}{
		{method: "", want: invalid("", "method cannot be empty; remove the field to use calico-node's default")},
		{method: "first-found"},
		{method: "kubernetes-internal-ip"},
		{method: "first-found=eth0", want: invalid("first-found=eth0", "option first-found does not take a parameter")},
		{method: "kubernetes-internal-ip=", want: invalid("kubernetes-internal-ip=", "option kubernetes-internal-ip does not take a parameter")},
		{method: "cidr=10.250.0.0/16"},
		{method: "cidr=10.250.0.0/16,10.251.0.0/16"},
		{method: "cidr", want: invalid("cidr", "option cidr requires a parameter, e.g. cidr=10.250.0.0/16")},
		{method: "cidr=", family: "IPv6", want: invalid("cidr=", "option cidr requires a parameter, e.g. cidr=2001:db8::/64")},
		{method: "cidr=10.250.0.0", want: invalid("cidr=10.250.0.0", `parameter "10.250.0.0" of option cidr is not a valid CIDR`)},
		{method: "cidr=10.250.0.0/16,nope", want: invalid("cidr=10.250.0.0/16,nope", `parameter "nope" of option cidr is not a valid CIDR`)},
		{method: "cidr=2001:db8::/64", want: invalid("cidr=2001:db8::/64", `parameter "2001:db8::/64" of option cidr is not an IPv4 CIDR`)},
		{method: "cidr=2001:db8::/64", family: "IPv6"},
		{method: "can-reach=8.8.8.8"},
		{method: "can-reach=www.example.com"},
		{method: "can-reach", want: invalid("can-reach", "option can-reach requires a parameter, e.g. can-reach=8.8.8.8")},
		{method: "can-reach=Not_A_Name", want: invalid("can-reach=Not_A_Name", "parameter of can-reach must be a valid IP address or DNS name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")},
		{method: "can-reach=2001:4860:4860::8888", want: invalid("can-reach=2001:4860:4860::8888", "parameter of can-reach must be an IPv4 address or a DNS name")},
		{method: "interface=eth.*"},
		{method: "interface=eth0,ens.*"},
		{method: "skip-interface=docker.*"},
		{method: "interface", want: invalid("interface", "option interface requires a parameter, e.g. interface=eth.*")},
		{method: "skip-interface=eth(", want: invalid("skip-interface=eth(", "invalid regex for option skip-interface: error parsing regexp: missing closing ): `eth(`")},
		{method: "nearest=1", want: invalid("nearest=1", `invalid option "nearest", supported options: can-reach, cidr, first-found, interface, kubernetes-internal-ip, skip-interface`)},
	}
	for _, tt := range tests {
		family := tt.family
		if family == "" {
			family = "IPv4"
		}
		t.Run(string(family)+" "+tt.method, func(t *testing.T) {
			got := rules.AutoDetectionMethod(tt.method, family, path)
			if diff := cmp.Diff(tt.want, got, ignoreFieldErrorOrigin); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
