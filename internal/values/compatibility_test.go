package values_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/rules"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

func mustConfig(t *testing.T, body string) *calicov1alpha1.NetworkConfig {
	t.Helper()
	cfg := &calicov1alpha1.NetworkConfig{}
	if err := yaml.UnmarshalStrict([]byte(body), cfg); err != nil {
		t.Fatalf("config %q: %v", body, err)
	}
	return cfg
}

type finding struct {
	Kind  rules.FindingKind
	Field string
}

func findings(o values.Options) []finding {
	var out []finding
	for _, f := range o.Findings {
		out = append(out, finding{f.Kind, f.Field})
	}
	return out
}

// The contradictory configs of issue 10 that the reference accepted: without ratcheting Resolve
// refuses them; with it they resolve to what the reference deployed, with a finding per field.
func TestRatchetReferenceAcceptedConfigs(t *testing.T) {
	pc := "spec.networking.providerConfig."
	tests := []struct {
		name   string
		config string
		want   func(values.Options) string // "" when the deployed value is the reference's
		found  []finding
	}{
		{
			name:   "calico-ipam with cidr",
			config: `{ipam: {type: calico-ipam, cidr: usePodCidr}}`,
			want: func(o values.Options) string {
				if o.IPAM.Type != "calico-ipam" || o.IPAM.UsePodCIDR {
					return "want calico-ipam without USE_POD_CIDR"
				}
				return ""
			},
			found: []finding{{rules.FindingContradictory, pc + "ipam.cidr"}},
		},
		{
			name:   "overlay off with backend bird",
			config: `{overlay: {enabled: false}, backend: bird}`,
			want: func(o values.Options) string {
				if o.Backend != "none" || o.KubeControllers || o.IPv4Pool.Mode != "Never" {
					return "want backend none, no kube-controllers, mode Never"
				}
				return ""
			},
			found: []finding{{rules.FindingContradictory, pc + "backend"}},
		},
		{
			name:   "overlay on with ipv4 mode Never",
			config: `{overlay: {enabled: true}, ipv4: {mode: Never}}`,
			want: func(o values.Options) string {
				if o.IPv4Pool.Mode != "Always" || o.FelixIPIPEnabled == nil || !*o.FelixIPIPEnabled {
					return "want mode Always with IPIP on"
				}
				return ""
			},
			found: []finding{{rules.FindingContradictory, pc + "ipv4.mode"}},
		},
		{
			name:   "vxlan with host-local",
			config: `{vxlan: {enabled: true}, ipam: {type: host-local}}`,
			want: func(o values.Options) string {
				if o.IPAM.Type != "calico-ipam" {
					return "want calico-ipam"
				}
				return ""
			},
			found: []finding{{rules.FindingContradictory, pc + "ipam.type"}},
		},
		{
			name:   "ipip disagreeing with ipv4.mode",
			config: `{ipip: Never, ipv4: {mode: CrossSubnet}}`,
			want: func(o values.Options) string {
				if o.IPv4Pool.Mode != "CrossSubnet" {
					return "want ipv4.mode's CrossSubnet"
				}
				return ""
			},
			found: []finding{{rules.FindingContradictory, pc + "ipip"}},
		},
		{
			name:   "vpa without the shoot's VPA",
			config: `{autoScaling: {mode: vpa}}`,
			want: func(o values.Options) string {
				if o.AutoScaling.NodeVPA || !o.AutoScaling.NodeCPVA {
					return "want the cluster-proportional set-up"
				}
				return ""
			},
			found: []finding{{rules.FindingContradictory, pc + "autoScaling.mode"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			facts := ipv4Facts()
			if tt.name == "vpa without the shoot's VPA" {
				facts.VPAEnabled = false
			}
			in := values.Inputs{Config: mustConfig(t, tt.config), Cluster: facts}
			if _, errs := values.Resolve(in); len(errs) == 0 {
				t.Fatal("Resolve without Ratchet accepted the config; want the beyond-reference error")
			}
			in.Ratchet = true
			o, errs := values.Resolve(in)
			if len(errs) > 0 {
				t.Fatalf("Resolve with Ratchet: %v", errs)
			}
			if msg := tt.want(o); msg != "" {
				t.Errorf("%s; got %+v", msg, project(o))
			}
			if diff := cmp.Diff(tt.found, findings(o)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			for _, f := range o.Findings {
				if f.Action == "" || f.Detail == "" || f.Rule == "" {
					t.Errorf("finding without rule, detail or action: %+v", f)
				}
			}
		})
	}
}

// A reference rule stays an error when ratcheting.
func TestRatchetKeepsReferenceRules(t *testing.T) {
	in := values.Inputs{Config: mustConfig(t, `{backend: calico}`), Cluster: ipv4Facts(), Settings: values.Settings{Ratchet: true}}
	_, errs := values.Resolve(in)
	want := field.ErrorList{field.NotSupported(field.NewPath("spec", "networking", "providerConfig", "backend"), "calico", []string{"bird", "none", "vxlan"}).WithOrigin("backend.supported")}
	if diff := cmp.Diff(want.ToAggregate().Error(), errs.ToAggregate().Error()); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// Compatibility Reference renders what the reference rendered for valid configs whose fields it
// ignored; Native honours them.
func TestCompatibilityReference(t *testing.T) {
	pc := "spec.networking.providerConfig."
	tests := []struct {
		name         string
		config       string
		facts        func() values.ClusterFacts
		native, ref  func(values.Options) any
		wantN, wantR any
		found        []finding
	}{
		{
			name:   "explicit CrossSubnet with an overlay",
			config: `{overlay: {enabled: true}, ipv4: {mode: CrossSubnet}}`,
			facts:  ipv4Facts,
			native: func(o values.Options) any { return o.IPv4Pool.Mode }, wantN: "CrossSubnet", wantR: "Always",
			found: []finding{{rules.FindingIgnored, pc + "ipv4.mode"}},
		},
		{
			name:   "explicit autodetection with a node network",
			config: `{ipv4: {autoDetectionMethod: "interface=eth0"}}`,
			facts:  ipv4Facts,
			native: func(o values.Options) any { return o.IPv4AutoDetectionMethod }, wantN: "interface=eth0", wantR: "cidr=10.250.0.0/16",
			found: []finding{{rules.FindingIgnored, pc + "ipv4.autoDetectionMethod"}},
		},
		{
			name:   "explicit autodetection without a node network",
			config: `{ipv4: {autoDetectionMethod: "interface=eth0"}}`,
			facts:  func() values.ClusterFacts { f := ipv4Facts(); f.NodeCIDR = ""; return f },
			native: func(o values.Options) any { return o.IPv4AutoDetectionMethod }, wantN: "interface=eth0", wantR: "interface=eth0",
		},
		{
			name:   "deprecated ipip",
			config: `{ipip: CrossSubnet}`,
			facts:  ipv4Facts,
			native: func(o values.Options) any { return o.IPv4Pool.Mode }, wantN: "CrossSubnet", wantR: "Always",
			found: []finding{{rules.FindingIgnored, pc + "ipip"}},
		},
		{
			name:   "deprecated ipAutodetectionMethod",
			config: `{ipAutodetectionMethod: "can-reach=8.8.8.8"}`,
			facts:  ipv4Facts,
			native: func(o values.Options) any { return o.IPv4AutoDetectionMethod }, wantN: "can-reach=8.8.8.8", wantR: "cidr=10.250.0.0/16",
			found: []finding{{rules.FindingIgnored, pc + "ipAutodetectionMethod"}},
		},
		{
			name:   "typha requests in vpa mode",
			config: `{autoScaling: {mode: vpa, resources: {typha: {cpu: 50m, memory: 64Mi}}}}`,
			facts:  ipv4Facts,
			native: func(o values.Options) any {
				return o.AutoScaling.TyphaRequests.CPU.String() + "/" + o.AutoScaling.TyphaMinAllowed.CPU.String()
			},
			wantN: "50m/50m", wantR: "200m/50m",
			found: []finding{{rules.FindingIgnored, pc + "autoScaling.resources.typha"}},
		},
		{
			name:   "ipv6 mode Always without an overlay setting",
			config: `{ipv6: {mode: Always}}`,
			facts:  dualFacts,
			native: func(o values.Options) any { return o.IPv6Pool.Mode }, wantN: "Always", wantR: "Never",
			found: []finding{{rules.FindingIgnored, pc + "ipv6.mode"}},
		},
		{
			name:   "a config without ignored fields",
			config: `{overlay: {enabled: true}, ipv4: {mode: Always}}`,
			facts:  ipv4Facts,
			native: func(o values.Options) any { return o.IPv4Pool.Mode }, wantN: "Always", wantR: "Always",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := values.Inputs{Config: mustConfig(t, tt.config), Cluster: tt.facts(), Settings: values.Settings{Ratchet: true}}
			native, errs := values.Resolve(in)
			if len(errs) > 0 {
				t.Fatalf("Native: %v", errs)
			}
			if got := tt.native(native); got != tt.wantN {
				t.Errorf("Native: got %v, want %v", got, tt.wantN)
			}
			if len(native.Findings) != 0 {
				t.Errorf("Native findings: %v", native.Findings)
			}
			in.Compatibility = calicov1alpha1.CompatibilityReference
			ref, errs := values.Resolve(in)
			if len(errs) > 0 {
				t.Fatalf("Reference: %v", errs)
			}
			if got := tt.native(ref); got != tt.wantR {
				t.Errorf("Reference: got %v, want %v", got, tt.wantR)
			}
			if diff := cmp.Diff(tt.found, findings(ref)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}
