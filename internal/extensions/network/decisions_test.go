package network

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/event"

	gardencorev1beta1 "github.com/calico-pilot/calico-pilot/api/gardener/core/v1beta1"
	extensionsv1alpha1 "github.com/calico-pilot/calico-pilot/api/gardener/extensions/v1alpha1"
)

func TestShootFacts(t *testing.T) {
	shoot := func(mutate func(*gardencorev1beta1.Shoot)) *gardencorev1beta1.Shoot {
		s := &gardencorev1beta1.Shoot{}
		mutate(s)
		return s
	}
	tests := []struct {
		name                  string
		shoot                 *gardencorev1beta1.Shoot
		wantFailed, wantForce bool
	}{
		{name: "plain", shoot: shoot(func(*gardencorev1beta1.Shoot) {})},
		{name: "failed", shoot: shoot(func(s *gardencorev1beta1.Shoot) {
			s.Status.LastOperation = &gardencorev1beta1.LastOperation{State: "Failed"}
		}), wantFailed: true},
		{name: "error is not failed", shoot: shoot(func(s *gardencorev1beta1.Shoot) {
			s.Status.LastOperation = &gardencorev1beta1.LastOperation{State: "Error"}
		})},
		{name: "force deletion True", shoot: shoot(func(s *gardencorev1beta1.Shoot) {
			s.Annotations = map[string]string{"confirmation.gardener.cloud/force-deletion": "True"}
		}), wantForce: true},
		{name: "force deletion garbage", shoot: shoot(func(s *gardencorev1beta1.Shoot) {
			s.Annotations = map[string]string{"confirmation.gardener.cloud/force-deletion": "yes"}
		})},
		{name: "hibernation wanted", shoot: shoot(func(s *gardencorev1beta1.Shoot) {
			s.Spec.Hibernation = &gardencorev1beta1.Hibernation{Enabled: ptr.To(true)}
		})},
		{name: "waking up (status still hibernated)", shoot: shoot(func(s *gardencorev1beta1.Shoot) {
			s.Spec.Hibernation = &gardencorev1beta1.Hibernation{Enabled: ptr.To(false)}
			s.Status.IsHibernated = true
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := shootFailed(tt.shoot); got != tt.wantFailed {
				t.Errorf("shootFailed = %v, want %v", got, tt.wantFailed)
			}
			if got := forceDeletion(tt.shoot); got != tt.wantForce {
				t.Errorf("forceDeletion = %v, want %v", got, tt.wantForce)
			}
		})
	}
}

func TestErrorClassification(t *testing.T) {
	base := errors.New("boom")
	tests := []struct {
		name        string
		err         error
		wantCodes   []string
		wantRequeue time.Duration
		wantConfig  bool
	}{
		{name: "plain", err: base},
		{name: "configuration, wrapped", err: fmt.Errorf("step: %w", ConfigurationError(base)), wantCodes: []string{"ERR_CONFIGURATION_PROBLEM"}, wantConfig: true},
		{name: "retriable with delay", err: RetriableError(base, 3*time.Second), wantRequeue: 3 * time.Second},
		{name: "retriable with code", err: fmt.Errorf("x: %w", RetriableError(base, 0, ErrCodeRetryableConfigurationProblem)), wantCodes: []string{"ERR_RETRYABLE_CONFIGURATION_PROBLEM"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.wantCodes, errorCodes(tt.err)); diff != "" {
				t.Errorf("codes (-want +got):\n%s", diff)
			}
			if got := requeueAfter(tt.err); got != tt.wantRequeue {
				t.Errorf("requeueAfter = %s, want %s", got, tt.wantRequeue)
			}
			if got := IsConfigurationError(tt.err); got != tt.wantConfig {
				t.Errorf("isConfigurationError = %v, want %v", got, tt.wantConfig)
			}
			if !errors.Is(tt.err, base) {
				t.Error("cause lost")
			}
		})
	}
}

func TestOperationAnnotationPredicate(t *testing.T) {
	p := operationAnnotationPredicate()
	withAnn := func(op, ts string, last *gardencorev1beta1.LastOperation) *extensionsv1alpha1.Network {
		n := networkWith(op, false, last)
		if ts != "" {
			if n.Annotations == nil {
				n.Annotations = map[string]string{}
			}
			n.Annotations["gardener.cloud/timestamp"] = ts
		}
		return n
	}
	succeeded := lastOp("Reconcile", "Succeeded")
	createTests := []struct {
		name string
		obj  *extensionsv1alpha1.Network
		want bool
	}{
		{name: "succeeded, no annotation (start-up)", obj: withAnn("", "", succeeded), want: false},
		{name: "succeeded, reconcile annotation", obj: withAnn("reconcile", "", succeeded), want: true},
		{name: "never reconciled", obj: withAnn("", "", nil), want: true},
		{name: "last operation failed", obj: withAnn("", "", lastOp("Reconcile", "Error")), want: true},
		{name: "being deleted", obj: networkWith("", true, succeeded), want: true},
	}
	for _, tt := range createTests {
		t.Run("create/"+tt.name, func(t *testing.T) {
			if got := p.Create(event.CreateEvent{Object: tt.obj}); got != tt.want {
				t.Errorf("Create = %v, want %v", got, tt.want)
			}
		})
	}
	updateTests := []struct {
		name     string
		old, new *extensionsv1alpha1.Network
		want     bool
	}{
		{name: "annotation set", old: withAnn("", "t1", succeeded), new: withAnn("reconcile", "t2", succeeded), want: true},
		{name: "same annotation, new timestamp", old: withAnn("reconcile", "t1", succeeded), new: withAnn("reconcile", "t2", succeeded), want: true},
		{name: "own write while restore annotation is on", old: withAnn("restore", "t1", nil), new: withAnn("restore", "t1", lastOp("Restore", "Processing")), want: false},
		{name: "status change only", old: withAnn("", "", nil), new: withAnn("", "", succeeded), want: false},
		{name: "deletion marked", old: networkWith("", false, succeeded), new: networkWith("", true, succeeded), want: true},
		{name: "own status write during deletion", old: networkWith("", true, succeeded), new: networkWith("", true, lastOp("Delete", "Processing")), want: false},
	}
	for _, tt := range updateTests {
		t.Run("update/"+tt.name, func(t *testing.T) {
			if got := p.Update(event.UpdateEvent{ObjectOld: tt.old, ObjectNew: tt.new}); got != tt.want {
				t.Errorf("Update = %v, want %v", got, tt.want)
			}
		})
	}
}

// An unasked reconcile writes a status only when the last operation is not a success that stands for
// op's (op's own, or a Create's or Restore's before a Reconcile) for this generation, or when the
// actuator changed something.
func TestSettled(t *testing.T) {
	succeeded := func(typ string, gen int64) *extensionsv1alpha1.Network {
		n := networkWith("", false, lastOp(typ, "Succeeded"))
		n.Generation, n.Status.ObservedGeneration = gen, gen
		return n
	}
	changed := succeeded("Reconcile", 2)
	changed.Status.Conditions = []gardencorev1beta1.Condition{{Type: "ConfigurationValid", Status: "True"}}
	withError := succeeded("Reconcile", 2)
	withError.Status.LastError = &gardencorev1beta1.LastError{Description: "old"}
	newGeneration := succeeded("Reconcile", 2)
	newGeneration.Generation = 3
	tests := []struct {
		name          string
		base, network *extensionsv1alpha1.Network
		op            gardencorev1beta1.LastOperationType
		want          bool
	}{
		{name: "same success, nothing changed", base: succeeded("Reconcile", 2), network: succeeded("Reconcile", 2), op: "Reconcile", want: true},
		{name: "actuator changed the status", base: succeeded("Reconcile", 2), network: changed, op: "Reconcile"},
		{name: "create succeeded, first unasked reconcile", base: succeeded("Create", 2), network: succeeded("Create", 2), op: "Reconcile", want: true},
		{name: "restore succeeded, first unasked reconcile", base: succeeded("Restore", 2), network: succeeded("Restore", 2), op: "Reconcile", want: true},
		{name: "create succeeded, actuator changed the status", base: succeeded("Create", 2), network: func() *extensionsv1alpha1.Network {
			n := succeeded("Create", 2)
			n.Status.Conditions = changed.Status.Conditions
			return n
		}(), op: "Reconcile"},
		{name: "last operation was a migrate", base: succeeded("Migrate", 2), network: succeeded("Migrate", 2), op: "Reconcile"},
		{name: "last operation was a delete", base: succeeded("Delete", 2), network: succeeded("Delete", 2), op: "Reconcile"},
		{name: "last error left", base: withError, network: withError, op: "Reconcile"},
		{name: "generation not observed", base: newGeneration, network: newGeneration, op: "Reconcile"},
		{name: "never reconciled", base: networkWith("", false, nil), network: networkWith("", false, nil), op: "Create"},
	}
	for _, tt := range tests {
		if got := settled(tt.base, tt.network, tt.op); got != tt.want {
			t.Errorf("%s: settled = %t, want %t", tt.name, got, tt.want)
		}
	}
}
