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
	k := shoot.Spec.Kubernetes
	f.KubernetesVersion = k.Version
	if kp := k.KubeProxy; kp != nil {
		f.KubeProxyEnabled = kp.Enabled
		if kp.Mode != nil {
			f.KubeProxyMode = string(*kp.Mode)
		}
	}
	f.VPAEnabled = k.VerticalPodAutoscaler != nil && k.VerticalPodAutoscaler.Enabled
	f.Hibernated = (shoot.Spec.Hibernation != nil && shoot.Spec.Hibernation.Enabled != nil && *shoot.Spec.Hibernation.Enabled) || shoot.Status.IsHibernated
	return f
}
