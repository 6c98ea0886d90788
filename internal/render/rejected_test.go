package render_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestReferenceScenariosRejected covers the rows of the reference's matrix (section 2.10) that
// the reference rendered silently and calico-pilot rejects, at validation, with the field to fix.
func TestReferenceScenariosRejected(t *testing.T) {
	type key struct {
		Type  field.ErrorType
		Field string
	}
	tests := []struct {
		sc   scenario
		want []key
	}{
		{
			// The reference rendered calico-ipam with a Never/Never VXLAN pool.
			sc:   scenario{Name: "overlay-disabled-vxlan", ProviderConfig: "overlay: {enabled: false}\nvxlan: {enabled: true}"},
			want: []key{{field.ErrorTypeInvalid, "spec.networking.providerConfig.vxlan.enabled"}},
		},
		{
			// The reference fell back to the cluster-proportional autoscalers without a word.
			sc:   scenario{Name: "vpa-without-shoot-vpa", ProviderConfig: "autoScaling: {mode: vpa}", Shoot: noVPA},
			want: []key{{field.ErrorTypeInvalid, "spec.networking.providerConfig.autoScaling.mode"}},
		},
		{
			// The reference forced mode Always and kept IPIP on.
			sc:   scenario{Name: "overlay-vxlan-pool-cross-subnet", ProviderConfig: "overlay: {enabled: true}\nipv4: {pool: vxlan, mode: CrossSubnet}"},
			want: []key{{field.ErrorTypeInvalid, "spec.networking.providerConfig.ipv4.mode"}},
		},
		{
			// The reference overwrote the mode with Always.
			sc:   scenario{Name: "overlay-enabled-mode-never", ProviderConfig: "overlay: {enabled: true}\nipv4: {mode: Never}"},
			want: []key{{field.ErrorTypeInvalid, "spec.networking.providerConfig.ipv4.mode"}},
		},
		{
			// kube-proxy off needs the eBPF dataplane.
			sc:   scenario{Name: "kube-proxy-off-no-ebpf", Shoot: kubeProxyOff},
			want: []key{{field.ErrorTypeForbidden, "spec.kubernetes.kubeProxy.enabled"}},
		},
		{
			// Chart generation of the reference failed here; validation accepted it.
			sc:   scenario{Name: "ipv6-pool-ipip", ProviderConfig: "ipv6: {pool: ipip}", Shoot: ipv6Only},
			want: []key{{field.ErrorTypeNotSupported, "spec.networking.providerConfig.ipv6.pool"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.sc.Name, func(t *testing.T) {
			_, validErrs, resolveErrs := tt.sc.Resolve()
			if len(resolveErrs) > 0 {
				t.Errorf("values rejected what validation accepted: %v", resolveErrs)
			}
			var got []key
			for _, e := range validErrs {
				got = append(got, key{e.Type, e.Field})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("validation errors (-want +got):\n%s\nall: %v", diff, validErrs)
			}
		})
	}
}
