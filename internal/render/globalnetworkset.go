package render

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1 "github.com/calico-pilot/calico-pilot/api/projectcalico/v1"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// kubeAPIServerNetworkSet returns the gardener-kube-apiserver GlobalNetworkSet when addresses are
// resolved. The name and the single label are a contract policies select on; no other label is
// set, because every label of a network set is selector input.
func kubeAPIServerNetworkSet(o *values.Options) ([]client.Object, error) {
	if len(o.KubeAPIServerNets) == 0 {
		return nil, nil
	}
	nets := make([]string, len(o.KubeAPIServerNets))
	for i, p := range o.KubeAPIServerNets {
		nets[i] = p.String()
	}
	return []client.Object{&calicov1.GlobalNetworkSet{
		TypeMeta:   typeMeta("crd.projectcalico.org/v1", "GlobalNetworkSet"),
		ObjectMeta: meta(NameKubeAPIServerNetSet, "", map[string]string{LabelKubeAPIServerEndpoint: "kube-apiserver"}),
		Spec:       calicov1.GlobalNetworkSetSpec{Nets: nets},
	}}, nil
}
