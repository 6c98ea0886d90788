package rollout

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ReadState reads the State ConfigMap of namespace; found is false when there is none (no rollout
// was evaluated there yet).
func ReadState(ctx context.Context, c client.Reader, namespace string) (state State, found bool, err error) {
	cm := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ConfigMapName}, cm); err != nil {
		if apierrors.IsNotFound(err) {
			return State{}, false, nil
		}
		return State{}, false, fmt.Errorf("reading ConfigMap %s/%s: %w", namespace, ConfigMapName, err)
	}
	state, err = Decode(cm.Data)
	return state, true, err
}

// ResumeConfigMap clears the halt recorded in namespace's State ConfigMap (Resume), with an
// optimistic update: when the controller wrote meanwhile, the update fails with a conflict and
// nothing is changed. It returns the State after the resume and whether there was a halt.
func ResumeConfigMap(ctx context.Context, c client.Client, namespace string, now time.Time) (State, bool, error) {
	cm := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: ConfigMapName}, cm); err != nil {
		return State{}, false, fmt.Errorf("reading ConfigMap %s/%s: %w", namespace, ConfigMapName, err)
	}
	state, err := Decode(cm.Data)
	if err != nil {
		return State{}, false, err
	}
	if !Resume(&state, now) {
		return state, false, nil
	}
	if cm.Data, err = state.Encode(); err != nil {
		return State{}, false, err
	}
	if err := c.Update(ctx, cm); err != nil {
		return State{}, false, fmt.Errorf("writing ConfigMap %s/%s: %w", namespace, ConfigMapName, err)
	}
	return state, true, nil
}
