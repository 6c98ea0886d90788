package network

import (
	"context"
	"fmt"
	"strconv"

	"sigs.k8s.io/controller-runtime/pkg/client"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/decode"
)

// GetCluster reads the Cluster named after the control-plane namespace and decodes its shoot.
func GetCluster(ctx context.Context, c client.Reader, namespace string) (*Cluster, error) {
	var cluster extensionsv1alpha1.Cluster
	if err := c.Get(ctx, client.ObjectKey{Name: namespace}, &cluster); err != nil {
		return nil, fmt.Errorf("reading Cluster %s: %w", namespace, err)
	}
	return DecodeCluster(&cluster)
}

// DecodeCluster decodes the embedded shoot leniently: Gardener adds Shoot fields all the time, and
// we read only a few of them.
func DecodeCluster(cluster *extensionsv1alpha1.Cluster) (*Cluster, error) {
	shoot, err := decode.ClusterShoot(cluster)
	if err != nil {
		return nil, fmt.Errorf("decoding shoot of Cluster %s: %w", cluster.Name, err)
	}
	if shoot == nil {
		shoot = &gardencorev1beta1.Shoot{}
	}
	return &Cluster{Name: cluster.Name, Shoot: shoot}, nil
}

// shootFailed is Gardener's IsShootFailed: the shoot's last operation is in state Failed.
func shootFailed(shoot *gardencorev1beta1.Shoot) bool {
	return shoot.Status.LastOperation != nil && shoot.Status.LastOperation.State == gardencorev1beta1.LastOperationStateFailed
}

// forceDeletion is Gardener's ShootNeedsForceDeletion: the force-deletion annotation parses as true.
func forceDeletion(shoot *gardencorev1beta1.Shoot) bool {
	v, err := strconv.ParseBool(shoot.Annotations[AnnotationForceDeletion])
	return err == nil && v
}
