package decode

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation/field"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
)

func TestNetworkConfig(t *testing.T) {
	ptr := func(s string) *string { return &s }
	backend := calicov1alpha1.Backend("bird")
	mode := calicov1alpha1.PoolMode("Never")
	cpu := resource.MustParse("100m")
	nodeResources := corev1.ResourceList{"cpu": cpu}
	tests := []struct {
		name     string
		input    string
		fldPath  *field.Path
		want     *calicov1alpha1.NetworkConfig
		wantErrs field.ErrorList
	}{
		{
			name: "valid YAML with every kind of field",
			input: `apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1
kind: NetworkConfig
backend: bird
ipam:
  type: host-local
  cidr: usePodCIDR
ipv4:
  mode: Never
vethMTU: "1440"
ipAutodetectionMethod: interface=eth0
autoScaling:
  mode: static
  resources:
    node:
      cpu: 100m
`,
			want: &calicov1alpha1.NetworkConfig{
				TypeMeta:              metav1.TypeMeta{APIVersion: "calico.networking.extensions.gardener.cloud/v1alpha1", Kind: "NetworkConfig"},
				Backend:               &backend,
				IPAM:                  &calicov1alpha1.IPAM{Type: "host-local", CIDR: ptr("usePodCIDR")},
				IPv4:                  &calicov1alpha1.IPv4{Mode: &mode},
				VethMTU:               ptr("1440"),
				IPAutoDetectionMethod: ptr("interface=eth0"),
				AutoScaling:           &calicov1alpha1.AutoScaling{Mode: "static", Resources: &calicov1alpha1.StaticResources{Node: &nodeResources}},
			},
		},
		{
			name:  "valid JSON",
			input: `{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkConfig","vethMTU":"0"}`,
			want: &calicov1alpha1.NetworkConfig{
				TypeMeta: metav1.TypeMeta{APIVersion: "calico.networking.extensions.gardener.cloud/v1alpha1", Kind: "NetworkConfig"},
				VethMTU:  ptr("0"),
			},
		},
		{
			name: "unknown nested field at the file root",
			input: `apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1
kind: NetworkConfig
ipam:
  typah: host-local
`,
			wantErrs: field.ErrorList{field.Forbidden(field.NewPath("ipam", "typah"), `unknown field "typah" (did you mean "type"?); known fields of ipam: cidr, type`)},
		},
		{
			name:    "unknown nested field inside a shoot",
			input:   `{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkConfig","ipam":{"typah":"x"}}`,
			fldPath: field.NewPath("spec", "networking", "providerConfig"),
			wantErrs: field.ErrorList{field.Forbidden(field.NewPath("spec", "networking", "providerConfig", "ipam", "typah"),
				`unknown field "typah" (did you mean "type"?); known fields of spec.networking.providerConfig.ipam: cidr, type`)},
		},
		{
			name: "unknown top-level fields, wrong case, all reported",
			input: `apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1
kind: NetworkConfig
VethMTU: "1440"
zzz: 1
`,
			wantErrs: field.ErrorList{
				field.Forbidden(field.NewPath("VethMTU"), `unknown field "VethMTU" (did you mean "vethMTU"?); known fields of the document: apiVersion, autoScaling, backend, birdExporter, calicoVersion, ebpfDataplane, ipAutodetectionMethod, ipam, ipip, ipv4, ipv6, kind, kubeAPIServerGlobalNetworkSet, multus, overlay, policyValidation, serviceLoopPrevention, snatToUpstreamDNS, typha, vethMTU, vxlan, wireguardEncryption`),
				field.Forbidden(field.NewPath("zzz"), `unknown field "zzz"; known fields of the document: apiVersion, autoScaling, backend, birdExporter, calicoVersion, ebpfDataplane, ipAutodetectionMethod, ipam, ipip, ipv4, ipv6, kind, kubeAPIServerGlobalNetworkSet, multus, overlay, policyValidation, serviceLoopPrevention, snatToUpstreamDNS, typha, vethMTU, vxlan, wireguardEncryption`),
			},
		},
		{
			name: "number where a string is expected",
			input: `apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1
kind: NetworkConfig
vethMTU: 1440
`,
			wantErrs: field.ErrorList{field.TypeInvalid(field.NewPath("vethMTU"), int64(1440), `must be a string, not a number (quote it: "1440")`)},
		},
		{
			name: "string where a boolean is expected",
			input: `apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1
kind: NetworkConfig
overlay:
  enabled: "yes"
`,
			wantErrs: field.ErrorList{field.TypeInvalid(field.NewPath("overlay", "enabled"), "yes", `must be a boolean (true or false), not a string`)},
		},
		{
			name: "scalar where an object is expected",
			input: `apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1
kind: NetworkConfig
typha: true
`,
			wantErrs: field.ErrorList{field.TypeInvalid(field.NewPath("typha"), true, `must be an object, not a boolean`)},
		},
		{
			name: "all unknown fields and wrong types are reported at once, sorted by path",
			input: `apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1
kind: NetworkConfig
wireguardEncryption: "true"
overlay:
  enabled: 1
  createPodroutes: true
ipv6:
  sourceNATEnabled: false
vethMTU: 1440
`,
			wantErrs: field.ErrorList{
				field.Forbidden(field.NewPath("overlay", "createPodroutes"), `unknown field "createPodroutes" (did you mean "createPodRoutes"?); known fields of overlay: createPodRoutes, enabled`),
				field.TypeInvalid(field.NewPath("overlay", "enabled"), int64(1), "must be a boolean (true or false), not a number"),
				field.TypeInvalid(field.NewPath("vethMTU"), int64(1440), `must be a string, not a number (quote it: "1440")`),
				field.TypeInvalid(field.NewPath("wireguardEncryption"), "true", "must be a boolean (true or false), not a string"),
			},
		},
		{
			name: "bad resource quantity",
			input: `apiVersion: calico.networking.extensions.gardener.cloud/v1alpha1
kind: NetworkConfig
autoScaling:
  mode: static
  resources:
    typha:
      memory: lots
`,
			wantErrs: field.ErrorList{field.Invalid(field.NewPath("autoScaling", "resources", "typha").Key("memory"), "lots", "must be a resource quantity such as 250m, 1 or 100Mi")},
		},
		{
			name:     "duplicate key in JSON",
			input:    `{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkConfig","vethMTU":"1","vethMTU":"2"}`,
			wantErrs: field.ErrorList{field.Duplicate(field.NewPath("vethMTU"), "vethMTU")},
		},
		{
			name:     "wrong apiVersion",
			input:    `{"apiVersion":"calico.networking.extensions.gardener.cloud/v1","kind":"NetworkConfig","bogus":1}`,
			wantErrs: field.ErrorList{field.NotSupported(field.NewPath("apiVersion"), "calico.networking.extensions.gardener.cloud/v1", []string{"calico.networking.extensions.gardener.cloud/v1alpha1"})},
		},
		{
			name:     "wrong kind inside a shoot",
			input:    `{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":"NetworkStatus"}`,
			fldPath:  field.NewPath("spec", "networking", "providerConfig"),
			wantErrs: field.ErrorList{field.NotSupported(field.NewPath("spec", "networking", "providerConfig", "kind"), "NetworkStatus", []string{"NetworkConfig"})},
		},
		{
			name:  "missing apiVersion and kind",
			input: `{}`,
			wantErrs: field.ErrorList{
				field.Required(field.NewPath("apiVersion"), `must be "calico.networking.extensions.gardener.cloud/v1alpha1"`),
				field.Required(field.NewPath("kind"), `must be "NetworkConfig"`),
			},
		},
		{
			name:     "kind of the wrong type",
			input:    `{"apiVersion":"calico.networking.extensions.gardener.cloud/v1alpha1","kind":7}`,
			wantErrs: field.ErrorList{field.TypeInvalid(field.NewPath("kind"), int64(7), `must be the string "NetworkConfig"`)},
		},
		{
			name:     "not an object",
			input:    `[1, 2]`,
			fldPath:  field.NewPath("spec", "networking", "providerConfig"),
			wantErrs: field.ErrorList{field.TypeInvalid(field.NewPath("spec", "networking", "providerConfig"), "list", `must be an object with apiVersion "calico.networking.extensions.gardener.cloud/v1alpha1" and kind "NetworkConfig"`)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := NetworkConfig([]byte(tt.input), tt.fldPath)
			if diff := cmp.Diff(tt.wantErrs, errs); diff != "" {
				t.Errorf("errors mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("object mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNetworkConfigSyntaxError(t *testing.T) {
	_, errs := NetworkConfig([]byte("ipam: [unclosed"), nil)
	if len(errs) != 1 || errs[0].Type != field.ErrorTypeInvalid || errs[0].Field != "<document>" {
		t.Fatalf("want one Invalid error at <document>, got %v", errs)
	}
}
