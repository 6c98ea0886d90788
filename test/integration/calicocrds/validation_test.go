package calicocrds

import (
	"context"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	policyv1alpha1 "sigs.k8s.io/network-policy-api/apis/v1alpha1"

	projectcalicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
)

// unstructuredObject is a cluster-scoped Calico object of kind with the given spec, for values our Go
// types cannot express.
func unstructuredObject(kind, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(projectcalicov1.SchemeGroupVersion.WithKind(kind))
	u.SetName(name)
	return u
}

// cause is the part of an API server rejection a user acts on: what is wrong and where.
type cause struct {
	Type  metav1.CauseType
	Field string
}

// TestSchemasRejectInvalidValues proves that the generated schemas carry the validation of the facts
// (required fields, enums, limits, patterns): the API server refuses each object with the field path.
func TestSchemasRejectInvalidValues(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		obj  client.Object
		want []cause
		// messageContains, when set, must appear in the error message.
		messageContains string
	}{
		{
			// Required means present: our Go type always sends cidr, so this goes untyped.
			name: "IPPool without cidr, sent untyped",
			obj:  unstructuredObject("IPPool", "no-cidr", map[string]any{"blockSize": int64(26)}),
			want: []cause{{Type: metav1.CauseTypeFieldValueRequired, Field: "spec.cidr"}},
		},
		{
			name: "IPPool with an unknown assignmentMode",
			obj: &projectcalicov1.IPPool{ObjectMeta: meta("bad-mode", ""), Spec: projectcalicov1.IPPoolSpec{
				CIDR: "10.0.0.0/16", AssignmentMode: ptr.To(projectcalicov1.AssignmentMode("Sometimes")),
			}},
			want: []cause{{Type: metav1.CauseTypeFieldValueNotSupported, Field: "spec.assignmentMode"}},
		},
		{
			name: "Tier with an unknown defaultAction",
			obj:  &projectcalicov1.Tier{ObjectMeta: meta("bad-tier", ""), Spec: projectcalicov1.TierSpec{DefaultAction: ptr.To(projectcalicov1.TierAction("Allow"))}},
			want: []cause{{Type: metav1.CauseTypeFieldValueNotSupported, Field: "spec.defaultAction"}},
		},
		{
			name: "BGPPeer with an unknown nextHopMode (Calico's enum Auto|Self|Keep)",
			obj: &projectcalicov1.BGPPeer{ObjectMeta: meta("bad-next-hop", ""), Spec: projectcalicov1.BGPPeerSpec{
				NextHopMode: ptr.To(projectcalicov1.NextHopMode("Peer")),
			}},
			want: []cause{{Type: metav1.CauseTypeFieldValueNotSupported, Field: "spec.nextHopMode"}},
		},
		{
			name: "FelixConfiguration with an unknown bpfJITHardening (Calico's enum Auto|Strict)",
			obj: &projectcalicov1.FelixConfiguration{ObjectMeta: meta("bad-jit", ""), Spec: projectcalicov1.FelixConfigurationSpec{
				BPFJITHardening: ptr.To(projectcalicov1.BPFJITHardeningType("Off")),
			}},
			want: []cause{{Type: metav1.CauseTypeFieldValueNotSupported, Field: "spec.bpfJITHardening"}},
		},
		{
			name: "BGPConfiguration with a malformed community",
			obj: &projectcalicov1.BGPConfiguration{ObjectMeta: meta("bad-bgp", ""), Spec: projectcalicov1.BGPConfigurationSpec{
				Communities: []projectcalicov1.Community{{Name: "x", Value: "64512"}},
			}},
			want: []cause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.communities[0].value"}},
		},
		{
			// Our Go type (uint16) cannot hold 70000; other clients (kubectl) can send it.
			name: "BGPConfiguration listenPort above 65535, sent untyped",
			obj:  unstructuredObject("BGPConfiguration", "bad-port", map[string]any{"listenPort": int64(70000)}),
			want: []cause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.listenPort"}},
		},
		{
			name: "IPAMConfig without the required booleans, sent untyped",
			obj:  unstructuredObject("IPAMConfig", "bad-ipam", map[string]any{"maxBlocksPerHost": int64(4)}),
			want: []cause{
				{Type: metav1.CauseTypeFieldValueRequired, Field: "spec.autoAllocateBlocks"},
				{Type: metav1.CauseTypeFieldValueRequired, Field: "spec.strictAffinity"},
			},
		},
		{
			// The facts give iptablesMarkMask format int32, and the API server enforces it: a mask with
			// the top bit set (Felix's built-in default is 0xffff0000) cannot be stored.
			name: "FelixConfiguration iptablesMarkMask above the int32 range",
			obj: &projectcalicov1.FelixConfiguration{ObjectMeta: meta("bad-mask", ""), Spec: projectcalicov1.FelixConfigurationSpec{
				IptablesMarkMask: ptr.To[uint32](0xffff0000),
			}},
			// The API server reports format violations without a field path ("<nil>") and names the
			// field only in the message.
			want:            []cause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "<nil>"}},
			messageContains: "spec.iptablesMarkMask",
		},
		{
			name: "BGPFilter IPv4 prefix length above 32",
			obj: &projectcalicov1.BGPFilter{ObjectMeta: meta("bad-filter", ""), Spec: projectcalicov1.BGPFilterSpec{
				ExportV4: []projectcalicov1.BGPFilterRuleV4{{Action: "Accept", PrefixLength: &projectcalicov1.BGPFilterPrefixLengthV4{Max: ptr.To[int32](33)}}},
			}},
			want: []cause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.exportV4[0].prefixLength.max"}},
		},
		{
			name: "FelixConfiguration log level and duration outside their patterns",
			obj: &projectcalicov1.FelixConfiguration{ObjectMeta: meta("bad-felix", ""), Spec: projectcalicov1.FelixConfigurationSpec{
				LogSeverityScreen:       ptr.To("Verbose"),
				BPFConntrackTimeouts:    &projectcalicov1.BPFConntrackTimeouts{TCPFinsSeen: ptr.To("soon")},
				LogActionRateLimitBurst: ptr.To(10000),
			}},
			want: []cause{
				{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.bpfConntrackTimeouts.tcpFinsSeen"},
				{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.logActionRateLimitBurst"},
				{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.logSeverityScreen"},
			},
		},
		{
			name: "HostEndpoint port without name, sent untyped",
			obj: unstructuredObject("HostEndpoint", "bad-hep", map[string]any{
				"node": "node-1", "ports": []any{map[string]any{"protocol": "TCP", "port": int64(22)}},
			}),
			want: []cause{{Type: metav1.CauseTypeFieldValueRequired, Field: "spec.ports[0].name"}},
		},
		{
			name: "AdminNetworkPolicy priority above 1000",
			obj: &policyv1alpha1.AdminNetworkPolicy{ObjectMeta: meta("bad-anp", ""), Spec: policyv1alpha1.AdminNetworkPolicySpec{
				Priority: 1001, Subject: policyv1alpha1.AdminNetworkPolicySubject{Namespaces: &metav1.LabelSelector{}},
			}},
			want: []cause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.priority"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := cl.Create(ctx, tt.obj)
			if err == nil {
				_ = cl.Delete(ctx, tt.obj)
				t.Fatalf("creating succeeded, want it rejected with %v", tt.want)
			}
			var status *apierrors.StatusError
			if !errors.As(err, &status) || !apierrors.IsInvalid(err) {
				t.Fatalf("creating: got %v, want an Invalid status error", err)
			}
			var got []cause
			if status.ErrStatus.Details != nil {
				for _, c := range status.ErrStatus.Details.Causes {
					got = append(got, cause{Type: c.Type, Field: c.Field})
				}
			}
			sort.Slice(got, func(i, j int) bool { return got[i].Field < got[j].Field })
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("rejection causes differ (-want +got):\n%s\nfull error: %v", diff, err)
			}
			if tt.messageContains != "" && !strings.Contains(err.Error(), tt.messageContains) {
				t.Errorf("error %q does not mention %q", err, tt.messageContains)
			}
		})
	}
}
