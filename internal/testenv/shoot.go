package testenv

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
)

// BaseShoot is the Shoot the integration suites start from (in a Cluster, or as swap-check's
// input): name in project namespace garden-dev, calico networking on IPv4 with nodes
// 10.250.0.0/16, pods 100.96.0.0/11, services 100.64.0.0/13, Kubernetes 1.33.2 with kube-proxy
// on in IPTables mode, and one worker pool. Each call returns a fresh object to change.
func BaseShoot(name string) *gardencorev1beta1.Shoot {
	return &gardencorev1beta1.Shoot{
		TypeMeta:   metav1.TypeMeta{APIVersion: "core.gardener.cloud/v1beta1", Kind: "Shoot"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "garden-dev"},
		Spec: gardencorev1beta1.ShootSpec{
			Networking: &gardencorev1beta1.Networking{
				Type: ptr.To("calico"), Pods: ptr.To("100.96.0.0/11"), Nodes: ptr.To("10.250.0.0/16"),
				Services: ptr.To("100.64.0.0/13"), IPFamilies: []gardencorev1beta1.IPFamily{"IPv4"},
			},
			Kubernetes: gardencorev1beta1.Kubernetes{
				Version:   "1.33.2",
				KubeProxy: &gardencorev1beta1.KubeProxyConfig{Enabled: ptr.To(true), Mode: ptr.To(gardencorev1beta1.ProxyModeIPTables)},
			},
			Provider: gardencorev1beta1.Provider{Type: "local", Workers: []gardencorev1beta1.Worker{{Name: "worker"}}},
		},
	}
}
