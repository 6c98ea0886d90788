package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of Calico's custom resources.
const GroupName = "crd.projectcalico.org"

// SchemeGroupVersion is the group and version of the types in this package.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1"}

// SchemeBuilder collects the function that registers the types of this package. Nothing else
// registers into it; callers build their own runtime.Scheme and call AddToScheme on it.
var SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

// AddToScheme registers all 22 Calico kinds and their lists with scheme.
var AddToScheme = SchemeBuilder.AddToScheme

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion,
		&BGPConfiguration{}, &BGPConfigurationList{},
		&BGPFilter{}, &BGPFilterList{},
		&BGPPeer{}, &BGPPeerList{},
		&BlockAffinity{}, &BlockAffinityList{},
		&CalicoNodeStatus{}, &CalicoNodeStatusList{},
		&ClusterInformation{}, &ClusterInformationList{},
		&FelixConfiguration{}, &FelixConfigurationList{},
		&GlobalNetworkPolicy{}, &GlobalNetworkPolicyList{},
		&GlobalNetworkSet{}, &GlobalNetworkSetList{},
		&HostEndpoint{}, &HostEndpointList{},
		&IPAMBlock{}, &IPAMBlockList{},
		&IPAMConfig{}, &IPAMConfigList{},
		&IPAMHandle{}, &IPAMHandleList{},
		&IPPool{}, &IPPoolList{},
		&IPReservation{}, &IPReservationList{},
		&KubeControllersConfiguration{}, &KubeControllersConfigurationList{},
		&NetworkPolicy{}, &NetworkPolicyList{},
		&NetworkSet{}, &NetworkSetList{},
		&StagedGlobalNetworkPolicy{}, &StagedGlobalNetworkPolicyList{},
		&StagedKubernetesNetworkPolicy{}, &StagedKubernetesNetworkPolicyList{},
		&StagedNetworkPolicy{}, &StagedNetworkPolicyList{},
		&Tier{}, &TierList{},
	)
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}
