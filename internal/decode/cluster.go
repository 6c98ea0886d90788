package decode

import (
	"encoding/json"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
)

// ClusterShoot is the one decoding of the Shoot a Cluster embeds (spec.shoot), for the controller,
// `render --cluster` and the seed state swap-check reads: leniently, as Gardener's extension library
// does, since Gardener adds Shoot fields all the time and we read only a few of them. It returns
// nil and no error when the Cluster embeds no shoot; the error is the JSON decoder's, for the
// caller to name the Cluster.
func ClusterShoot(cluster *extensionsv1alpha1.Cluster) (*gardencorev1beta1.Shoot, error) {
	raw := cluster.Spec.Shoot.Raw
	if len(raw) == 0 {
		return nil, nil
	}
	shoot := &gardencorev1beta1.Shoot{}
	if err := json.Unmarshal(raw, shoot); err != nil {
		return nil, err
	}
	return shoot, nil
}
