package standalone

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	calicov1alpha1 "github.com/calico-pilot/calico-pilot/api/calico/v1alpha1"
	"github.com/calico-pilot/calico-pilot/internal/calicoversion"
)

// Where apply keeps its state and its lock: the namespace Calico runs in.
const (
	Namespace      = calicoversion.Namespace
	StateConfigMap = "calico-pilot-state"
	StateKey       = "state.json"
	LeaseName      = "calico-pilot-apply"
	// FieldManager is the server-side apply field manager of everything apply writes.
	FieldManager = "calico-pilot"
)

// State is what apply recorded in the cluster, so that an apply from any machine decides the same.
type State struct {
	// Release is the Calico release every component runs once no move is in progress.
	Release string `json:"release,omitempty"`
	// CRDRelease is the newest release whose CRDs were ever applied: CRDs never go back.
	CRDRelease string `json:"crdRelease,omitempty"`
	// Move is the move in progress (nil when none): an interrupted apply continues it.
	Move *MoveState `json:"move,omitempty"`
	// Owned are the objects apply applied last (CRDs and IP pools are listed but never deleted).
	Owned []ObjectRef `json:"owned,omitempty"`
	// Pools is the pool intent: the pools created or adopted, never created again (internal/pools).
	Pools []calicov1alpha1.IPPoolRecord `json:"pools,omitempty"`
	// Adopted is true once apply took over an install it did not create.
	Adopted bool `json:"adopted,omitempty"`
	// Kept are the settings an adoption took from what ran because the file left them out (a
	// NetworkConfig of those settings only): later applies keep them while the file stays silent.
	Kept *calicov1alpha1.NetworkConfig `json:"kept,omitempty"`
	// KeptRuntime are calico-node's start-up settings an adoption kept from what ran.
	KeptRuntime *KeptRuntime `json:"keptRuntime,omitempty"`
	// Components are the optional components calico-pilot runs (calico-apiserver, goldmane, whisker,
	// csi-node-driver): kept while the file is silent on them.
	Components []string `json:"components,omitempty"`
	// Operator is the tigera operator apply stopped to take its install over (nil: none), with what
	// to scale it back to.
	Operator *OperatorState `json:"operator,omitempty"`
	// Updated is when apply last changed the state.
	Updated time.Time `json:"updated,omitempty"`
}

// MoveState is a move in progress.
type MoveState struct {
	From    string    `json:"from"`
	To      string    `json:"to"`
	Phase   string    `json:"phase"`
	Started time.Time `json:"started"`
}

// ObjectRef names one applied object.
type ObjectRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
}

func (r ObjectRef) String() string {
	if r.Namespace == "" {
		return r.Kind + " " + r.Name
	}
	return r.Kind + " " + r.Namespace + "/" + r.Name
}

// ReadState reads the state ConfigMap; found is false when apply never ran on the cluster.
func ReadState(ctx context.Context, c client.Reader) (State, bool, error) {
	var cm corev1.ConfigMap
	err := c.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: StateConfigMap}, &cm)
	if apierrors.IsNotFound(err) {
		return State{}, false, nil
	}
	if err != nil {
		return State{}, false, fmt.Errorf("reading the state ConfigMap %s/%s: %w", Namespace, StateConfigMap, err)
	}
	var st State
	if err := json.Unmarshal([]byte(cm.Data[StateKey]), &st); err != nil {
		return State{}, false, fmt.Errorf("the state ConfigMap %s/%s key %s does not decode: %w (it is calico-pilot's; restore it from a backup rather than editing it)", Namespace, StateConfigMap, StateKey, err)
	}
	return st, true, nil
}

// stateWriter writes the state as an apply goes, and only what changed: an apply that changes
// nothing leaves the state ConfigMap as it was (Updated too).
type stateWriter struct {
	c client.Client
	// last is the state as recorded (nil: none yet), Updated left out.
	last []byte
}

// newStateWriter starts from st, read from the cluster (found false: none recorded).
func newStateWriter(c client.Client, st State, found bool) (*stateWriter, error) {
	w := &stateWriter{c: c}
	if found {
		var err error
		if w.last, err = encodeUnstamped(st); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// write records st unless it is what is recorded already.
func (w *stateWriter) write(ctx context.Context, st State, now time.Time) error {
	b, err := encodeUnstamped(st)
	if err != nil {
		return err
	}
	if w.last != nil && bytes.Equal(b, w.last) {
		return nil
	}
	if err := WriteState(ctx, w.c, st, now); err != nil {
		return err
	}
	w.last = b
	return nil
}

// encodeUnstamped is st's encoding without Updated, to compare two states.
func encodeUnstamped(st State) ([]byte, error) {
	st.Updated = time.Time{}
	b, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("encoding the state: %w", err)
	}
	return b, nil
}

// WriteState records st with server-side apply.
func WriteState(ctx context.Context, c client.Client, st State, now time.Time) error {
	st.Updated = now.UTC().Truncate(time.Second)
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the state: %w", err)
	}
	cm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"namespace": Namespace, "name": StateConfigMap, "labels": map[string]any{"app.kubernetes.io/managed-by": FieldManager}},
		"data":     map[string]any{StateKey: string(b)},
	}}
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(cm), client.FieldOwner(FieldManager), client.ForceOwnership); err != nil {
		return fmt.Errorf("writing the state ConfigMap %s/%s: %w", Namespace, StateConfigMap, err)
	}
	return nil
}
