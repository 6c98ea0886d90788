package values

import (
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
)

// FactsFromShoot reads the cluster facts from a Shoot (as given to `calico-pilot render --shoot`
// or embedded in a Cluster resource). seedNamespace is the control-plane namespace; it may be empty
// offline.
func FactsFromShoot(shoot *gardencorev1beta1.Shoot, seedNamespace string) ClusterFacts {
	f := ClusterFacts{SeedNamespace: seedNamespace, Paths: ShootFactPaths()}
	if n := shoot.Spec.Networking; n != nil {
		for _, fam := range n.IPFamilies {
			f.IPFamilies = append(f.IPFamilies, string(fam))
		}
		if n.Pods != nil {
			f.PodCIDR = *n.Pods
		}
		if n.Nodes != nil {
			f.NodeCIDR = *n.Nodes
		}
	}
	if s := shoot.Status.Networking; s != nil {
		f.StatusPodCIDRs = append([]string(nil), s.Pods...)
		f.StatusNodeCIDRs = append([]string(nil), s.Nodes...)
	}
	for _, c := range shoot.Status.Constraints {
		if c.Type == gardencorev1beta1.ConditionDualStackNodesMigrationReady && c.Status != gardencorev1beta1.ConditionTrue {
			f.DualStackMigrationPending = true
		}
	}
	f.ProviderType = shoot.Spec.Provider.Type
	k := shoot.Spec.Kubernetes
	f.KubernetesVersion = k.Version
	if kp := k.KubeProxy; kp != nil {
		f.KubeProxyEnabled = kp.Enabled
		if kp.Mode != nil {
			f.KubeProxyMode = string(*kp.Mode)
		}
	}
	f.VPAEnabled = k.VerticalPodAutoscaler != nil && k.VerticalPodAutoscaler.Enabled
	f.Hibernated = HibernationWanted(shoot)
	return f
}

// HibernationWanted is the one answer to "is this shoot hibernated?" for rendering and the
// controller: true while spec.hibernation.enabled is true (hibernated or going to sleep). A shoot
// waking up (status.hibernated still true, spec.hibernation.enabled unset or false) is not: the
// gardenlet recreates its kube-apiserver DNSRecords before the wake-up reconcile, which must put
// the gardener-kube-apiserver GlobalNetworkSet back rather than wait for the next reconcile.
func HibernationWanted(shoot *gardencorev1beta1.Shoot) bool {
	h := shoot.Spec.Hibernation
	return h != nil && h.Enabled != nil && *h.Enabled
}
