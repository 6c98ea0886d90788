package ssa

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
)

// withoutTimes is the API server's equality for an update it may skip (its
// IgnoreManagedFieldsTimestampsTransformer): the semantic equality of API objects (a quantity is its
// value, "0.1" is "100m") with managedFields entries compared without their times. When the object
// after an apply equals the one before but for the times of managedFields, the server keeps the old
// times, and the object, unwritten.
func withoutTimes() (conversion.Equalities, error) {
	eq := equality.Semantic.Copy()
	err := eq.AddFuncs(func(a, b metav1.ManagedFieldsEntry) bool {
		a.Time, b.Time = nil, nil
		return reflect.DeepEqual(a, b)
	})
	if err != nil {
		return conversion.Equalities{}, fmt.Errorf("building the equality of no-op updates: %w", err)
	}
	return eq, nil
}

// same says whether the API server would store nothing new when after is what its field manager made
// of live: equal in every value and in managedFields but their times. The server compares its typed
// objects for the built-in kinds (nil and empty alike, quantities by value) and custom resources as
// they are (nil and empty differ).
func (c *Comparer) same(after, live *unstructured.Unstructured) bool {
	if !c.eq.DeepEqual(after.GetManagedFields(), live.GetManagedFields()) {
		return false
	}
	a, l := withoutManagedFields(after), withoutManagedFields(live)
	gvk := live.GroupVersionKind()
	if _, custom := c.custom[gvk]; custom || !c.scheme.Recognizes(gvk) {
		return c.eq.DeepEqualWithNilDifferentFromEmpty(a.Object, l.Object)
	}
	if c.eq.DeepEqual(a.Object, l.Object) {
		return true
	}
	at, err := c.scheme.New(gvk)
	if err != nil {
		return false
	}
	lt, err := c.scheme.New(gvk)
	if err != nil {
		return false
	}
	if runtime.DefaultUnstructuredConverter.FromUnstructured(a.Object, at) != nil || runtime.DefaultUnstructuredConverter.FromUnstructured(l.Object, lt) != nil {
		return false
	}
	return c.eq.DeepEqual(at, lt)
}
