package validation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/util/validation/field"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/decode"
)

const header = "apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1\nkind: NetworkConfig\n"

var (
	ipv4Only = []gardencorev1beta1.IPFamily{"IPv4"}
	ipv6Only = []gardencorev1beta1.IPFamily{"IPv6"}
	dual     = []gardencorev1beta1.IPFamily{"IPv4", "IPv6"}
)

// ignoreOrigin leaves out the rule identity that internal/rules puts in field.Error.Origin: the
// tests of internal/rules assert which rule produced which error; these assert what the user sees
// (path, type, value, message).
var ignoreOrigin = cmpopts.IgnoreFields(field.Error{}, "Origin")

type networkConfigCase struct {
	name     string
	families []gardencorev1beta1.IPFamily
	body     string
	want     field.ErrorList
}

func runNetworkConfigCases(t *testing.T, fldPath *field.Path, tests []networkConfigCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, errs := decode.NetworkConfig([]byte(header+tt.body), nil)
			if len(errs) > 0 {
				t.Fatalf("test input does not decode: %v", errs)
			}
			got := ValidateNetworkConfig(cfg, tt.families, fldPath)
			if diff := cmp.Diff(tt.want, got, ignoreOrigin); diff != "" {
				t.Errorf("ValidateNetworkConfig() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func p(names ...string) *field.Path { return field.NewPath(names[0], names[1:]...) }

func TestValidateNetworkConfigReferenceRules(t *testing.T) {
	runNetworkConfigCases(t, nil, []networkConfigCase{
		{name: "empty config is valid", body: ""},
		{name: "seed example is valid", body: `ipam: {type: host-local, cidr: usePodCIDR}
vethMTU: "1440"
typha: {enabled: true}
overlay: {enabled: true}
autoScaling: {mode: vpa}
kubeAPIServerGlobalNetworkSet: {enabled: true}
`},
		{name: "every backend is valid", body: "backend: vxlan\n"},
		{name: "unknown backend", body: "backend: flannel\n",
			want: field.ErrorList{field.NotSupported(p("backend"), "flannel", []string{"bird", "none", "vxlan"})}},
		{name: "empty ipam type means default", body: "ipam: {type: \"\"}\n"},
		{name: "unknown ipam type", body: "ipam: {type: dhcp}\n",
			want: field.ErrorList{field.NotSupported(p("ipam", "type"), "dhcp", []string{"calico-ipam", "host-local"})}},
		{name: "calico-ipam on IPv4 single-stack", families: ipv4Only, body: "ipam: {type: calico-ipam}\n"},
		{name: "calico-ipam on dual-stack", families: dual, body: "ipam: {type: calico-ipam}\n",
			want: field.ErrorList{field.Invalid(p("ipam", "type"), "calico-ipam", `IPAM type "calico-ipam" is only supported for IPv4 single-stack shoots, use "host-local" instead (this is a dual-stack shoot)`)}},
		{name: "calico-ipam on IPv6 single-stack", families: ipv6Only, body: "ipam: {type: calico-ipam}\n",
			want: field.ErrorList{field.Invalid(p("ipam", "type"), "calico-ipam", `IPAM type "calico-ipam" is only supported for IPv4 single-stack shoots, use "host-local" instead (this is an IPv6 single-stack shoot)`)}},
		{name: "ipam cidr usePodCidr any case", body: "ipam: {type: host-local, cidr: USEPODCIDR}\n"},
		{name: "ipam cidr IPv4 CIDR", body: "ipam: {type: host-local, cidr: 100.96.0.0/11}\n"},
		{name: "ipam cidr not a CIDR", body: "ipam: {type: host-local, cidr: 100.96.0.0}\n",
			want: field.ErrorList{field.Invalid(p("ipam", "cidr"), "100.96.0.0", `must be "usePodCidr", "usePodCidrIPv6" or a CIDR such as 100.96.0.0/11`)}},
		{name: "ipv4 pool and mode valid", body: "ipv4: {pool: ipip, mode: CrossSubnet}\n"},
		{name: "ipv4 pool unknown", body: "ipv4: {pool: gre}\n",
			want: field.ErrorList{field.NotSupported(p("ipv4", "pool"), "gre", []string{"ipip", "vxlan"})}},
		{name: "ipv4 mode unknown", body: "ipv4: {mode: Sometimes}\n",
			want: field.ErrorList{field.NotSupported(p("ipv4", "mode"), "Sometimes", []string{"Always", "Never", "CrossSubnet", "Off"})}},
		{name: "ipv4 vxlan pool with CrossSubnet", body: "ipv4: {pool: vxlan, mode: CrossSubnet}\n",
			want: field.ErrorList{field.Invalid(p("ipv4", "mode"), "CrossSubnet", `not supported with ipv4.pool: "vxlan", supported values: "Always", "Never"`)}},
		{name: "ipv4 vxlan pool with Never", body: "ipv4: {pool: vxlan, mode: Never}\n"},
		{name: "ipv4 empty autodetection means unset", body: "ipv4: {autoDetectionMethod: \"\"}\n"},
		{name: "ipv4 autodetection invalid", body: "ipv4: {autoDetectionMethod: nearest}\n",
			want: field.ErrorList{field.Invalid(p("ipv4", "autoDetectionMethod"), "nearest", "invalid option \"nearest\", supported options: can-reach, cidr, first-found, interface, kubernetes-internal-ip, skip-interface")}},
		{name: "ipv6 valid", families: ipv6Only, body: "ipv6: {pool: vxlan, mode: Always, sourceNATEnabled: true, autoDetectionMethod: \"cidr=2001:db8::/64\"}\n"},
		{name: "ipv6 autodetection with an IPv4 CIDR", families: ipv6Only, body: "ipv6: {autoDetectionMethod: \"cidr=10.0.0.0/8\"}\n",
			want: field.ErrorList{field.Invalid(p("ipv6", "autoDetectionMethod"), "cidr=10.0.0.0/8", `parameter "10.0.0.0/8" of option cidr is not an IPv6 CIDR`)}},
		{name: "vethMTU 0 is auto", body: "vethMTU: \"0\"\n"},
		{name: "vethMTU empty", body: "vethMTU: \"\"\n",
			want: field.ErrorList{field.Invalid(p("vethMTU"), "", `MTU cannot be empty; use "0" to auto-detect`)}},
		{name: "vethMTU not a number", body: "vethMTU: 1.5k\n",
			want: field.ErrorList{field.Invalid(p("vethMTU"), "1.5k", `must be an integer such as "1440", or "0" to auto-detect`)}},
		{name: "vethMTU negative", body: "vethMTU: \"-1\"\n",
			want: field.ErrorList{field.Invalid(p("vethMTU"), "-1", `MTU must be a positive integer, or "0" to auto-detect`)}},
		{name: "autoScaling modes", body: "autoScaling: {mode: static}\n"},
		{name: "autoScaling mode empty", body: "autoScaling: {mode: \"\"}\n",
			want: field.ErrorList{field.NotSupported(p("autoScaling", "mode"), "", []string{"cluster-proportional", "vpa", "static"})}},
		{name: "autoScaling mode unknown", body: "autoScaling: {mode: hpa}\n",
			want: field.ErrorList{field.NotSupported(p("autoScaling", "mode"), "hpa", []string{"cluster-proportional", "vpa", "static"})}},
		{name: "autoScaling resources valid", body: "autoScaling: {mode: static, resources: {node: {cpu: 100m, memory: 100Mi}, typha: {cpu: \"1\"}}}\n"},
		{name: "autoScaling resources unsupported, zero and negative", body: "autoScaling: {mode: vpa, resources: {node: {cpu: \"0\", nvidia.com/gpu: \"1\"}, typha: {memory: -100Mi}}}\n",
			want: field.ErrorList{
				field.Invalid(p("autoScaling", "resources", "node").Key("cpu"), "0", "must be specified and cannot be zero"),
				field.NotSupported(p("autoScaling", "resources", "node").Key("nvidia.com/gpu"), "nvidia.com/gpu", []string{"cpu", "memory"}),
				field.Invalid(p("autoScaling", "resources", "typha").Key("memory"), "-100Mi", "must be positive"),
			}},
		{name: "deprecated ipip valid", body: "ipip: Never\n"},
		{name: "deprecated ipip unknown", body: "ipip: Sometimes\n",
			want: field.ErrorList{field.NotSupported(p("ipip"), "Sometimes", []string{"Always", "Never", "CrossSubnet", "Off"})}},
		{name: "deprecated ipAutodetectionMethod empty (path keeps the JSON spelling)", body: "ipAutodetectionMethod: \"\"\n",
			want: field.ErrorList{field.Invalid(p("ipAutodetectionMethod"), "", "method cannot be empty; remove the field to use calico-node's default")}},
		{name: "deprecated ipAutodetectionMethod valid", body: "ipAutodetectionMethod: interface=eth.*\n"},
		{name: "serviceLoopPrevention valid", body: "serviceLoopPrevention: Drop\n"},
		{name: "serviceLoopPrevention unknown", body: "serviceLoopPrevention: drop\n",
			want: field.ErrorList{field.NotSupported(p("serviceLoopPrevention"), "drop", []string{"Disabled", "Drop", "Reject"})}},
		{name: "features without rules", body: `typha: {enabled: false}
ebpfDataplane: {enabled: true}
snatToUpstreamDNS: {enabled: false}
wireguardEncryption: true
birdExporter: {enabled: true}
multus: {enabled: true, installCNIPlugins: true}
`},
	})
}

func TestValidateNetworkConfigFixes(t *testing.T) {
	runNetworkConfigCases(t, nil, []networkConfigCase{
		{name: "ipv6 pool ipip is rejected (rendering cannot do it)", families: ipv6Only, body: "ipv6: {pool: ipip}\n",
			want: field.ErrorList{field.NotSupported(p("ipv6", "pool"), "ipip", []string{"vxlan"})}},
		{name: "ipv6 mode Off is rejected", families: dual, body: "ipv6: {mode: \"Off\"}\n",
			want: field.ErrorList{field.NotSupported(p("ipv6", "mode"), "Off", []string{"Always", "Never"})}},
		{name: "ipv6 mode CrossSubnet is rejected (IPv6 pools are VXLAN)", families: dual, body: "ipv6: {mode: CrossSubnet}\n",
			want: field.ErrorList{field.NotSupported(p("ipv6", "mode"), "CrossSubnet", []string{"Always", "Never"})}},
		{name: "ipv4 block on IPv6-only shoot", families: ipv6Only, body: "ipv4: {mode: Never}\n",
			want: field.ErrorList{field.Forbidden(p("ipv4"), "IPv4 configuration must not be specified if the shoot does not use IPv4 networking (this is an IPv6 single-stack shoot)")}},
		{name: "deprecated IPv4 fields on IPv6-only shoot", families: ipv6Only, body: "ipip: Always\nipAutodetectionMethod: first-found\n",
			want: field.ErrorList{
				field.Forbidden(p("ipip"), "IPv4 configuration must not be specified if the shoot does not use IPv4 networking (this is an IPv6 single-stack shoot)"),
				field.Forbidden(p("ipAutodetectionMethod"), "IPv4 configuration must not be specified if the shoot does not use IPv4 networking (this is an IPv6 single-stack shoot)"),
			}},
		{name: "ipv6 block on IPv4-only shoot", families: ipv4Only, body: "ipv6: {sourceNATEnabled: true}\n",
			want: field.ErrorList{field.Forbidden(p("ipv6"), "IPv6 configuration must not be specified if the shoot does not use IPv6 networking (this is an IPv4 single-stack shoot)")}},
		{name: "ipv6 block on shoot with default families", body: "ipv6: {mode: Never}\n",
			want: field.ErrorList{field.Forbidden(p("ipv6"), "IPv6 configuration must not be specified if the shoot does not use IPv6 networking (this is an IPv4 single-stack shoot)")}},
		{name: "both blocks on dual-stack", families: dual, body: "ipv4: {mode: Always}\nipv6: {mode: Never}\n"},
		{name: "ipam cidr of the wrong family", families: ipv6Only, body: "ipam: {type: host-local, cidr: 100.96.0.0/11}\n",
			want: field.ErrorList{field.Invalid(p("ipam", "cidr"), "100.96.0.0/11", "is an IPv4 subnet, but this is an IPv6 single-stack shoot")}},
		{name: "usePodCidr on IPv6 shoot", families: ipv6Only, body: "ipam: {cidr: usePodCidr}\n"},
		{name: "usePodCidrIPv6 on IPv6 shoot", families: ipv6Only, body: "ipam: {cidr: usePodCIDRIPv6}\n"},
		{name: "usePodCidrIPv6 on IPv4 shoot", families: ipv4Only, body: "ipam: {cidr: usePodCidrIPv6}\n",
			want: field.ErrorList{field.Invalid(p("ipam", "cidr"), "usePodCidrIPv6", "is an IPv6 subnet, but this is an IPv4 single-stack shoot")}},
		{name: "ipam cidr on dual-stack sets its family's range", families: dual, body: "ipam: {type: host-local, cidr: 2001:db8:1::/64}\n"},
		{name: "usePodCidr on dual-stack is the IPv4 range", families: dual, body: "ipam: {cidr: usePodCidr}\n"},
		{name: "ipam cidr with vxlan's calico-ipam", families: ipv4Only, body: "vxlan: {enabled: true}\nipam: {cidr: usePodCidr}\n",
			want: field.ErrorList{field.Invalid(p("ipam", "cidr"), "usePodCidr", `contradicts vxlan.enabled: true, which makes the IPAM "calico-ipam": the cidr is the host-local subnet, remove it`)}},
		{name: "vethMTU not canonical", body: "vethMTU: \"+1440\"\n",
			want: field.ErrorList{field.Invalid(p("vethMTU"), "+1440", `must be written as a plain integer: "1440"`)}},
		{name: "ipam cidr with calico-ipam", body: "ipam: {type: calico-ipam, cidr: usePodCidr}\n",
			want: field.ErrorList{field.Invalid(p("ipam", "cidr"), "usePodCidr", `contradicts ipam.type: "calico-ipam": the cidr is the host-local subnet; calico-ipam allocates from the IP pools, remove one of the two`)}},
		{name: "vethMTU out of range", body: "vethMTU: \"70000\"\n",
			want: field.ErrorList{field.Invalid(p("vethMTU"), "70000", `must be between 68 and 65535, or "0" to auto-detect`)}},
	})
}

func TestValidateNetworkConfigContradictions(t *testing.T) {
	runNetworkConfigCases(t, nil, []networkConfigCase{
		{name: "overlay on with ipv4 mode Never", body: "overlay: {enabled: true}\nipv4: {mode: Never}\n",
			want: field.ErrorList{field.Invalid(p("ipv4", "mode"), "Never", `contradicts overlay.enabled: true; an overlay encapsulates, use "Always" or "CrossSubnet" or remove the mode`)}},
		{name: "overlay on with ipv4 mode Off", body: "overlay: {enabled: true}\nipv4: {mode: \"Off\"}\n",
			want: field.ErrorList{field.Invalid(p("ipv4", "mode"), "Off", `contradicts overlay.enabled: true; an overlay encapsulates, use "Always" or "CrossSubnet" or remove the mode`)}},
		{name: "overlay on with ipv4 mode CrossSubnet is consistent", body: "overlay: {enabled: true}\nipv4: {mode: CrossSubnet}\n"},
		{name: "overlay on with deprecated ipip Never", body: "overlay: {enabled: true}\nipip: Never\n",
			want: field.ErrorList{field.Invalid(p("ipip"), "Never", `contradicts overlay.enabled: true; an overlay encapsulates, use "Always" or "CrossSubnet" or remove the mode`)}},
		{name: "overlay off with ipv4 mode Always", body: "overlay: {enabled: false}\nipv4: {mode: Always}\n",
			want: field.ErrorList{field.Invalid(p("ipv4", "mode"), "Always", `contradicts overlay.enabled: false; without an overlay nothing is encapsulated, use "Never" or remove the mode`)}},
		{name: "overlay off with ipv6 mode Always", families: ipv6Only, body: "overlay: {enabled: false}\nipv6: {mode: Always}\n",
			want: field.ErrorList{field.Invalid(p("ipv6", "mode"), "Always", `contradicts overlay.enabled: false; without an overlay nothing is encapsulated, use "Never" or remove the mode`)}},
		{name: "overlay on with ipv6 mode Never", families: dual, body: "overlay: {enabled: true}\nipv6: {mode: Never}\n",
			want: field.ErrorList{field.Invalid(p("ipv6", "mode"), "Never", `contradicts overlay.enabled: true; an overlay encapsulates, use "Always" or remove the mode`)}},
		{name: "vxlan on with overlay off", body: "overlay: {enabled: false}\nvxlan: {enabled: true}\n",
			want: field.ErrorList{field.Invalid(p("vxlan", "enabled"), true, "contradicts overlay.enabled: false; VXLAN is an overlay encapsulation")}},
		{name: "vxlan on with overlay on", body: "overlay: {enabled: true}\nvxlan: {enabled: true}\n"},
		{name: "vxlan on makes the pool vxlan, so no CrossSubnet", body: "vxlan: {enabled: true}\nipv4: {mode: CrossSubnet}\n",
			want: field.ErrorList{field.Invalid(p("ipv4", "mode"), "CrossSubnet", `not supported with vxlan.enabled: true (a VXLAN pool), supported values: "Always", "Never"`)}},
		{name: "backend vxlan on IPv6-only shoot with overlay and vxlan on", families: ipv6Only, body: "backend: vxlan\noverlay: {enabled: true}\nvxlan: {enabled: true}\n",
			want: field.ErrorList{field.Invalid(p("backend"), "vxlan", `contradicts overlay.enabled: true, which implies backend "bird"; remove backend`)}},
		{name: "deprecated ipip differs from ipv4.mode", body: "ipip: Always\nipv4: {mode: Never}\n",
			want: field.ErrorList{field.Invalid(p("ipip"), "Always", `contradicts ipv4.mode: "Never"; the deprecated ipip is only a fallback for ipv4.mode, remove it`)}},
		{name: "deprecated ipip equal to ipv4.mode", body: "ipip: Never\nipv4: {mode: Never}\n"},
		{name: "deprecated ipAutodetectionMethod differs", body: "ipAutodetectionMethod: first-found\nipv4: {autoDetectionMethod: \"interface=eth0\"}\n",
			want: field.ErrorList{field.Invalid(p("ipAutodetectionMethod"), "first-found", `contradicts ipv4.autoDetectionMethod: "interface=eth0"; the deprecated ipAutodetectionMethod is only a fallback for ipv4.autoDetectionMethod, remove it`)}},
		{name: "deprecated ipAutodetectionMethod with empty new field", body: "ipAutodetectionMethod: first-found\nipv4: {autoDetectionMethod: \"\"}\n"},
		{name: "vxlan on with host-local on IPv4", families: ipv4Only, body: "vxlan: {enabled: true}\nipam: {type: host-local}\n",
			want: field.ErrorList{field.Invalid(p("ipam", "type"), "host-local", `contradicts vxlan.enabled: true, which needs "calico-ipam" on IPv4 single-stack shoots; use "calico-ipam" or remove ipam.type`)}},
		{name: "vxlan on with host-local on dual-stack", families: dual, body: "vxlan: {enabled: true}\nipam: {type: host-local}\n"},
		{name: "ipv4 pool ipip with vxlan on", body: "vxlan: {enabled: true}\nipv4: {pool: ipip}\n",
			want: field.ErrorList{field.Invalid(p("ipv4", "pool"), "ipip", `contradicts vxlan.enabled: true, which makes the IPv4 pool "vxlan"`)}},
		{name: "ipv4 pool vxlan with vxlan off", body: "overlay: {enabled: true}\nvxlan: {enabled: false}\nipv4: {pool: vxlan}\n",
			want: field.ErrorList{field.Invalid(p("ipv4", "pool"), "vxlan", `contradicts vxlan.enabled: false; set vxlan.enabled: true or use pool "ipip"`)}},
		{name: "backend none with overlay on", body: "backend: none\noverlay: {enabled: true}\n",
			want: field.ErrorList{field.Invalid(p("backend"), "none", `contradicts overlay.enabled: true, which implies backend "bird"; remove backend`)}},
		{name: "backend bird with overlay and vxlan on", body: "backend: bird\noverlay: {enabled: true}\nvxlan: {enabled: true}\n",
			want: field.ErrorList{field.Invalid(p("backend"), "bird", `contradicts overlay.enabled: true with vxlan.enabled: true, which implies backend "vxlan"; remove backend`)}},
		{name: "backend bird with overlay off", body: "backend: bird\noverlay: {enabled: false}\n",
			want: field.ErrorList{field.Invalid(p("backend"), "bird", `contradicts overlay.enabled: false, which implies backend "none"; remove backend`)}},
		{name: "backend bird with overlay off and createPodRoutes", body: "backend: bird\noverlay: {enabled: false, createPodRoutes: true}\n"},
		{name: "backend none with overlay off and createPodRoutes", body: "backend: none\noverlay: {enabled: false, createPodRoutes: true}\n",
			want: field.ErrorList{field.Invalid(p("backend"), "none", `contradicts overlay.enabled: false with overlay.createPodRoutes: true, which implies backend "bird"; remove backend`)}},
		{name: "backend none with ipv4 mode Always", body: "backend: none\nipv4: {mode: Always}\n",
			want: field.ErrorList{field.Invalid(p("ipv4", "mode"), "Always", `contradicts backend: "none"; backend none does not encapsulate, use "Never" or remove the mode`)}},
		{name: "backend vxlan with vxlan off", body: "backend: vxlan\nvxlan: {enabled: false}\n",
			want: field.ErrorList{field.Invalid(p("backend"), "vxlan", "contradicts vxlan.enabled: false")}},
		{name: "inert settings are accepted", body: "overlay: {enabled: true, createPodRoutes: true}\nsnatToUpstreamDNS: {enabled: true}\nautoScaling: {mode: cluster-proportional, resources: {node: {cpu: 100m}}}\nmultus: {enabled: false, installCNIPlugins: true}\n"},
	})
}

// TestValidateNetworkConfigPathPrefix checks that every path is rooted at the given prefix, including
// the field names inside messages.
func TestValidateNetworkConfigPathPrefix(t *testing.T) {
	pc := field.NewPath("spec", "networking", "providerConfig")
	runNetworkConfigCases(t, pc, []networkConfigCase{
		{name: "contradiction names both full paths", body: "overlay: {enabled: true}\nipv4: {mode: Never}\n",
			want: field.ErrorList{field.Invalid(pc.Child("ipv4", "mode"), "Never", `contradicts spec.networking.providerConfig.overlay.enabled: true; an overlay encapsulates, use "Always" or "CrossSubnet" or remove the mode`)}},
		{name: "resource key", body: "autoScaling: {mode: static, resources: {typha: {storage: 1Gi}}}\n",
			want: field.ErrorList{field.NotSupported(pc.Child("autoScaling", "resources", "typha").Key("storage"), "storage", []string{"cpu", "memory"})}},
	})
}
