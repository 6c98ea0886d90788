package calicocrds

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	policyv1alpha1 "sigs.k8s.io/network-policy-api/apis/v1alpha1"

	projectcalicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/testenv"
)

// newNamespace creates a fresh namespace for a test and returns its name.
func newNamespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testenv.NewNamespace(t, cl, "calicocrds-", nil)}}
	t.Cleanup(func() {
		if err := cl.Delete(context.Background(), ns); err != nil {
			t.Errorf("deleting namespace %s: %v", ns.Name, err)
		}
	})
	return ns.Name
}

func meta(name, namespace string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{"test": "calicocrds"}}
}

func calicoRule() projectcalicov1.Rule {
	return projectcalicov1.Rule{
		Action:    projectcalicov1.ActionAllow,
		IPVersion: ptr.To(4),
		Protocol:  ptr.To(intstr.FromString("TCP")),
		Source: projectcalicov1.EntityRule{
			Nets:              []string{"10.0.0.0/8"},
			Selector:          "role == 'frontend'",
			NamespaceSelector: "all()",
			NotPorts:          []intstr.IntOrString{intstr.FromInt32(22)},
			ServiceAccounts:   &projectcalicov1.ServiceAccountMatch{Names: []string{"web"}, Selector: "app == 'web'"},
		},
		Destination: projectcalicov1.EntityRule{
			Ports:    []intstr.IntOrString{intstr.FromInt32(443), intstr.FromString("8000:8080"), intstr.FromString("https")},
			NotNets:  []string{"10.1.0.0/16"},
			Services: &projectcalicov1.ServiceMatch{Name: "kubernetes", Namespace: "default"},
		},
		HTTP:     &projectcalicov1.HTTPMatch{Methods: []string{"GET"}, Paths: []projectcalicov1.HTTPPath{{Exact: "/healthz"}, {Prefix: "/api"}}},
		Metadata: &projectcalicov1.RuleMetadata{Annotations: map[string]string{"owner": "calico-pilot"}},
	}
}

func icmpRule() projectcalicov1.Rule {
	return projectcalicov1.Rule{
		Action:      projectcalicov1.ActionDeny,
		Protocol:    ptr.To(intstr.FromInt32(1)),
		ICMP:        &projectcalicov1.ICMPFields{Type: ptr.To(8), Code: ptr.To(0)},
		NotProtocol: nil,
		NotICMP:     &projectcalicov1.ICMPFields{Type: ptr.To(3)},
	}
}

func labelSelector() metav1.LabelSelector {
	return metav1.LabelSelector{
		MatchLabels:      map[string]string{"app": "db"},
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"backend"}}},
	}
}

// objects returns one object of each of the 22 Calico kinds plus one AdminNetworkPolicy and one
// BaselineAdminNetworkPolicy, with as many fields set as is sensible. Every value set equals what the
// API server stores (no field relies on a server default), so the read-back object must equal it.
func objects(namespace string) []client.Object {
	lastUpdated := metav1.NewTime(time.Date(2026, 12, 2, 17, 0, 0, 0, time.UTC))
	controllers := projectcalicov1.ControllersConfig{
		Node: &projectcalicov1.NodeControllerConfig{
			ReconcilerPeriod: &metav1.Duration{Duration: 5 * time.Minute},
			SyncLabels:       "Enabled",
			HostEndpoint: &projectcalicov1.AutoHostEndpointConfig{
				AutoCreate:                "Enabled",
				CreateDefaultHostEndpoint: "Disabled",
				Templates: []projectcalicov1.AutoHostEndpointTemplate{{
					GenerateName: "eth0", InterfaceCIDRs: []string{"10.250.0.0/16"}, InterfacePattern: "eth.*",
					Labels: map[string]string{"hep": "eth0"}, NodeSelector: "all()",
				}},
			},
			LeakGracePeriod: &metav1.Duration{Duration: 15 * time.Minute},
		},
		Policy:       &projectcalicov1.ReconcilerControllerConfig{ReconcilerPeriod: &metav1.Duration{Duration: time.Minute}},
		LoadBalancer: &projectcalicov1.LoadBalancerControllerConfig{AssignIPs: "RequestedServicesOnly"},
	}
	return []client.Object{
		&projectcalicov1.BGPConfiguration{ObjectMeta: meta("default", ""), Spec: projectcalicov1.BGPConfigurationSpec{
			LogSeverityScreen:              "Info",
			NodeToNodeMeshEnabled:          ptr.To(false),
			ASNumber:                       ptr.To[uint32](64512),
			ServiceLoadBalancerIPs:         []projectcalicov1.ServiceLoadBalancerIPBlock{{CIDR: "192.0.2.0/24"}},
			ServiceExternalIPs:             []projectcalicov1.ServiceExternalIPBlock{{CIDR: "198.51.100.0/24"}},
			ServiceClusterIPs:              []projectcalicov1.ServiceClusterIPBlock{{CIDR: "100.64.0.0/13"}},
			ListenPort:                     1790,
			Communities:                    []projectcalicov1.Community{{Name: "big", Value: "64512:300:100"}, {Name: "small", Value: "64512:100"}},
			PrefixAdvertisements:           []projectcalicov1.PrefixAdvertisement{{CIDR: "192.0.2.0/24", Communities: []string{"big", "64512:200"}}},
			NodeMeshPassword:               &projectcalicov1.BGPPassword{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "bgp"}, Key: "password", Optional: ptr.To(true)}},
			NodeMeshMaxRestartTime:         &metav1.Duration{Duration: 2 * time.Minute},
			BindMode:                       ptr.To("NodeIP"),
			IgnoredInterfaces:              []string{"kube-ipvs*"},
			LocalWorkloadPeeringIPV4:       "169.254.0.179",
			LocalWorkloadPeeringIPV6:       "fe80::179",
			ServiceLoadBalancerAggregation: ptr.To(projectcalicov1.ServiceLoadBalancerAggregationDisabled),
		}},
		&projectcalicov1.BGPFilter{ObjectMeta: meta("filter", ""), Spec: projectcalicov1.BGPFilterSpec{
			ExportV4: []projectcalicov1.BGPFilterRuleV4{{CIDR: "10.0.0.0/8", MatchOperator: "In", Action: "Accept", PrefixLength: &projectcalicov1.BGPFilterPrefixLengthV4{Min: ptr.To[int32](16), Max: ptr.To[int32](32)}}},
			ImportV4: []projectcalicov1.BGPFilterRuleV4{{Source: "RemotePeers", Interface: "eth*", Action: "Reject"}},
			ExportV6: []projectcalicov1.BGPFilterRuleV6{{CIDR: "fd00::/8", MatchOperator: "NotIn", Action: "Accept", PrefixLength: &projectcalicov1.BGPFilterPrefixLengthV6{Max: ptr.To[int32](128)}}},
			ImportV6: []projectcalicov1.BGPFilterRuleV6{{Action: "Reject"}},
		}},
		&projectcalicov1.BGPPeer{ObjectMeta: meta("peer", ""), Spec: projectcalicov1.BGPPeerSpec{
			NodeSelector:             "rack == 'a'",
			PeerIP:                   "192.0.2.1:179",
			ASNumber:                 ptr.To[uint32](64513),
			LocalASNumber:            ptr.To[uint32](64512),
			Password:                 &projectcalicov1.BGPPassword{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "peer"}, Key: "pw"}},
			SourceAddress:            "UseNodeIP",
			MaxRestartTime:           &metav1.Duration{Duration: time.Minute},
			NumAllowedLocalASNumbers: ptr.To[int32](1),
			TTLSecurity:              ptr.To[uint8](1),
			KeepOriginalNextHop:      true,
			NextHopMode:              ptr.To(projectcalicov1.NextHopModeSelf),
			ReachableBy:              "192.0.2.254",
			Filters:                  []string{"filter"},
			ReversePeering:           ptr.To(projectcalicov1.ReversePeeringManual),
		}},
		&projectcalicov1.BlockAffinity{ObjectMeta: meta("node-1-10-0-0-0-26", ""), Spec: projectcalicov1.BlockAffinitySpec{
			State: "confirmed", Node: "node-1", Type: "host", CIDR: "10.0.0.0/26", Deleted: "false",
		}},
		&projectcalicov1.CalicoNodeStatus{ObjectMeta: meta("node-1", ""),
			Spec: projectcalicov1.CalicoNodeStatusSpec{Node: "node-1", Classes: []string{"Agent", "BGP", "Routes"}, UpdatePeriodSeconds: ptr.To[uint32](10)},
			Status: projectcalicov1.CalicoNodeStatusStatus{
				LastUpdated: lastUpdated,
				Agent:       projectcalicov1.CalicoNodeAgentStatus{BIRDV4: projectcalicov1.BGPDaemonStatus{State: "Ready", Version: "v0.3.3", RouterID: "10.250.0.2", LastBootTime: "2026-12-02 16:00:00", LastReconfigurationTime: "2026-12-02 16:01:00"}},
				BGP:         projectcalicov1.CalicoNodeBGPStatus{NumberEstablishedV4: 2, NumberNotEstablishedV4: 1, PeersV4: []projectcalicov1.CalicoNodePeer{{PeerIP: "10.250.0.3", Type: "NodeMesh", State: "Established", Since: "16:00:05"}}},
				Routes:      projectcalicov1.CalicoNodeRoutes{RoutesV4: []projectcalicov1.CalicoNodeRoute{{Type: "FIB", Destination: "10.0.1.0/26", Gateway: "10.250.0.3", Interface: "eth0", LearnedFrom: projectcalicov1.CalicoNodeRouteLearnedFrom{SourceType: "NodeMesh", PeerIP: "10.250.0.3"}}}},
			},
		},
		&projectcalicov1.ClusterInformation{ObjectMeta: meta("default", ""), Spec: projectcalicov1.ClusterInformationSpec{
			ClusterGUID: "0f2d6b1e", ClusterType: "k8s,bgp,kdd", CalicoVersion: "v3.31.6", DatastoreReady: ptr.To(true), Variant: "Calico",
		}},
		&projectcalicov1.FelixConfiguration{ObjectMeta: meta("default", ""), Spec: projectcalicov1.FelixConfigurationSpec{
			BPFEnabled:                      ptr.To(true),
			BPFConnectTimeLoadBalancing:     ptr.To(projectcalicov1.BPFConnectTimeLBTypeTCP),
			BPFConntrackTimeouts:            &projectcalicov1.BPFConntrackTimeouts{TCPEstablished: ptr.To("1h"), UDPTimeout: ptr.To("Auto")},
			BPFExternalServiceMode:          ptr.To("DSR"),
			BPFLogFilters:                   map[string]string{"all": "tcp"},
			BPFMapSizeConntrackCleanupQueue: ptr.To(100000),
			BPFPSNATPorts:                   ptr.To(intstr.FromString("20000:29999")),
			ChainInsertMode:                 ptr.To("Append"),
			FailsafeInboundHostPorts:        []projectcalicov1.ProtoPort{{Protocol: "tcp", Port: 22}, {Protocol: "udp", Port: 68, Net: "0.0.0.0/0"}},
			FeatureGates:                    ptr.To("BPFConnectTimeLoadBalancingWorkaround=enabled"),
			FloatingIPs:                     ptr.To(projectcalicov1.FloatingIPTypeDisabled),
			HealthTimeoutOverrides:          []projectcalicov1.HealthTimeoutOverride{{Name: "InternalDataplaneMainLoop", Timeout: metav1.Duration{Duration: 30 * time.Second}}},
			IptablesMarkMask:                ptr.To[uint32](0x0fff0000),
			IptablesRefreshInterval:         &metav1.Duration{Duration: 90 * time.Second},
			KubeNodePortRanges:              []intstr.IntOrString{intstr.FromString("30000:32767")},
			LogActionRateLimit:              ptr.To("10/second"),
			LogActionRateLimitBurst:         ptr.To(5),
			LogPrefix:                       ptr.To("calico-packet: %t"),
			LogSeverityScreen:               ptr.To("Info"),
			NATPortRange:                    ptr.To(intstr.FromString("32768:65535")),
			NftablesMode:                    ptr.To(projectcalicov1.NFTablesModeAuto),
			PrometheusMetricsEnabled:        ptr.To(true),
			PrometheusMetricsPort:           ptr.To(9091),
			RouteTableRanges:                []projectcalicov1.RouteTableRange{{Min: 1, Max: 250}},
			RouteTableRange:                 &projectcalicov1.RouteTableRange{Min: 1, Max: 250},
			VXLANVNI:                        ptr.To(4096),
			WireguardEnabled:                ptr.To(false),
			WorkloadSourceSpoofing:          ptr.To("Disabled"),
		}},
		&projectcalicov1.GlobalNetworkPolicy{ObjectMeta: meta("default.allow-dns", ""), Spec: projectcalicov1.GlobalNetworkPolicySpec{
			Tier: "default", Order: ptr.To(100.5), Selector: "all()", Types: []projectcalicov1.PolicyType{projectcalicov1.PolicyTypeIngress, projectcalicov1.PolicyTypeEgress},
			Ingress: []projectcalicov1.Rule{calicoRule()}, Egress: []projectcalicov1.Rule{icmpRule()},
			DoNotTrack: false, PreDNAT: false, ApplyOnForward: true, ServiceAccountSelector: "all()", NamespaceSelector: "has(name)",
			PerformanceHints: []string{"AssumeNeededOnEveryNode"},
		}},
		&projectcalicov1.GlobalNetworkSet{ObjectMeta: meta("kube-apiserver", ""), Spec: projectcalicov1.GlobalNetworkSetSpec{
			Nets: []string{"203.0.113.10/32", "2001:db8::10/128"},
		}},
		&projectcalicov1.HostEndpoint{ObjectMeta: meta("node-1-eth0", ""), Spec: projectcalicov1.HostEndpointSpec{
			Node: "node-1", InterfaceName: "eth0", ExpectedIPs: []string{"10.250.0.2"}, Profiles: []string{"projectcalico-default-allow"},
			Ports: []projectcalicov1.EndpointPort{{Name: "ssh", Protocol: intstr.FromString("TCP"), Port: 22}, {Name: "bgp", Protocol: intstr.FromInt32(6), Port: 179}},
		}},
		&projectcalicov1.IPAMBlock{ObjectMeta: meta("10-0-0-0-30", ""), Spec: projectcalicov1.IPAMBlockSpec{
			CIDR: "10.0.0.0/30", Affinity: ptr.To("host:node-1"), StrictAffinity: false,
			Allocations: []*int{ptr.To(0), ptr.To(1), ptr.To(1), ptr.To(0)},
			Unallocated: []int{},
			Attributes: []projectcalicov1.AllocationAttribute{
				{HandleID: ptr.To("ipip-tunnel-addr-node-1"), Secondary: map[string]string{"node": "node-1", "type": "ipipTunnelAddress"}},
				{HandleID: ptr.To("k8s-pod-network.abc"), Secondary: map[string]string{"namespace": "kube-system", "pod": "coredns-0"}},
			},
			SequenceNumber:              7,
			SequenceNumberForAllocation: map[string]uint64{"0": 1, "1": 5},
		}},
		&projectcalicov1.IPAMConfig{ObjectMeta: meta("default", ""), Spec: projectcalicov1.IPAMConfigSpec{
			StrictAffinity: true, AutoAllocateBlocks: true, MaxBlocksPerHost: 20,
		}},
		&projectcalicov1.IPAMHandle{ObjectMeta: meta("k8s-pod-network.abc", ""), Spec: projectcalicov1.IPAMHandleSpec{
			HandleID: "k8s-pod-network.abc", Block: map[string]int{"10.0.0.0/30": 2}, Deleted: false,
		}},
		&projectcalicov1.IPPool{ObjectMeta: meta("default-ipv4-ippool", ""), Spec: projectcalicov1.IPPoolSpec{
			CIDR: "100.64.0.0/12", VXLANMode: projectcalicov1.VXLANModeNever, IPIPMode: projectcalicov1.IPIPModeAlways,
			NATOutgoing: true, BlockSize: 26, NodeSelector: "all()", NamespaceSelector: "all()",
			AllowedUses:    []projectcalicov1.IPPoolAllowedUse{projectcalicov1.IPPoolAllowedUseWorkload, projectcalicov1.IPPoolAllowedUseTunnel},
			AssignmentMode: ptr.To(projectcalicov1.AssignmentModeAutomatic),
			IPIP:           &projectcalicov1.IPIPConfiguration{Enabled: true, Mode: "always"},
			NATOutgoingV1:  true,
		}},
		&projectcalicov1.IPReservation{ObjectMeta: meta("reserved", ""), Spec: projectcalicov1.IPReservationSpec{
			ReservedCIDRs: []string{"100.64.0.0/28", "100.64.1.1"},
		}},
		&projectcalicov1.KubeControllersConfiguration{ObjectMeta: meta("default", ""),
			Spec: projectcalicov1.KubeControllersConfigurationSpec{
				LogSeverityScreen: "Info", HealthChecks: "Enabled", EtcdV3CompactionPeriod: &metav1.Duration{Duration: 10 * time.Minute},
				PrometheusMetricsPort: ptr.To(9094), DebugProfilePort: ptr.To[int32](0), Controllers: controllers,
			},
			Status: projectcalicov1.KubeControllersConfigurationStatus{
				RunningConfig:   &projectcalicov1.KubeControllersConfigurationSpec{LogSeverityScreen: "Info", Controllers: controllers},
				EnvironmentVars: map[string]string{"ENABLED_CONTROLLERS": "node,policy"},
			},
		},
		&projectcalicov1.NetworkPolicy{ObjectMeta: meta("default.allow-web", namespace), Spec: projectcalicov1.NetworkPolicySpec{
			Tier: "default", Order: ptr.To(10.0), Selector: "app == 'web'", Types: []projectcalicov1.PolicyType{projectcalicov1.PolicyTypeIngress},
			Ingress: []projectcalicov1.Rule{calicoRule(), icmpRule()}, ServiceAccountSelector: "all()",
		}},
		&projectcalicov1.NetworkSet{ObjectMeta: meta("partners", namespace), Spec: projectcalicov1.NetworkSetSpec{
			Nets: []string{"198.51.100.0/28"},
		}},
		&projectcalicov1.StagedGlobalNetworkPolicy{ObjectMeta: meta("default.staged-deny", ""), Spec: projectcalicov1.StagedGlobalNetworkPolicySpec{
			StagedAction: projectcalicov1.StagedActionSet,
			GlobalNetworkPolicySpec: projectcalicov1.GlobalNetworkPolicySpec{
				Tier: "default", Order: ptr.To(2000.0), Selector: "all()",
				Egress: []projectcalicov1.Rule{icmpRule()}, DoNotTrack: true, PreDNAT: false, NamespaceSelector: "all()",
			},
		}},
		&projectcalicov1.StagedKubernetesNetworkPolicy{ObjectMeta: meta("staged-k8s", namespace), Spec: projectcalicov1.StagedKubernetesNetworkPolicySpec{
			StagedAction: projectcalicov1.StagedActionSet,
			PodSelector:  labelSelector(),
			Ingress: []networkingv1.NetworkPolicyIngressRule{{
				Ports: []networkingv1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(5432)), EndPort: ptr.To[int32](5440)}},
				From:  []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, NamespaceSelector: ptr.To(labelSelector())}},
			}},
			Egress: []networkingv1.NetworkPolicyEgressRule{{
				To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/8", Except: []string{"10.1.0.0/16"}}}},
			}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
		}},
		&projectcalicov1.StagedNetworkPolicy{ObjectMeta: meta("default.staged-web", namespace), Spec: projectcalicov1.StagedNetworkPolicySpec{
			StagedAction: projectcalicov1.StagedActionDelete,
			NetworkPolicySpec: projectcalicov1.NetworkPolicySpec{
				Tier: "default", Order: ptr.To(5.0), Selector: "app == 'web'",
				Ingress: []projectcalicov1.Rule{calicoRule()}, PerformanceHints: []string{"AssumeNeededOnEveryNode"},
			},
		}},
		&projectcalicov1.Tier{ObjectMeta: meta("security", ""), Spec: projectcalicov1.TierSpec{
			Order: ptr.To(50.0), DefaultAction: ptr.To(projectcalicov1.TierActionPass),
		}},
		&policyv1alpha1.AdminNetworkPolicy{ObjectMeta: meta("deny-metadata", ""), Spec: policyv1alpha1.AdminNetworkPolicySpec{
			Priority: 10,
			Subject:  policyv1alpha1.AdminNetworkPolicySubject{Namespaces: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": namespace}}},
			Egress: []policyv1alpha1.AdminNetworkPolicyEgressRule{{
				Name:   "deny-metadata",
				Action: policyv1alpha1.AdminNetworkPolicyRuleActionDeny,
				To:     []policyv1alpha1.AdminNetworkPolicyEgressPeer{{Networks: []policyv1alpha1.CIDR{"169.254.169.254/32"}}},
				Ports:  &[]policyv1alpha1.AdminNetworkPolicyPort{{PortNumber: &policyv1alpha1.Port{Protocol: corev1.ProtocolTCP, Port: 80}}},
			}},
			Ingress: []policyv1alpha1.AdminNetworkPolicyIngressRule{{
				Name:   "pass-same-namespace",
				Action: policyv1alpha1.AdminNetworkPolicyRuleActionPass,
				From:   []policyv1alpha1.AdminNetworkPolicyIngressPeer{{Pods: &policyv1alpha1.NamespacedPod{NamespaceSelector: labelSelector(), PodSelector: labelSelector()}}},
			}},
		}},
		&policyv1alpha1.BaselineAdminNetworkPolicy{ObjectMeta: meta("default", ""), Spec: policyv1alpha1.BaselineAdminNetworkPolicySpec{
			Subject: policyv1alpha1.AdminNetworkPolicySubject{Pods: &policyv1alpha1.NamespacedPod{NamespaceSelector: labelSelector(), PodSelector: metav1.LabelSelector{}}},
			Ingress: []policyv1alpha1.BaselineAdminNetworkPolicyIngressRule{{
				Name:   "deny-all",
				Action: policyv1alpha1.BaselineAdminNetworkPolicyRuleActionDeny,
				From:   []policyv1alpha1.AdminNetworkPolicyIngressPeer{{Namespaces: &metav1.LabelSelector{}}},
				Ports:  &[]policyv1alpha1.AdminNetworkPolicyPort{{PortRange: &policyv1alpha1.PortRange{Protocol: corev1.ProtocolUDP, Start: 1000, End: 2000}}},
			}},
		}},
	}
}

// TestEveryKindRoundTrips creates one object of each kind and reads it back: spec (and status, for the
// Calico kinds without a status subresource) must be exactly what was written.
func TestEveryKindRoundTrips(t *testing.T) {
	ctx := context.Background()
	namespace := newNamespace(t)
	objs := objects(namespace)
	if len(objs) != 24 {
		t.Fatalf("test table has %d objects, want 24 (22 Calico kinds + ANP + BANP)", len(objs))
	}
	kinds := map[string]bool{}
	for _, obj := range objs {
		kind := reflect.TypeOf(obj).Elem().Name()
		if kinds[kind] {
			t.Fatalf("kind %s appears twice in the test table", kind)
		}
		kinds[kind] = true
		t.Run(kind, func(t *testing.T) {
			want := obj.DeepCopyObject().(client.Object)
			if err := cl.Create(ctx, obj); err != nil {
				t.Fatalf("creating %s %s: %v", kind, client.ObjectKeyFromObject(obj), err)
			}
			t.Cleanup(func() {
				if err := cl.Delete(context.Background(), obj); err != nil {
					t.Errorf("deleting %s %s: %v", kind, client.ObjectKeyFromObject(obj), err)
				}
			})
			got := reflect.New(reflect.TypeOf(obj).Elem()).Interface().(client.Object)
			if err := cl.Get(ctx, client.ObjectKeyFromObject(obj), got); err != nil {
				t.Fatalf("reading %s %s back: %v", kind, client.ObjectKeyFromObject(obj), err)
			}
			if got.GetUID() == "" {
				t.Errorf("read-back %s has no uid", kind)
			}
			if diff := cmp.Diff(want, got, cmpopts.IgnoreTypes(metav1.TypeMeta{}, metav1.ObjectMeta{})); diff != "" {
				t.Errorf("%s read back differs from what was written (-written +read):\n%s", kind, diff)
			}
		})
	}
}

// clientKey is the key of a cluster-scoped object.
func clientKey(name string) client.ObjectKey { return client.ObjectKey{Name: name} }
