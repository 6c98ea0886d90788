package validation

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/calico-pilot/calico-pilot/internal/decode"
)

// shootYAML builds a Shoot with one worker around the given spec.networking and spec.kubernetes bodies
// (indented by the caller as children of networking: and kubernetes:).
func shootYAML(networking, kubernetes string) string {
	s := `apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata: {name: s, namespace: garden-dev}
spec:
  provider:
    type: aws
    workers: [{name: w}]
`
	if networking != "" {
		s += "  networking:\n" + networking
	}
	if kubernetes != "" {
		s += "  kubernetes:\n" + kubernetes
	}
	return s
}

func TestValidateShoot(t *testing.T) {
	const calico = "    type: calico\n    nodes: 10.250.0.0/16\n    pods: 100.96.0.0/11\n    services: 100.64.0.0/13\n"
	const pcHeader = "    providerConfig:\n      apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\n      kind: NetworkConfig\n"
	pc := field.NewPath("spec", "networking", "providerConfig")
	tests := []struct {
		name  string
		input string
		want  field.ErrorList
	}{
		{name: "minimal calico shoot", input: shootYAML(calico, "")},
		{name: "workerless shoot is not validated", input: strings.Replace(shootYAML("    type: cilium\n", ""), "    workers: [{name: w}]\n", "", 1)},
		{name: "no networking", input: shootYAML("", ""),
			want: field.ErrorList{field.Required(field.NewPath("spec", "networking", "type"), `networking type is required, it must be "calico"`)}},
		{name: "networking type missing", input: shootYAML("    nodes: 10.250.0.0/16\n", ""),
			want: field.ErrorList{field.Required(field.NewPath("spec", "networking", "type"), `networking type is required, it must be "calico"`)}},
		{name: "other networking type, its providerConfig is not read", input: shootYAML("    type: cilium\n    providerConfig: {apiVersion: cilium/v1, kind: X}\n", ""),
			want: field.ErrorList{field.NotSupported(field.NewPath("spec", "networking", "type"), "cilium", []string{"calico"})}},
		{name: "invalid CIDRs", input: shootYAML("    type: calico\n    pods: 100.96.0.0\n    nodes: x\n    services: 100.64.0.0/33\n", ""),
			want: field.ErrorList{
				field.Invalid(field.NewPath("spec", "networking", "pods"), "100.96.0.0", "pods is not a valid CIDR"),
				field.Invalid(field.NewPath("spec", "networking", "nodes"), "x", "nodes is not a valid CIDR"),
				field.Invalid(field.NewPath("spec", "networking", "services"), "100.64.0.0/33", "services is not a valid CIDR"),
			}},
		{name: "IPv6 CIDR on IPv4 shoot", input: shootYAML("    type: calico\n    pods: 2001:db8::/48\n", ""),
			want: field.ErrorList{field.Invalid(field.NewPath("spec", "networking", "pods"), "2001:db8::/48", "must be an IPv4 CIDR, the shoot's only IP family")}},
		{name: "dual-stack", input: shootYAML("    type: calico\n    pods: 100.96.0.0/11\n    ipFamilies: [IPv4, IPv6]\n", "")},
		{name: "unknown family", input: shootYAML("    type: calico\n    ipFamilies: [IPv4, IPv5]\n", ""),
			want: field.ErrorList{field.NotSupported(field.NewPath("spec", "networking", "ipFamilies").Index(1), "IPv5", []string{"IPv4", "IPv6"})}},
		{name: "too many families", input: shootYAML("    type: calico\n    ipFamilies: [IPv4, IPv6, IPv4]\n", ""),
			want: field.ErrorList{field.TooMany(field.NewPath("spec", "networking", "ipFamilies"), 3, 2)}},
		{name: "duplicate family", input: shootYAML("    type: calico\n    ipFamilies: [IPv6, IPv6]\n", ""),
			want: field.ErrorList{field.Duplicate(field.NewPath("spec", "networking", "ipFamilies").Index(1), "IPv6")}},
		{name: "providerConfig rules use the providerConfig path and the shoot's families", input: shootYAML("    type: calico\n    ipFamilies: [IPv6]\n"+pcHeader+"      ipam: {type: calico-ipam}\n      ipv4: {mode: Never}\n", ""),
			want: field.ErrorList{
				field.Invalid(pc.Child("ipam", "type"), "calico-ipam", `IPAM type "calico-ipam" is only supported for IPv4 single-stack shoots, use "host-local" instead (this is an IPv6 single-stack shoot)`),
				field.Forbidden(pc.Child("ipv4"), "IPv4 configuration must not be specified if the shoot does not use IPv4 networking (this is an IPv6 single-stack shoot)"),
			}},
		{name: "providerConfig decoding errors are reported and stop further checks", input: shootYAML(calico+pcHeader+"      ipam: {typ: host-local}\n", "    kubeProxy: {enabled: false}\n"),
			want: field.ErrorList{field.Forbidden(pc.Child("ipam", "typ"), `unknown field "typ" (did you mean "type"?); known fields of spec.networking.providerConfig.ipam: cidr, type`)}},
		{name: "kube-proxy disabled without eBPF", input: shootYAML(calico, "    kubeProxy: {enabled: false, mode: IPTables}\n"),
			want: field.ErrorList{field.Forbidden(field.NewPath("spec", "kubernetes", "kubeProxy", "enabled"), "Disabling kube-proxy is forbidden in conjunction with calico without running in ebpf dataplane; set spec.networking.providerConfig.ebpfDataplane.enabled: true or enable kube-proxy")}},
		{name: "kube-proxy disabled with eBPF (seed example)", input: shootYAML(calico+pcHeader+"      ebpfDataplane: {enabled: true}\n      overlay: {enabled: false}\n", "    kubeProxy: {enabled: false, mode: IPTables}\n")},
		{name: "kube-proxy enabled", input: shootYAML(calico, "    kubeProxy: {enabled: true}\n")},
		{name: "vpa mode without shoot VPA", input: shootYAML(calico+pcHeader+"      autoScaling: {mode: vpa}\n", ""),
			want: field.ErrorList{field.Invalid(pc.Child("autoScaling", "mode"), "vpa", `needs the shoot's VPA: set spec.kubernetes.verticalPodAutoscaler.enabled: true, or use "cluster-proportional" or "static"`)}},
		{name: "vpa mode with shoot VPA disabled", input: shootYAML(calico+pcHeader+"      autoScaling: {mode: vpa}\n", "    verticalPodAutoscaler: {enabled: false}\n"),
			want: field.ErrorList{field.Invalid(pc.Child("autoScaling", "mode"), "vpa", `needs the shoot's VPA: set spec.kubernetes.verticalPodAutoscaler.enabled: true, or use "cluster-proportional" or "static"`)}},
		{name: "vpa mode with shoot VPA", input: shootYAML(calico+pcHeader+"      autoScaling: {mode: vpa}\n", "    verticalPodAutoscaler: {enabled: true}\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shoot, errs := decode.Shoot([]byte(tt.input))
			if len(errs) > 0 {
				t.Fatalf("test input does not decode: %v", errs)
			}
			cfg, got := ValidateShoot(shoot)
			if diff := cmp.Diff(tt.want, got, ignoreOrigin); diff != "" {
				t.Errorf("ValidateShoot() mismatch (-want +got):\n%s", diff)
			}
			// The decoded config comes back whenever a calico Shoot with workers has one that
			// decodes, also next to the errors of other rules.
			wantCfg, decodeErrs := decode.ShootNetworkConfig(shoot)
			if len(decodeErrs) > 0 || shoot.NetworkingType() != "calico" || shoot.IsWorkerless() {
				wantCfg = nil
			}
			if diff := cmp.Diff(wantCfg, cfg); diff != "" {
				t.Errorf("ValidateShoot() config mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
