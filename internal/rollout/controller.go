package rollout

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"sync"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/yaml"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
	"github.com/calico-pilot/calico-pilot/internal/decode"
	"github.com/calico-pilot/calico-pilot/internal/values"
)

// View is the rollout's answer to "does this shoot move now, and where to", kept in memory by the
// Controller (the only writer of the State) for the Network actuator: a reconcile asks the API server
// nothing for it. It is empty until the Controller's first evaluation, so nothing moves before the
// State was read.
type View struct {
	mu sync.RWMutex
	m  map[string]Assignment
}

// Assignment implements the Network actuator's RolloutView.
func (v *View) Assignment(namespace string) (Assignment, bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	a, ok := v.m[namespace]
	return a, ok
}

// set replaces the assignments and returns the namespaces whose assignment is new.
func (v *View) set(m map[string]Assignment) []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	var added []string
	for ns, a := range m {
		if old, ok := v.m[ns]; !ok || old != a {
			added = append(added, ns)
		}
	}
	v.m = m
	return added
}

// Controller evaluates the rollout periodically: it reads the State ConfigMap, the Networks and
// Clusters (from the manager's cache) and, for members that reached the target, their calico-node,
// Typha and kube-controllers (through the shoot client), writes the next State and publishes the
// View. It runs as a leader-elected manager Runnable with one goroutine: the single writer of the
// State.
type Controller struct {
	// Spec is the operator's rollout (nil: none; the View stays empty).
	Spec *Spec
	// Client lists Networks and Clusters (cached) and writes the ConfigMap.
	Client client.Client
	// APIReader reads the ConfigMap from the API server (ConfigMaps are not cached).
	APIReader client.Reader
	// Namespace is the controller's namespace, where the State ConfigMap lives.
	Namespace string
	// NetworkType is the Network type of the shoots (calico).
	NetworkType string
	// ShootClient reaches a shoot by its control-plane namespace.
	ShootClient func(ctx context.Context, namespace string) (client.Client, error)
	// Interval is how often the rollout is evaluated.
	Interval time.Duration
	// View is published after every evaluation.
	View *View
	// Trigger receives the Networks of members whose assignment is new (a wave opened, a resume),
	// so they are reconciled at once.
	Trigger chan<- event.GenericEvent
	// Log logs the rollout's steps.
	Log logr.Logger
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// ShootReadTimeout bounds the reads of one shoot's calico-node, Typha and kube-controllers in an evaluation.
const ShootReadTimeout = 15 * time.Second

// NeedLeaderElection makes the Controller run only in the leader: one writer of the State.
func (c *Controller) NeedLeaderElection() bool { return true }

// Start evaluates every Interval until ctx ends. An evaluation that fails is logged and retried at
// the next tick.
func (c *Controller) Start(ctx context.Context) error {
	if c.Spec == nil {
		<-ctx.Done()
		return nil
	}
	t := time.NewTicker(c.Interval)
	defer t.Stop()
	for {
		if err := c.Sync(ctx); err != nil && ctx.Err() == nil {
			c.Log.Error(err, "Evaluating the Calico rollout failed", "rollout", c.Spec.Name)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Sync is one evaluation.
func (c *Controller) Sync(ctx context.Context) error {
	now := c.now()
	cm := &corev1.ConfigMap{}
	err := c.APIReader.Get(ctx, client.ObjectKey{Namespace: c.Namespace, Name: ConfigMapName}, cm)
	exists := err == nil
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("reading the rollout state: %w", err)
	}
	state, err := Decode(cm.Data)
	if err != nil {
		return err
	}
	shoots, networks, err := c.shoots(ctx)
	if err != nil {
		return err
	}
	next, res := Evaluate(c.Spec, state, shoots, func(ns string) (Components, error) {
		// One shoot whose API server does not answer must not hold up the whole evaluation: its
		// read gives up, and the member stays pending with the error as its reason (failing only
		// at its deadline).
		ctx, cancel := context.WithTimeout(ctx, ShootReadTimeout)
		defer cancel()
		shoot, err := c.ShootClient(ctx, ns)
		if err != nil {
			return Components{}, err
		}
		return ReadComponents(ctx, shoot)
	}, now)
	if !exists || !reflect.DeepEqual(state, next) {
		data, err := next.Encode()
		if err != nil {
			return err
		}
		if exists {
			cm.Data = data
			err = c.Client.Update(ctx, cm)
		} else {
			cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: ConfigMapName}, Data: data}
			err = c.Client.Create(ctx, cm)
		}
		if err != nil {
			// A conflict (resume wrote meanwhile) is evaluated again at the next tick.
			return fmt.Errorf("writing the rollout state: %w", err)
		}
	}
	if len(res.Opened) > 0 {
		c.Log.Info("Calico rollout opened a wave", "rollout", next.Rollout, "shoots", len(res.Opened))
	}
	if res.Halted {
		c.Log.Info("Calico rollout halted", "rollout", next.Rollout, "wave", next.Halted.Wave, "reason", next.Halted.Reason)
	}
	for _, ns := range c.View.set(maps.Clone(next.Assignments())) {
		if n, ok := networks[ns]; ok && c.Trigger != nil {
			select {
			case c.Trigger <- event.GenericEvent{Object: n}:
			case <-ctx.Done():
				return nil
			}
		}
	}
	return nil
}

// shoots gathers what the rollout sees of every shoot of NetworkType, and their Networks by namespace.
func (c *Controller) shoots(ctx context.Context) (map[string]Shoot, map[string]*extensionsv1alpha1.Network, error) {
	var list extensionsv1alpha1.NetworkList
	if err := c.Client.List(ctx, &list); err != nil {
		return nil, nil, fmt.Errorf("listing Networks: %w", err)
	}
	shoots := map[string]Shoot{}
	networks := map[string]*extensionsv1alpha1.Network{}
	for i := range list.Items {
		n := &list.Items[i]
		if n.Spec.Type != c.NetworkType || n.DeletionTimestamp != nil {
			continue
		}
		cluster := &extensionsv1alpha1.Cluster{}
		if err := c.Client.Get(ctx, client.ObjectKey{Name: n.Namespace}, cluster); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return nil, nil, fmt.Errorf("reading Cluster %s: %w", n.Namespace, err)
		}
		shoot, err := decode.ClusterShoot(cluster)
		if err != nil || shoot == nil {
			// A shoot the rollout cannot read is left out (its Network reconcile reports it).
			continue
		}
		shoots[n.Namespace] = ShootOf(n, shoot)
		networks[n.Namespace] = n
	}
	return shoots, networks, nil
}

// ShootOf is what the rollout sees of one Network and its shoot.
func ShootOf(n *extensionsv1alpha1.Network, shoot *gardencorev1beta1.Shoot) Shoot {
	s := Shoot{
		Namespace: n.Namespace, Labels: shoot.Labels, KubernetesVersion: shoot.Spec.Kubernetes.Version,
		Hibernated: values.HibernationWanted(shoot),
		// A Network that records no release runs the catalogue's unrecorded one.
		Release: calicoversion.Default().Unrecorded().Release,
	}
	if pc := n.Spec.ProviderConfig; pc != nil && len(pc.Raw) > 0 {
		var cfg struct {
			CalicoVersion *string `json:"calicoVersion"`
		}
		if yaml.Unmarshal(pc.Raw, &cfg) == nil && cfg.CalicoVersion != nil {
			s.Pin = *cfg.CalicoVersion
		}
	}
	if ps := n.Status.ProviderStatus; ps != nil && len(ps.Raw) > 0 {
		var st calicov1alpha1.NetworkStatus
		if json.Unmarshal(ps.Raw, &st) == nil {
			if v, err := calicoversion.Default().Recorded(st.CalicoVersion); err == nil && !v.Release.IsZero() {
				s.Release = v.Release
			}
			if m := st.CalicoMove; m != nil {
				s.MoveStarted, s.MovePhase = m.Started.Time, m.Phase
			}
		}
	}
	if lo := n.Status.LastOperation; lo != nil {
		switch lo.State {
		case gardencorev1beta1.LastOperationStateSucceeded:
			s.Reconciled = n.Status.ObservedGeneration == n.Generation
		case gardencorev1beta1.LastOperationStateError, gardencorev1beta1.LastOperationStateFailed:
			s.ReconcileFailed = lo.State == gardencorev1beta1.LastOperationStateFailed
			s.ReconcileErrorAt = lo.LastUpdateTime.Time
			s.ReconcileError = lo.Description
			if le := n.Status.LastError; le != nil && le.Description != "" {
				s.ReconcileError = le.Description
			}
		}
	}
	return s
}

func (c *Controller) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}
