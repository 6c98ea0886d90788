package calicocrds

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	projectcalicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
)

// TestSchemaDefaultsAreApplied proves the defaults of the facts are in the generated schemas: the API
// server fills them in when the field is left out.
func TestSchemaDefaultsAreApplied(t *testing.T) {
	ctx := context.Background()

	bgp := &projectcalicov1.BGPConfiguration{ObjectMeta: meta("defaults", ""), Spec: projectcalicov1.BGPConfigurationSpec{LogSeverityScreen: "Info"}}
	if err := cl.Create(ctx, bgp); err != nil {
		t.Fatalf("creating BGPConfiguration: %v", err)
	}
	t.Cleanup(func() { _ = cl.Delete(context.Background(), bgp) })
	gotBGP := &projectcalicov1.BGPConfiguration{}
	if err := cl.Get(ctx, clientKey(bgp.Name), gotBGP); err != nil {
		t.Fatalf("reading BGPConfiguration: %v", err)
	}
	if diff := cmp.Diff(ptr.To(projectcalicov1.ServiceLoadBalancerAggregation("Enabled")), gotBGP.Spec.ServiceLoadBalancerAggregation); diff != "" {
		t.Errorf("spec.serviceLoadBalancerAggregation default (-want +got):\n%s", diff)
	}

	kcc := &projectcalicov1.KubeControllersConfiguration{ObjectMeta: meta("defaults", ""), Spec: projectcalicov1.KubeControllersConfigurationSpec{
		Controllers: projectcalicov1.ControllersConfig{LoadBalancer: &projectcalicov1.LoadBalancerControllerConfig{}},
	}}
	if err := cl.Create(ctx, kcc); err != nil {
		t.Fatalf("creating KubeControllersConfiguration: %v", err)
	}
	t.Cleanup(func() { _ = cl.Delete(context.Background(), kcc) })
	gotKCC := &projectcalicov1.KubeControllersConfiguration{}
	if err := cl.Get(ctx, clientKey(kcc.Name), gotKCC); err != nil {
		t.Fatalf("reading KubeControllersConfiguration: %v", err)
	}
	if diff := cmp.Diff(&projectcalicov1.LoadBalancerControllerConfig{AssignIPs: "AllServices"}, gotKCC.Spec.Controllers.LoadBalancer); diff != "" {
		t.Errorf("spec.controllers.loadBalancer default (-want +got):\n%s", diff)
	}
}

// TestIPAMBlockStoresFreeOrdinals stores an IPAMBlock whose allocations contain null entries, as Calico
// IPAM writes them for free addresses.
func TestIPAMBlockStoresFreeOrdinals(t *testing.T) {
	ctx := context.Background()
	block := &projectcalicov1.IPAMBlock{ObjectMeta: meta("10-0-1-0-30", ""), Spec: projectcalicov1.IPAMBlockSpec{
		CIDR:        "10.0.1.0/30",
		Allocations: []*int{ptr.To(0), nil, nil, nil},
		Unallocated: []int{1, 2, 3},
		Attributes:  []projectcalicov1.AllocationAttribute{{HandleID: ptr.To("k8s-pod-network.x")}},
	}}
	want := block.Spec.DeepCopy()
	if err := cl.Create(ctx, block); err != nil {
		t.Fatalf("creating IPAMBlock with free ordinals: %v", err)
	}
	t.Cleanup(func() { _ = cl.Delete(context.Background(), block) })
	got := &projectcalicov1.IPAMBlock{}
	if err := cl.Get(ctx, clientKey(block.Name), got); err != nil {
		t.Fatalf("reading IPAMBlock: %v", err)
	}
	if diff := cmp.Diff(want, &got.Spec); diff != "" {
		t.Errorf("IPAMBlock spec read back (-written +read):\n%s", diff)
	}
}
