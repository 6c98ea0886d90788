package render

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	resourcesv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/resources/v1alpha1"
	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// poolMeta is the metadata of a rendered IP pool. The pool goes into the ManagedResource with
// resources.gardener.cloud/mode=Ignore: the resource manager never creates, updates or deletes it,
// and releases a pool an earlier generation (the reference, an older calico-pilot) listed without
// deleting it. The controller creates the pool once through the shoot's API and afterwards patches
// only its encapsulation (internal/pools; docs/ippools.md says why).
func poolMeta(name string) metav1.ObjectMeta {
	m := meta(name, "", nil)
	m.Annotations = map[string]string{resourcesv1alpha1.AnnotationMode: resourcesv1alpha1.ModeIgnore}
	return m
}

// ipPools returns the IP pools calico-pilot owns. Without an explicit overlay setting no IPv4
// pool object is rendered: calico-node creates default-ipv4-ippool from its env at first start,
// as with the reference, so existing pools are never touched by a move to calico-pilot.
func ipPools(o *values.Options) ([]client.Object, error) {
	var objs []client.Object
	if o.IPv4 && o.IPv4PoolObject {
		objs = append(objs, ipPool(NameIPv4Pool, o.PodCIDRv4, 26, o.IPv4Pool))
	}
	if o.IPv4 && o.NoSNATNodeCIDRPool {
		objs = append(objs, &calicov1.IPPool{
			TypeMeta:   typeMeta("crd.projectcalico.org/v1", "IPPool"),
			ObjectMeta: poolMeta(NameNoSNATPool),
			// A disabled pool over the node network makes Felix treat node addresses as in-cluster,
			// so pod traffic to nodes is not source-NATed; it never hands out addresses.
			Spec: calicov1.IPPoolSpec{
				CIDR: o.NodeCIDRv4, Disabled: true, DisableBGPExport: true,
				IPIPMode: calicov1.IPIPModeNever, VXLANMode: calicov1.VXLANModeNever,
				NodeSelector: "all()",
			},
		})
	}
	if o.IPv6 && o.IPv6PoolObject {
		objs = append(objs, ipPool(NameIPv6Pool, o.PodCIDRv6, 122, o.IPv6Pool))
	}
	return objs, nil
}

func ipPool(name, cidr string, blockSize int, p values.PoolOptions) *calicov1.IPPool {
	spec := calicov1.IPPoolSpec{
		CIDR:         cidr,
		BlockSize:    blockSize,
		NATOutgoing:  p.NATOutgoing,
		NodeSelector: "all()",
		AllowedUses:  []calicov1.IPPoolAllowedUse{calicov1.IPPoolAllowedUseWorkload, calicov1.IPPoolAllowedUseTunnel},
		IPIPMode:     calicov1.IPIPModeNever,
		VXLANMode:    calicov1.VXLANModeNever,
	}
	if p.Encapsulation == values.EncapsulationVXLAN {
		spec.VXLANMode = calicov1.VXLANMode(p.Mode)
	} else {
		spec.IPIPMode = calicov1.IPIPMode(p.Mode)
	}
	return &calicov1.IPPool{
		TypeMeta:   typeMeta("crd.projectcalico.org/v1", "IPPool"),
		ObjectMeta: poolMeta(name),
		Spec:       spec,
	}
}
