package rules_test

import (
	"net"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	"github.com/calico-pilot/calico-pilot/internal/rules"
)

// Direct table tests of the rule functions: for each input, the decided value and which rule
// reports which field (rule ID and field path, as literals).

var root = field.NewPath("spec", "networking", "providerConfig")

// reported lists each error as "rule-id field".
func reported(t *testing.T, errs field.ErrorList) []string {
	t.Helper()
	var out []string
	for _, r := range ruleErrors(t, errs) {
		out = append(out, string(r.Rule)+" "+r.Field)
	}
	return out
}

func checkReported(t *testing.T, errs field.ErrorList, want []string) {
	t.Helper()
	if d := cmp.Diff(want, reported(t, errs)); d != "" {
		t.Errorf("errors (-want +got):\n%s", d)
	}
}

const pc = "spec.networking.providerConfig."

// stringRuleCase is a row of a rule that decides a string: the config body, the value decided and
// the errors reported.
type stringRuleCase struct {
	body, want string
	errs       []string
}

// runStringRule runs rule (called name in messages) on every case's config.
func runStringRule(t *testing.T, name string, rule func(*calicov1alpha1.NetworkConfig, *field.Path) (string, field.ErrorList), tests []stringRuleCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			got, errs := rule(config(t, tt.body), root)
			if got != tt.want {
				t.Errorf("%s = %q, want %q", name, got, tt.want)
			}
			checkReported(t, errs, tt.errs)
		})
	}
}

// familyRuleCase is a row of a rule that decides a T for the shoot's IP families: the families,
// the config body, the value decided and the errors reported.
type familyRuleCase[T any] struct {
	name string
	fam  rules.Families
	body string
	want T
	errs []string
}

// runFamilyRule runs rule (called name in messages) on every case's config and families.
func runFamilyRule[T any](t *testing.T, name string, rule func(*calicov1alpha1.NetworkConfig, rules.Families, *field.Path) (T, field.ErrorList), tests []familyRuleCase[T]) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := rule(config(t, tt.body), tt.fam, root)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("%s (-want +got):\n%s", name, d)
			}
			checkReported(t, errs, tt.errs)
		})
	}
}

func TestVethMTU(t *testing.T) {
	runStringRule(t, "VethMTU", rules.VethMTU, []stringRuleCase{
		{body: "", want: "0"},
		{body: `vethMTU: "0"`, want: "0"},
		{body: `vethMTU: "1440"`, want: "1440"},
		{body: `vethMTU: "68"`, want: "68"},
		{body: `vethMTU: "65535"`, want: "65535"},
		{body: `vethMTU: ""`, want: "", errs: []string{"vethMTU.format " + pc + "vethMTU"}},
		{body: `vethMTU: "abc"`, want: "abc", errs: []string{"vethMTU.format " + pc + "vethMTU"}},
		{body: `vethMTU: "-1"`, want: "-1", errs: []string{"vethMTU.format " + pc + "vethMTU"}},
		{body: `vethMTU: "01440"`, want: "01440", errs: []string{"vethMTU.plain " + pc + "vethMTU"}},
		{body: `vethMTU: "+1440"`, want: "+1440", errs: []string{"vethMTU.plain " + pc + "vethMTU"}},
		{body: `vethMTU: "67"`, want: "67", errs: []string{"vethMTU.range " + pc + "vethMTU"}},
		{body: `vethMTU: "65536"`, want: "65536", errs: []string{"vethMTU.range " + pc + "vethMTU"}},
	})
}

func TestServiceLoopPrevention(t *testing.T) {
	runStringRule(t, "ServiceLoopPrevention", rules.ServiceLoopPrevention, []stringRuleCase{
		{body: "", want: ""},
		{body: "serviceLoopPrevention: Drop", want: "Drop"},
		{body: "serviceLoopPrevention: Reject", want: "Reject"},
		{body: "serviceLoopPrevention: Disabled", want: "Disabled"},
		{body: "serviceLoopPrevention: drop", want: "drop", errs: []string{"serviceLoopPrevention.supported " + pc + "serviceLoopPrevention"}},
	})
}

func TestKubeProxy(t *testing.T) {
	kp := field.NewPath("spec", "kubernetes", "kubeProxy", "enabled")
	tests := []struct {
		name      string
		body      string
		kubeProxy *bool
		errs      []string
	}{
		{name: "kube-proxy unset", body: ""},
		{name: "kube-proxy on", kubeProxy: ptr.To(true)},
		{name: "kube-proxy off without eBPF", kubeProxy: ptr.To(false), errs: []string{"kubeProxy.ebpf spec.kubernetes.kubeProxy.enabled"}},
		{name: "kube-proxy off with eBPF off", body: "ebpfDataplane: {enabled: false}", kubeProxy: ptr.To(false), errs: []string{"kubeProxy.ebpf spec.kubernetes.kubeProxy.enabled"}},
		{name: "kube-proxy off with eBPF", body: "ebpfDataplane: {enabled: true}", kubeProxy: ptr.To(false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkReported(t, rules.KubeProxy(config(t, tt.body), tt.kubeProxy, kp, root), tt.errs)
		})
	}
	if errs := rules.KubeProxy(nil, ptr.To(false), kp, root); len(errs) != 1 {
		t.Errorf("KubeProxy without a config = %v, want the kubeProxy.ebpf error", errs)
	}
}

func TestAutoScaling(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		wantMode string
		wantNode string // cpu/memory
		errs     []string
	}{
		{name: "unset", wantMode: "cluster-proportional", wantNode: "0/0"},
		{name: "vpa", body: "autoScaling: {mode: vpa}", wantMode: "vpa", wantNode: "0/0"},
		{name: "static with resources", body: "autoScaling: {mode: static, resources: {node: {cpu: 100m, memory: 300Mi}}}", wantMode: "static", wantNode: "100m/300Mi"},
		{name: "unknown mode", body: "autoScaling: {mode: hpa}", wantMode: "hpa", wantNode: "0/0", errs: []string{"autoScaling.mode.supported " + pc + "autoScaling.mode"}},
		{name: "unknown resource", body: "autoScaling: {mode: static, resources: {node: {gpu: \"1\"}}}", wantMode: "static", wantNode: "0/0",
			errs: []string{"autoScaling.resources.name " + pc + "autoScaling.resources.node[gpu]"}},
		{name: "zero and negative", body: "autoScaling: {mode: static, resources: {node: {cpu: \"0\"}, typha: {memory: -1Mi}}}", wantMode: "static", wantNode: "0/0",
			errs: []string{"autoScaling.resources.amount " + pc + "autoScaling.resources.node[cpu]", "autoScaling.resources.amount " + pc + "autoScaling.resources.typha[memory]"}},
		{name: "too large", body: "autoScaling: {mode: static, resources: {node: {memory: 9Ei}}}", wantMode: "static", wantNode: "0/9223372036854775807", // the largest int64, which is why the rule refuses it
			errs: []string{"autoScaling.resources.range " + pc + "autoScaling.resources.node[memory]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := rules.AutoScaling(config(t, tt.body), root)
			if string(got.Mode) != tt.wantMode {
				t.Errorf("mode = %q, want %q", got.Mode, tt.wantMode)
			}
			if node := got.Node.CPU.String() + "/" + got.Node.Memory.String(); node != tt.wantNode {
				t.Errorf("node resources = %s, want %s", node, tt.wantNode)
			}
			checkReported(t, errs, tt.errs)
		})
	}
}

func TestShootVPA(t *testing.T) {
	vpa := field.NewPath("spec", "kubernetes", "verticalPodAutoscaler", "enabled")
	tests := []struct {
		name       string
		body       string
		vpaEnabled bool
		errs       []string
	}{
		{name: "vpa mode, shoot VPA on", body: "autoScaling: {mode: vpa}", vpaEnabled: true},
		{name: "vpa mode, shoot VPA off", body: "autoScaling: {mode: vpa}", errs: []string{"autoScaling.mode.shoot-vpa " + pc + "autoScaling.mode"}},
		{name: "static mode, shoot VPA off", body: "autoScaling: {mode: static}"},
		{name: "no autoScaling, shoot VPA off", body: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkReported(t, rules.ShootVPA(config(t, tt.body), tt.vpaEnabled, vpa, root), tt.errs)
		})
	}
}

func TestBackend(t *testing.T) {
	runFamilyRule(t, "Backend", rules.Backend, []familyRuleCase[calicov1alpha1.Backend]{
		{name: "IPv4 default", fam: ipv4, want: "bird"},
		{name: "IPv6 default routes natively", fam: ipv6, want: "none"},
		{name: "dual-stack default routes natively", fam: dual, want: "none"},
		{name: "overlay on", fam: ipv4, body: "overlay: {enabled: true}", want: "bird"},
		{name: "overlay on with vxlan", fam: ipv4, body: "overlay: {enabled: true}\nvxlan: {enabled: true}", want: "vxlan"},
		{name: "overlay on with vxlan, IPv6 only", fam: ipv6, body: "overlay: {enabled: true}\nvxlan: {enabled: true}", want: "bird"},
		{name: "overlay off", fam: ipv4, body: "overlay: {enabled: false}", want: "none"},
		{name: "overlay off with pod routes", fam: ipv4, body: "overlay: {enabled: false, createPodRoutes: true}", want: "bird"},
		{name: "explicit backend without overlay", fam: ipv4, body: "backend: vxlan", want: "vxlan"},
		{name: "explicit backend none", fam: ipv4, body: "backend: none", want: "none"},
		{name: "backend agrees with overlay", fam: ipv4, body: "overlay: {enabled: false}\nbackend: none", want: "none"},
		{name: "backend contradicts overlay", fam: ipv4, body: "overlay: {enabled: false}\nbackend: bird", want: "none",
			errs: []string{"backend.overlay " + pc + "backend"}},
		{name: "unknown backend", fam: ipv4, body: "backend: calico", want: "calico", errs: []string{"backend.supported " + pc + "backend"}},
		{name: "unknown backend with overlay", fam: ipv4, body: "overlay: {enabled: true}\nbackend: calico", want: "bird", errs: []string{"backend.supported " + pc + "backend"}},
		{name: "vxlan backend with vxlan disabled", fam: ipv4, body: "backend: vxlan\nvxlan: {enabled: false}", want: "vxlan",
			errs: []string{"backend.vxlan-disabled " + pc + "backend"}},
		{name: "vxlan with overlay off", fam: ipv4, body: "overlay: {enabled: false}\nvxlan: {enabled: true}", want: "none",
			errs: []string{"vxlan.overlay-disabled " + pc + "vxlan.enabled"}},
	})
}

func TestIPv4Pool(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		backend string
		want    rules.Pool
		encaps  bool
		errs    []string
	}{
		{name: "default", backend: "bird", want: rules.Pool{Encapsulation: "ipip", Mode: "Always"}, encaps: true},
		{name: "vxlan", body: "vxlan: {enabled: true}", backend: "vxlan", want: rules.Pool{Encapsulation: "vxlan", Mode: "Always"}, encaps: true},
		{name: "overlay off", body: "overlay: {enabled: false}", backend: "none", want: rules.Pool{Encapsulation: "ipip", Mode: "Never"}},
		{name: "backend none", body: "backend: none", backend: "none", want: rules.Pool{Encapsulation: "ipip", Mode: "Never"}},
		{name: "cross-subnet", body: "ipv4: {mode: CrossSubnet}", backend: "bird", want: rules.Pool{Encapsulation: "ipip", Mode: "CrossSubnet"}, encaps: true},
		{name: "deprecated ipip", body: "ipip: CrossSubnet", backend: "bird", want: rules.Pool{Encapsulation: "ipip", Mode: "CrossSubnet"}, encaps: true},
		{name: "overlay on, mode Never", body: "overlay: {enabled: true}\nipv4: {mode: Never}", backend: "bird", want: rules.Pool{Encapsulation: "ipip", Mode: "Always"}, encaps: true,
			errs: []string{"ipv4.mode.overlay " + pc + "ipv4.mode"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := rules.IPv4Pool(config(t, tt.body), ipv4, calicoBackend(tt.backend), root)
			if got != tt.want {
				t.Errorf("IPv4Pool = %+v, want %+v", got, tt.want)
			}
			if got.Encapsulates() != tt.encaps {
				t.Errorf("Encapsulates = %t, want %t", got.Encapsulates(), tt.encaps)
			}
			checkReported(t, errs, tt.errs)
		})
	}
}

func TestIPAM(t *testing.T) {
	runFamilyRule(t, "IPAM", rules.IPAM, []familyRuleCase[rules.IPAMSettings]{
		{name: "IPv4 default", fam: ipv4, want: rules.IPAMSettings{Type: "host-local", Subnet: "usePodCidr"}},
		{name: "IPv6 default", fam: ipv6, want: rules.IPAMSettings{Type: "host-local", Subnet: "usePodCidrIPv6"}},
		{name: "dual-stack ranges", fam: dual, want: rules.IPAMSettings{Type: "host-local", RangeIPv4: "usePodCidr", RangeIPv6: "usePodCidrIPv6"}},
		{name: "vxlan on IPv4 uses calico-ipam", fam: ipv4, body: "vxlan: {enabled: true}", want: rules.IPAMSettings{Type: "calico-ipam", Subnet: "usePodCidr"}},
		{name: "vxlan on dual-stack keeps host-local", fam: dual, body: "vxlan: {enabled: true}", want: rules.IPAMSettings{Type: "host-local", RangeIPv4: "usePodCidr", RangeIPv6: "usePodCidrIPv6"}},
		{name: "explicit calico-ipam", fam: ipv4, body: "ipam: {type: calico-ipam}", want: rules.IPAMSettings{Type: "calico-ipam", Subnet: "usePodCidr"}},
		{name: "unknown type", fam: ipv4, body: "ipam: {type: dhcp}", want: rules.IPAMSettings{Type: "dhcp", Subnet: "usePodCidr"},
			errs: []string{"ipam.type.supported " + pc + "ipam.type"}},
	})
}

func TestAutoDetectionMethod(t *testing.T) {
	p := field.NewPath("ipv4", "autoDetectionMethod")
	method := "autodetection.method ipv4.autoDetectionMethod"
	family := "autodetection.method-family ipv4.autoDetectionMethod"
	tests := []struct {
		method string
		family gardencorev1beta1.IPFamily
		errs   []string
	}{
		{method: "first-found", family: "IPv4"},
		{method: "kubernetes-internal-ip", family: "IPv4"},
		{method: "first-found=x", family: "IPv4", errs: []string{method}},
		{method: "", family: "IPv4", errs: []string{method}},
		{method: "cidr=10.250.0.0/16", family: "IPv4"},
		{method: "cidr=10.250.0.0/16,10.251.0.0/16", family: "IPv4"},
		{method: "cidr=2001:db8::/64", family: "IPv6"},
		{method: "cidr=2001:db8::/64", family: "IPv4", errs: []string{family}},
		{method: "cidr=10.250.0.0/16", family: "IPv6", errs: []string{family}},
		{method: "cidr=", family: "IPv4", errs: []string{method}},
		{method: "cidr=10.250.0.0", family: "IPv4", errs: []string{method}},
		{method: "can-reach=8.8.8.8", family: "IPv4"},
		{method: "can-reach", family: "IPv4", errs: []string{method}},
		{method: "interface=eth.*", family: "IPv4"},
		{method: "skip-interface=docker.*", family: "IPv4"},
		{method: "interface=(", family: "IPv4", errs: []string{method}},
		{method: "magic", family: "IPv4", errs: []string{method}},
	}
	for _, tt := range tests {
		t.Run(string(tt.family)+" "+tt.method, func(t *testing.T) {
			checkReported(t, rules.AutoDetectionMethod(tt.method, tt.family, p), tt.errs)
		})
	}
}

func TestFamilies(t *testing.T) {
	tests := []struct {
		in   []gardencorev1beta1.IPFamily
		want rules.FamilySet
		dual bool
	}{
		{in: nil, want: rules.FamilySet{IPv4: true}},
		{in: []gardencorev1beta1.IPFamily{"IPv4"}, want: rules.FamilySet{IPv4: true}},
		{in: []gardencorev1beta1.IPFamily{"IPv6"}, want: rules.FamilySet{IPv6: true}},
		{in: []gardencorev1beta1.IPFamily{"IPv6", "IPv4"}, want: rules.FamilySet{IPv4: true, IPv6: true}, dual: true},
		{in: []gardencorev1beta1.IPFamily{"IPv5"}, want: rules.FamilySet{}},
	}
	for _, tt := range tests {
		got := rules.FamilySetOf(tt.in)
		if got != tt.want || got.DualStack() != tt.dual {
			t.Errorf("FamilySetOf(%v) = %+v (dual-stack %t), want %+v (%t)", tt.in, got, got.DualStack(), tt.want, tt.dual)
		}
		if f := rules.FamiliesOf(tt.in); f.Requested != got || f.Active != got {
			t.Errorf("FamiliesOf(%v) = %+v, want requested = active = %+v", tt.in, f, got)
		}
	}
	for cidr, want := range map[string]gardencorev1beta1.IPFamily{"10.0.0.0/8": "IPv4", "2001:db8::/32": "IPv6", "::ffff:10.0.0.0/104": "IPv4"} {
		_, n, err := net.ParseCIDR(cidr)
		if err != nil {
			t.Fatal(err)
		}
		if got := rules.CIDRFamily(n); got != want {
			t.Errorf("CIDRFamily(%s) = %s, want %s", cidr, got, want)
		}
	}
}

func calicoBackend(b string) calicov1alpha1.Backend { return calicov1alpha1.Backend(b) }

func TestIPv6Pool(t *testing.T) {
	runFamilyRule(t, "IPv6Pool", rules.IPv6Pool, []familyRuleCase[rules.Pool]{
		{name: "default", fam: ipv6, want: rules.Pool{Encapsulation: "vxlan", Mode: "Never"}},
		{name: "mode Always", fam: ipv6, body: "ipv6: {mode: Always}", want: rules.Pool{Encapsulation: "vxlan", Mode: "Always"}},
		{name: "pool ipip", fam: ipv6, body: "ipv6: {pool: ipip}", want: rules.Pool{Encapsulation: "vxlan", Mode: "Never"},
			errs: []string{"ipv6.pool.supported " + pc + "ipv6.pool"}},
		{name: "not judged on IPv4 shoots", fam: ipv4, body: "ipv6: {pool: ipip, mode: \"Off\"}", want: rules.Pool{Encapsulation: "vxlan", Mode: "Off"}},
		{name: "mode Off", fam: ipv6, body: "ipv6: {mode: \"Off\"}", want: rules.Pool{Encapsulation: "vxlan", Mode: "Off"},
			errs: []string{"ipv6.mode.supported " + pc + "ipv6.mode"}},
		{name: "CrossSubnet without pool takes the overlay's mode", fam: ipv6, body: "overlay: {enabled: true}\nipv6: {mode: CrossSubnet}", want: rules.Pool{Encapsulation: "vxlan", Mode: "Always"},
			errs: []string{"ipv6.mode.cross-subnet " + pc + "ipv6.mode"}},
		{name: "Never with overlay on", fam: dual, body: "overlay: {enabled: true}\nipv6: {mode: Never}", want: rules.Pool{Encapsulation: "vxlan", Mode: "Always"},
			errs: []string{"ipv6.mode.overlay " + pc + "ipv6.mode"}},
		{name: "Always with overlay off", fam: dual, body: "overlay: {enabled: false}\nipv6: {mode: Always}", want: rules.Pool{Encapsulation: "vxlan", Mode: "Never"},
			errs: []string{"ipv6.mode.overlay " + pc + "ipv6.mode"}},
	})
}

// TestRatchet: errors of the reference's own rules and errors without a rule stay errors; errors of
// rules beyond the reference become findings with the rule's action, in order.
func TestRatchet(t *testing.T) {
	mtu, mtuErrs := rules.VethMTU(config(t, `vethMTU: "01440"`), root) // beyond the reference
	_, modeErrs := rules.ServiceLoopPrevention(config(t, "serviceLoopPrevention: drop"), root)
	decoding := field.Invalid(root.Child("x"), "y", "decoding, not a rule")
	errs := append(append(field.ErrorList{decoding}, mtuErrs...), modeErrs...)
	hard, findings := rules.Ratchet(errs)
	if d := cmp.Diff([]string{"serviceLoopPrevention.supported " + pc + "serviceLoopPrevention"}, reported(t, hard[1:])); d != "" || hard[0] != decoding {
		t.Errorf("errors kept (-want +got):\n%s (first %v)", d, hard[0])
	}
	if len(findings) != 1 {
		t.Fatalf("findings = %+v, want one", findings)
	}
	f := findings[0]
	if string(f.Rule) != "vethMTU.plain" || f.Field != pc+"vethMTU" || f.Value != mtu || f.Action != "the MTU is written as given, as the reference did" {
		t.Errorf("finding = %+v", f)
	}
	if !rules.BeyondReference(mtuErrs[0]) || rules.BeyondReference(modeErrs[0]) || rules.BeyondReference(decoding) {
		t.Error("BeyondReference does not tell the reference's rules from the others")
	}
	if rules.RatchetAction("serviceLoopPrevention.supported") != "" {
		t.Error("a reference rule has a ratchet action")
	}
}
